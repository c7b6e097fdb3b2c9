"""A decision replayed on the listener's looks (``tests/data/looks_corpus.npz``, see
:mod:`voice_earl.bench.looks`): a trial is heard as the first of its looks that the decision takes,
as the listener takes the first verdict it is given (a look that hears nothing lets it look on). So
a trial moves the game when any of its looks would.

    .venv/bin/python scripts/judge_replay.py --looks                      # the rules
    .venv/bin/python scripts/judge_replay.py --looks --set verifier=true  # the verifier

The listener's own waits (a verdict held until the audio confirms it, dropped when the speaker goes
on) are not replayed: a look taken here may be one the listener would have dropped. The figures are
the more pessimistic for it, about talk.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from voice_earl.bench.corpus import LEAD_IN_S, TUNING_CONDITIONS, Expect
from voice_earl.bench.golden_file import LOOKS_CORPUS, Case, HeardTrial, LookCase, read_looks
from voice_earl.bench.golden_replay import HEADER, TALK, Tally, part_of, replay, right, tally
from voice_earl.listening.judge.candidates import Heard
from voice_earl.listening.judge.decision import Decision, JudgeSettings
from voice_earl.listening.judge.verifier import Verifier

# A look covers what was said when it began before the speech and ended at or after its true end.
COVER_START_S = LEAD_IN_S


@dataclass(frozen=True)
class TrialLooks:
    """A trial heard in a condition, and the listener's looks at it, in order (none: it heard no speech)."""

    heard: HeardTrial
    looks: tuple[LookCase, ...]

    @property
    def case(self) -> Case | None:
        return self.looks[0].case if self.looks else None


def by_trial(looks: Iterable[LookCase], heard: Iterable[HeardTrial]) -> list[TrialLooks]:
    found: dict[tuple[str, int], list[LookCase]] = {}
    for look in looks:
        found.setdefault((look.case.condition, look.trial), []).append(look)
    return [
        TrialLooks(trial, tuple(sorted(found.get((trial.condition, trial.trial), []), key=lambda look: look.look)))
        for trial in heard
    ]


def covers(look: LookCase) -> bool:
    """Whether the look heard the whole of what was said: it began before the speech, ended after it."""
    return look.end_after_s >= 0.0 and look.start_s <= COVER_START_S


Decided = list[tuple[TrialLooks, list[Decision]]]


def decided_looks(
    trials: Sequence[TrialLooks], settings: JudgeSettings, verifier: Verifier | None = None, exact: bool = False
) -> Decided:
    """The decision on every look of every trial."""
    decisions = iter(replay([look.case for trial in trials for look in trial.looks], settings, verifier, exact))
    return [(trial, [next(decisions)[1] for _ in trial.looks]) for trial in trials]


def taken(decisions: Sequence[Decision], points: Callable[[Heard], float] | None = None) -> int | None:
    """Which look the listener takes: the first that hears a phrase (at ``points``: the first whose
    probability reaches its kind's point)."""
    for number, decision in enumerate(decisions):
        if decision.phrase and (points is None or _clears(decision, points)):
            return number
    return None


def _clears(decision: Decision, points: Callable[[Heard], float]) -> bool:
    assert decision.heard is not None  # decided by the verifier
    return decision.probability >= points(decision.heard)


def heard_trials(decided: Decided, points: Callable[[Heard], float] | None = None) -> Tally:
    """How the trials came out, each heard as its first look taken."""
    pairs = []
    for trial, decisions in decided:
        if trial.case is None:
            continue
        number = taken(decisions, points)
        pairs.append((trial.case, "" if number is None else decisions[number].phrase))
    counted = tally(pairs)
    for trial, _ in decided:
        if trial.case is None:  # no speech heard: nothing moved the game, nothing said was heard
            counted.counts[trial.heard.expect] = counted.counts.get(trial.heard.expect, 0) + 1
    return counted


def label(look: LookCase, phrase: str) -> bool | None:
    """Whether hearing ``phrase`` on this look is what the verifier should do: never on talk, never a
    phrase that was not said; what was said, when the look covers it (None: a look cut before the end
    of what was said, which may yet be taken or not)."""
    case = look.case
    if case.expect in TALK or not right(case, phrase):
        return False
    return True if covers(look) else None


def looks_table(decided: Decided, points: Callable[[Heard], float] | None) -> list[str]:
    """A row per condition of the looks' trials, each heard as its first look taken."""
    lines = [HEADER]
    conditions = sorted({t.heard.condition for t, _ in decided}, key=TUNING_CONDITIONS.index)
    for condition in [*conditions, "all"]:
        chosen = [(t, ds) for t, ds in decided if condition in ("all", t.heard.condition)]
        c = heard_trials(chosen, points)
        lines.append(
            f"{condition:14} {len(chosen):5} {100 * c.share(Expect.CORRECT):6.1f} "
            f"{100 * c.share('wrong'):6.1f} {100 * c.share(Expect.PASS):6.1f} "
            f"{100 * c.share(Expect.COMMAND):6.1f} {100 * c.share('talk'):6.1f} {c.harm:5}"
        )
    return lines


# The operating points are looked for on this grid (four kinds: every combination is tried, since a
# trial's first look taken depends on them all). Points near 1 are in it: a trial gives the
# verifier many looks, and each look is another chance for talk to clear its point.
GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99)


@dataclass(frozen=True)
class Takeable:
    """What a trial's looks could do: for each look that hears a phrase, its kind, its probability,
    and what taking it would change in the measures (against hearing nothing)."""

    kinds: np.ndarray  # int, the index of each look's kind in Heard
    probabilities: np.ndarray
    changes: np.ndarray  # (looks, measures)


def takeable(decisions: Sequence[Decision], case: Case, measures: Callable[[Case, str], np.ndarray]) -> Takeable:
    kinds = list(Heard)
    found = [d for d in decisions if d.phrase]
    unheard = measures(case, "")
    return Takeable(
        np.array([kinds.index(d.heard) for d in found if d.heard is not None], dtype=int),
        np.array([d.probability for d in found]),
        np.array([measures(case, d.phrase) - unheard for d in found]).reshape(len(found), len(unheard)),
    )


def combinations() -> np.ndarray:
    """Every combination of a point per kind, as indices into GRID: (combinations, kinds)."""
    return np.array(list(itertools.product(range(len(GRID)), repeat=len(Heard))), dtype=int)


def summed(trials: Iterable[Takeable], combos: np.ndarray, size: int) -> np.ndarray:
    """For every combination of points, what the trials' first looks taken change in the measures."""
    thresholds = np.array(GRID)[combos]
    total = np.zeros((len(combos), size))
    for trial in trials:
        if len(trial.kinds) == 0:
            continue
        clears = trial.probabilities[None, :] >= thresholds[:, trial.kinds]
        first = clears.argmax(axis=1)
        total += np.where(clears.any(axis=1)[:, None], trial.changes[first], 0.0)
    return total


def replay_looks(settings: JudgeSettings, part: str | None) -> int:
    """The table of a decision on the looks corpus (of one part of the verifier's split, if given)."""
    looks, heard = read_looks(LOOKS_CORPUS)
    trials = [t for t in by_trial(looks, heard) if part in (None, part_of(t.heard.group))]
    points = settings.point if settings.verifier else None
    print("\n".join(looks_table(decided_looks(trials, settings), points)))
    return 0
