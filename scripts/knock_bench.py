"""The listening benchmark's knock rows (``bench_listening.py``): knocks on the table through the real listener.

Each recording of voice_earl/bench/knocks.py's split, knocks once or twice and the sounds that must not
pass, is mixed into each condition's room relative to the sound's own power (against its body, or with
``--knock-mix loud`` its samples above a fixed level, as speech: see voice_earl/bench/knocks.py) and heard
by the listener at positions 2-4, where a knock passes. A knock is heard when the listener's verdict is a pass; a
negative passed for a knock when the knock detector ended the listen with a pass (the columns by kind,
and "by knock"), and "any way" counts the negatives that moved the game however they were heard (the
first pass alone forces talk and laughter onto a line or a pass, as it does table talk). The time runs
from the first rap to the verdict on the listener's real-time clock.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voice_earl.bench.corpus import commands_context, degrade, moved_the_game, noise_stream
from voice_earl.bench.knocks import KNOCK, NEGATIVE_KINDS, KnockTrial, knock_trials, mixing_power
from voice_earl.game.cards import RANKS
from voice_earl.listening.recognizer import KnockHeard
from voice_earl.listening.stream.audio import Pcm16, pcm_chunks
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.utterance import grade_utterance
from voice_earl.words.verdicts import Verdict

KNOCK_HEADER = (
    f"{'listener':22} {'condition':13} {'knocks':>6} {'heard':>7} {'p50 ms':>7} {'p90 ms':>7}  "
    + " ".join(f"{kind:>9}" for kind in NEGATIVE_KINDS)
    + f" {'by knock':>9} {'any way':>8}"
)


@dataclass(frozen=True)
class KnockOutcome:
    trial: KnockTrial
    verdict: Verdict
    heard: str
    knocked: bool  # the knock detector decided it
    latency_ms: int | None  # from the first rap to the verdict (a knock heard as a pass)

    @property
    def moved(self) -> bool:
        return moved_the_game(self.verdict, self.heard)


def trials(split: str, seed: int) -> list[KnockTrial]:
    return list(knock_trials(split, seed))


def hear_knock(listener: Listener, trial: KnockTrial, audio: Pcm16, seed: int) -> KnockOutcome:
    rng = random.Random(f"{trial.recording.name}-{trial.variant}-{seed}")
    context = commands_context(rng.choice((2, 3, 4)), (rng.choice(RANKS),))
    events: list[object] = []
    utterance = listener.listen(pcm_chunks(audio, chunk_ms=40), context, on_event=events.append)
    verdict = grade_utterance(utterance, context).verdict
    latency = None
    if trial.kind == KNOCK and verdict is Verdict.PASS:
        latency = round((utterance.decided_at - trial.raps[0]) * 1000)
    knocked = any(isinstance(e, KnockHeard) for e in events)
    return KnockOutcome(trial, verdict, utterance.text.strip(), knocked, latency)


def knock_row(name: str, condition: str, outcomes: Sequence[KnockOutcome]) -> str:
    knocks = [o for o in outcomes if o.trial.kind == KNOCK]
    # A pass heard before the first rap is the room's doing, not the knock's.
    heard = [o for o in knocks if o.verdict is Verdict.PASS and (o.latency_ms or 0) >= 0]
    times = sorted(o.latency_ms for o in heard if o.latency_ms is not None)
    cells = []
    for kind in NEGATIVE_KINDS:
        some = [o for o in outcomes if o.trial.kind == kind]
        cells.append(f"{sum(o.moved and o.knocked for o in some)}/{len(some)}")
    negatives = [o for o in outcomes if o.trial.kind != KNOCK]
    knocked = sum(o.moved and o.knocked for o in negatives)
    moved = sum(o.moved for o in negatives)

    def at(share: float) -> str:
        return str(times[min(len(times) - 1, int(share * len(times)))]) if times else "-"

    return (
        f"{name:22} {condition:13} {len(knocks):6} {100 * len(heard) / max(1, len(knocks)):6.1f}% "
        f"{at(0.5):>7} {at(0.9):>7}  "
        + " ".join(f"{c:>9}" for c in cells)
        + f" {100 * knocked / max(1, len(negatives)):8.2f}% {100 * moved / max(1, len(negatives)):7.2f}%"
    )


def knock_rows(
    listeners: Sequence[tuple[str, Listener]],
    split: str,
    conditions: Sequence[str],
    rooms: dict[str, Pcm16],
    seed: int,
    show_errors: bool = False,
    mix: str = "body",
) -> None:
    """Print the knock rows: each listener in each condition."""
    chosen = trials(split, seed)
    print(
        f"\nknocks: {sum(t.kind == KNOCK for t in chosen)} knocks and {sum(t.kind != KNOCK for t in chosen)} other "
        f"sounds of the {split} split (voice_earl/bench/knocks.py), at positions 2-4, the room mixed by "
        f"the sound's {mix}\n"
    )
    print(KNOCK_HEADER)
    print("-" * len(KNOCK_HEADER))
    for condition in conditions:
        rng = noise_stream(seed, condition)
        audio = [
            degrade(t.audio.astype(np.float64), condition, rooms[condition], rng, power=mixing_power(t.audio, mix))
            for t in chosen
        ]
        for name, listener in listeners:
            outcomes = [hear_knock(listener, t, a, seed) for t, a in zip(chosen, audio, strict=True)]
            print(knock_row(name, condition, outcomes), flush=True)
            if show_errors:
                for o in outcomes:
                    wrong = o.verdict is not Verdict.PASS if o.trial.kind == KNOCK else o.moved
                    if wrong:
                        print(
                            f"    {o.trial.kind:9} {o.trial.recording.name}#{o.trial.variant} -> {o.verdict.value} "
                            f"{o.heard!r}{' (a knock)' if o.knocked else ''}"
                        )
