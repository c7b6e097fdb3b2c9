"""A slow judge answers later, never otherwise: the listener's verdicts, and the audio each of the
judge's looks is given, are the same whether a look takes no time or two seconds.

The judge is the real one (Whisper tiny.en), wrapped so that each look takes as long as a test
says: it sleeps, or it reports that compute time (the listener charges a look the time its judge
reports). Its answers are kept, so every pace gets the very same answer to the very same audio.
The speech is espeak-ng's, in a quiet room and with four people talking 12 dB below it.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest
from support.listening_audio import needs_espeak, padded, speak

from voice_earl.bench.corpus import degrade, framed
from voice_earl.bench.rooms import room_talk
from voice_earl.game.cards import Rank
from voice_earl.listening.judge.decision import JudgeResult
from voice_earl.listening.judge.whisper import WhisperJudge
from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16, pcm_chunks
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.utterance import Judge, Utterance, grade_utterance
from voice_earl.words.context import ListenContext

pytestmark = [pytest.mark.slow, needs_espeak]

COMMANDS = ("undo", "repeat")
KINGS_SECOND = ListenContext(2, (Rank.KING,), commands=COMMANDS)
SEVEN_LEAD = ListenContext(1, (Rank.SEVEN, Rank.TWO), commands=COMMANDS)


@dataclass(frozen=True)
class Look:
    """One question put to the judge: what audio it was given (and with what the first pass heard),
    and its answer."""

    asked: str  # "judge" or "stopped after"
    samples: int
    first_pass: str
    answer: str


class PacedJudge:
    """The real judge, taking ``look_s`` per look: asleep (``sleep``) or as the compute time it
    reports. The real judge's answers are shared between paces (``answers``)."""

    def __init__(self, inner: Judge, answers: dict[tuple[str, ...], JudgeResult], look_s: float, sleep: bool) -> None:
        self.inner = inner
        self.name = inner.name
        self.answers = answers
        self.look_s = look_s
        self.sleep = sleep
        self.looks: list[Look] = []

    def understands(self, context: ListenContext) -> bool:
        return self.inner.understands(context)

    def judge(self, samples: Pcm16, context: ListenContext, first_pass: str = "", held: bool = False) -> JudgeResult:
        key = (hashlib.sha1(samples.tobytes()).hexdigest(), repr(context), first_pass, held)
        if key not in self.answers:
            self.answers[key] = self.inner.judge(samples, context, first_pass, held)
        if self.sleep:
            time.sleep(self.look_s)
        result = replace(self.answers[key], compute_s=self.look_s)
        self.looks.append(Look("judge", len(samples), first_pass, result.phrase))
        return result

    def stopped_after(self, result: JudgeResult, samples: Pcm16) -> bool | None:
        answer = self.inner.stopped_after(result, samples)
        if answer is not None:
            self.looks.append(Look("stopped after", len(samples), result.phrase, str(answer)))
        return answer


@pytest.fixture(scope="module")
def voice_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("timing-voices")


def said(text: str, folder: Path, gap_after: str = "", gap_s: float = 0.0) -> Pcm16:
    """espeak-ng saying ``text`` (and, after ``gap_s`` of quiet, ``gap_after``)."""
    speech = speak(text, folder / f"{abs(hash(text))}.wav")
    if gap_after:
        more = speak(gap_after, folder / f"{abs(hash(gap_after))}.wav")
        speech = np.concatenate([speech, np.zeros(round(gap_s * SAMPLE_RATE), np.int16), more])
    return speech


def over_talk(speech: Pcm16, folder: Path, seed: int) -> Pcm16:
    return degrade(
        framed(speech)[0], "babble 12 dB", room_talk("babble", folder / "babble"), np.random.default_rng(seed)
    )


def scenes(folder: Path) -> list[tuple[str, Pcm16, ListenContext]]:
    """Each path through the listener: a verdict taken at a short quiet and confirmed, a verdict
    dropped when the speaker went on, a whole line the first pass held, a pass held in a loud
    room, a line taken where the voice fell away, talk that starts with "pass"."""
    quiet = [
        ("pass", padded(said("pass", folder), 0.4, 1.2), KINGS_SECOND),
        ("pass, then talk", padded(said("pass", folder, "me the crisps would you", 0.4), 0.4, 1.2), KINGS_SECOND),
        ("pass me the crisps", padded(said("pass", folder, "me the crisps would you"), 0.4, 1.2), KINGS_SECOND),
        ("a line", padded(said("There's a King as good as he", folder), 0.4, 1.2), KINGS_SECOND),
    ]
    loud = [
        (f"{text} over talk ({seed})", over_talk(said(text, folder), folder, seed), context)
        for text, context, seeds in (
            ("I pass", KINGS_SECOND, (0, 1)),
            ("There's as good as Seven can be", SEVEN_LEAD, (0, 1, 2)),
            ("pass it to the left", KINGS_SECOND, (0,)),
        )
        for seed in seeds
    ]
    return quiet + loud


def heard(judge: PacedJudge, samples: Pcm16, context: ListenContext) -> Utterance:
    return Listener(SphinxRecognizer(), judge=judge).listen(pcm_chunks(samples, chunk_ms=40), context)


@pytest.mark.parametrize(("look_s", "sleep"), [(0.2, True), (0.7, False), (2.0, False)])
def test_a_slow_judge_hears_the_same_and_answers_later(
    judge: WhisperJudge, voice_dir: Path, look_s: float, sleep: bool
) -> None:
    answers: dict[tuple[str, ...], JudgeResult] = {}
    for name, samples, context in scenes(voice_dir):
        heard(PacedJudge(judge, answers, 0.0, False), samples, context)  # the real judge's answers, kept
        fast, slow = PacedJudge(judge, answers, 0.0, False), PacedJudge(judge, answers, look_s, sleep)
        quick, late = heard(fast, samples, context), heard(slow, samples, context)
        verdict = grade_utterance(quick, context).verdict
        assert (late.text, late.early, late.audio_s) == (quick.text, quick.early, quick.audio_s), name
        assert grade_utterance(late, context).verdict is verdict, name
        assert slow.looks == fast.looks, name  # the same audio asked about, the same answers
        assert fast.looks, name
        if late.judge_started is not None:  # decided by a look: at least that look's time later
            assert late.decided_at >= late.judge_started + look_s - 1e-6, name
