"""The listening benchmark's outcomes and its table: a row per listener and condition of what was
heard right, what moved the game, and how long the verdicts took."""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from voice_earl.bench.corpus import Expect, Trial, mistaken, moved_the_game
from voice_earl.words.verdicts import Verdict


@dataclass(frozen=True)
class Outcome:
    trial: Trial
    verdict: Verdict
    heard: str
    latency_ms: int | None
    wait_ms: int | None  # from the true end until the deciding judge run began
    judge_ms: int | None
    first_pass_ms: int
    why: str = ""  # the rule or veto that decided, or the verifier's probability against its point


def share(outcomes: Sequence[Outcome], expect: str, right: Callable[[Outcome], bool], word: str = "") -> str:
    """The share of the outcomes of one kind (and, with ``word``, whose text holds it) that are right."""
    chosen = [o for o in outcomes if o.trial.expect == expect and word in o.trial.text.lower()]
    if not chosen:
        return "-"
    return f"{100 * sum(right(o) for o in chosen) / len(chosen):.1f}%"


def percentile(values: Sequence[int], share_: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return str(ordered[min(len(ordered) - 1, int(share_ * len(ordered)))])


def median(values: Sequence[int | None]) -> str:
    known = [v for v in values if v is not None]
    return str(round(statistics.median(known))) if known else "-"


HEADER = (
    f"{'listener':22} {'condition':13} {'n':>4} {'correct':>8} {'wrong ln':>8} {'wrong rk':>8} {'pass':>7} "
    f"{'command':>8} {'chatter':>8} {'w/ pass':>8} {'human':>7} {'room':>6} "
    f"{'p50 ms':>7} {'p90 ms':>7} {'wait':>5} {'judge':>6} {'1st':>5}"
)


def heard_as_said(outcome: Outcome) -> bool:
    """Whether a formula due was accepted, or a pass recognised: a verdict the player waits for."""
    said = {Expect.CORRECT: Verdict.CORRECT, Expect.PASS: Verdict.PASS}.get(outcome.trial.expect)
    return said is not None and outcome.verdict is said


def row(name: str, condition: str, outcomes: Sequence[Outcome]) -> str:
    # A formula or a pass missed is no verdict: the listener listens on, and the time the benchmark
    # gives it is only the room kept after the recording (--tail). The misses are the columns before.
    decided = [o for o in outcomes if heard_as_said(o)]
    timed = [o.latency_ms for o in decided if o.latency_ms is not None]
    return (
        f"{name:22} {condition:13} {len(outcomes):4} "
        f"{share(outcomes, Expect.CORRECT, heard_as_said):>8} "
        f"{share(outcomes, Expect.WRONG_LINE, lambda o: o.verdict is Verdict.CORRECT):>8} "
        f"{share(outcomes, Expect.WRONG_RANK, lambda o: o.verdict is Verdict.CORRECT):>8} "
        f"{share(outcomes, Expect.PASS, heard_as_said):>7} "
        f"{share(outcomes, Expect.COMMAND, lambda o: o.heard == o.trial.text):>8} "
        f"{share(outcomes, Expect.CHATTER, lambda o: moved_the_game(o.verdict, o.heard)):>8} "
        f"{share(outcomes, Expect.CHATTER, lambda o: moved_the_game(o.verdict, o.heard), 'pass'):>8} "
        f"{share(outcomes, Expect.HUMAN, lambda o: moved_the_game(o.verdict, o.heard)):>7} "
        f"{share(outcomes, Expect.ROOM, lambda o: moved_the_game(o.verdict, o.heard)):>6} "
        f"{percentile(timed, 0.5):>7} {percentile(timed, 0.9):>7} "
        f"{median([o.wait_ms for o in decided]):>5} {median([o.judge_ms for o in decided]):>6} "
        f"{median([o.first_pass_ms for o in decided]):>5}"
    )


def show_errors(outcomes: Sequence[Outcome]) -> None:
    """The mistakes, grouped by the reason that decided them (the most common first)."""
    mistakes = [o for o in outcomes if mistaken(o.trial, o.verdict, o.heard)]
    for reason, group in grouped_by_reason(mistakes, lambda o: o.why):
        print(f"  {len(group)} x {reason}")
        for o in group:
            voice = o.trial.voice.label if o.trial.voice else "recording"
            print(
                f"    {o.trial.expect:10} p{o.trial.context.position} {voice:32} {o.trial.text!r} -> "
                f"{o.verdict.value} {o.heard!r}: {o.why}"
            )


T = TypeVar("T")


def grouped_by_reason(items: Sequence[T], why: Callable[[T], str]) -> list[tuple[str, list[T]]]:
    """``items`` grouped by their reason with its numbers left out (the most common first).

    >>> grouped_by_reason(["verifier: pass 0.41 < 0.70", "verifier: pass 0.12 < 0.70", "veto x: y"], str)
    [('verifier: pass < 0.70', ['verifier: pass 0.41 < 0.70', 'verifier: pass 0.12 < 0.70']), \
('veto x: y', ['veto x: y'])]
    """
    groups: dict[str, list[T]] = {}
    for item in items:
        groups.setdefault(reason_of(why(item)), []).append(item)
    return sorted(groups.items(), key=lambda pair: -len(pair[1]))


def reason_of(why: str) -> str:
    """A reason without the measures that differ from one verdict to the next (the bars stay: the
    numbers after a comparison or "bar").

    >>> reason_of("verifier: line 0.93 >= 0.60")
    'verifier: line >= 0.60'
    >>> reason_of("veto rank-not-clear: King leads the rank due by 1.2 < 2 (wrong 0.71 >= 0.50)")
    'veto rank-not-clear: King leads the rank due by < 2 (wrong >= 0.50)'
    >>> reason_of("rules: nothing heard: rule floor: pass mean -4.46 < -3.5, gain 0.32 (bar 0.9)")
    'rules: nothing heard: rule floor: pass mean < -3.5, gain (bar 0.9)'
    """
    return re.sub(r" (?<![<=>] )(?<!bar )-?\d+\.\d+(?=[ ,)]|$)", "", why)
