"""A loud room's talk alone, as the listener looks at it while no one speaks to the game.

The listener judges stretches of a third of a second to a second and a half of the room many times a turn.
The golden corpus judges each trial whole and once, so it cannot see what such stretches do: a trained patch
that let no more of the corpus's talk move the game than the shipped judge heard the cafe's talk alone as a
pass in one stretch in twenty. ``judge_corpus.py --patch`` counts them for a patch beside the shipped judge.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from voice_earl.bench.corpus import Expect, Trial, commands_context, degrade
from voice_earl.bench.rooms import room_talk
from voice_earl.game.cards import RANKS
from voice_earl.listening.judge.decision import JudgeResult, Transcript
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16
from voice_earl.words.context import ListenContext

ROOM = "cafe"  # the room no training ever hears
CONDITIONS = ("cafe 12 dB", "cafe 6 dB")
SHORTEST_S, LONGEST_S = 0.3, 1.5
ROOM_S = 4.0  # each stretch is cut from this much of the room


class Judge(Protocol):
    def judge(self, samples: Pcm16, context: ListenContext) -> JudgeResult: ...

    def transcribe(self, samples: Pcm16) -> Transcript: ...


@dataclass(frozen=True)
class Stretch:
    condition: str
    samples: Pcm16
    context: ListenContext

    @property
    def seconds(self) -> float:
        return len(self.samples) / SAMPLE_RATE


@dataclass(frozen=True)
class Heard:
    """A stretch of the room alone that a judge heard as a phrase of the game."""

    stretch: Stretch
    result: JudgeResult

    def __str__(self) -> str:
        stretch = self.stretch
        return f"{stretch.condition}, {stretch.seconds:.2f} s: {self.result.phrase!r} ({self.result.why})"


def stretches(count: int, level: float, cache: Path, seed: int = 11) -> Iterator[Stretch]:
    """``count`` stretches of the cafe's talk alone, in turn at 12 and 6 dB below ``level`` (a speaker's
    power), each heard at a position of the quartet drawn by ``seed``."""
    if not level > 0:
        raise ValueError(f"a speaker's power must be positive, not {level}")
    talk = room_talk(ROOM, cache / ROOM)
    rng = random.Random(f"room-alone-{seed}")
    for number in range(count):
        condition = CONDITIONS[number % len(CONDITIONS)]
        silence = np.zeros(int(ROOM_S * SAMPLE_RATE))
        room = degrade(silence, condition, talk, np.random.default_rng([seed, number]), power=level)
        start, length = rng.uniform(0.0, ROOM_S - LONGEST_S), rng.uniform(SHORTEST_S, LONGEST_S)
        samples = room[round(start * SAMPLE_RATE) : round((start + length) * SAMPLE_RATE)]
        position = rng.randint(1, 4)
        ranks = RANKS if position == 1 else (rng.choice(RANKS),)
        yield Stretch(condition, samples, commands_context(position, ranks))


def judged_in(judge: Judge, room: Sequence[Stretch]) -> list[Heard]:
    """Each stretch as ``judge`` heard it, with its free transcript (kept so a decision can be replayed)."""
    judged = []
    for stretch in room:
        result = judge.judge(stretch.samples, stretch.context)
        judged.append(Heard(stretch, replace(result, free=result.free or judge.transcribe(stretch.samples))))
    return judged


def heard_in(judge: Judge, room: Sequence[Stretch]) -> list[Heard]:
    """The stretches ``judge`` hears as a phrase of the game (each one moves the game)."""
    return [Heard(s, result) for s in room if (result := judge.judge(s.samples, s.context)).heard]


def as_corpus(judged: Sequence[Heard]) -> dict[str, list[tuple[Trial, JudgeResult]]]:
    """The stretches as the golden corpus keeps its trials, by room: the room alone, which must not move the
    game. Written by ``write_corpus``, a decision replays on them in a second (``judge_replay.py --corpus``)."""
    kept: dict[str, list[tuple[Trial, JudgeResult]]] = {condition: [] for condition in CONDITIONS}
    for number, one in enumerate(judged, 1):
        trial = Trial(f"stretch {number}", one.stretch.context, Expect.ROOM, None)
        kept[one.stretch.condition].append((trial, one.result))
    return kept


def beside(judges: Sequence[tuple[str, Path, Path]], count: int, level: float, cache: Path) -> list[str]:
    """What each judge (a title, its model, and where its scores are kept) hears in the same ``count``
    stretches, to print."""
    from voice_earl.bench.golden_file import BASE_JUDGE, TRAINED_JUDGE, write_corpus
    from voice_earl.listening.judge.whisper import WhisperJudge
    from voice_earl.listening.models.trained_judge import is_trained_judge

    room = list(stretches(count, level, cache))
    lines = []
    for title, model, kept in judges:
        judged = judged_in(WhisperJudge(model), room)
        write_corpus(as_corpus(judged), kept, judge=TRAINED_JUDGE if is_trained_judge(model) else BASE_JUDGE)
        heard = [one for one in judged if one.result.heard]
        lines.append(f"{title}: the cafe's talk alone heard as a move in {len(heard)} of {len(room)} stretches")
        lines.extend(f"  {one}" for one in heard)
        lines.append(f"  its scores: {kept} (scripts/judge_replay.py --corpus {kept} --set ...)")
    return lines
