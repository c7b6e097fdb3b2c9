"""What listening hears: the settings, the utterance and its timing (:class:`RunClock`), and the
judge's interface.

>>> Utterance("pass", 0.4, 1.0, 1.2, True, 2.0, 0.05).latency_ms
200
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Protocol

from voice_earl.listening.judge.decision import JudgeResult
from voice_earl.listening.recognizer import ListenEvent
from voice_earl.listening.stream.audio import Pcm16
from voice_earl.listening.stream.speech_end import PEAK_RANGE_DB
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import LineGrade, Strictness, Verdict, grade_line

EventHandler = Callable[[ListenEvent], None]


class Judge(Protocol):
    """Decides which of a turn's phrases an utterance holds, if any (the second pass)."""

    name: str

    def understands(self, context: ListenContext) -> bool:
        """Whether the judge can weigh this turn's phrases (an English model: English chants)."""

    def judge(self, samples: Pcm16, context: ListenContext, first_pass: str = "", held: bool = False) -> JudgeResult:
        """Which of the turn's phrases ``samples`` holds; ``held``: a whole held utterance (a phone's
        Hold to speak), which the speaker marked as theirs."""

    def stopped_after(self, result: JudgeResult, samples: Pcm16) -> bool | None:
        """Whether the audio since ``result`` was judged shows that the speaker stopped where its
        phrase ends (None: too soon to tell)."""


@dataclass(frozen=True)
class ListenSettings:
    """End-of-speech tuning. Defaults were chosen on a training split of voices (scripts/bench_listening.py)."""

    end_window_s: float = 0.3  # the endpointer's decision window: about this much trailing silence ends speech
    end_ratio: float = 0.9  # share of the window that must be (non-)speech for a transition
    vad_mode: int = 1  # WebRTC VAD aggressiveness 0-3: 1 keeps soft word endings and still ends in noise
    early_accept: bool = True
    early_stable_s: float = 0.2  # a complete due line must stay unchanged this long to be taken early
    partial_every_s: float = 0.06  # how often to ask the recognizer for its partial hypothesis
    max_speech_s: float = 10.0
    mute_tail_s: float = 0.25  # also dropped after unmuting: room echo and the audio device's buffer
    likely_end_s: float = 0.09  # with a judge: this much quiet after loud speech starts it
    confirm_s: float = 0.15  # ... and its verdict stands when this much more audio has no more speech
    loud_look_every_s: float = 0.4  # with a judge, in a loud room: the speech so far is judged when this much
    # audio has passed since the last look (babble may never leave the quiet that marks an end); 0: never
    heard_again_s: float = 0.3  # with a judge, in a loud room: the line due heard at looks in a row, the last
    # on this much more audio than the first, is taken (the speaker did not go on); 0: never
    loud_range_db: float = PEAK_RANGE_DB  # with a judge: frames this far below the speech's peak count as quiet


@dataclass(frozen=True)
class Utterance:
    """What was heard, and when (seconds of audio from the start of the stream)."""

    text: str  # what was heard: the judge's phrase, or the first pass's text ("" when nothing was)
    speech_start: float | None
    speech_end: float | None  # the end of the last loud frame of the utterance
    decided_at: float  # simulated real-time clock at the decision
    early: bool  # decided before the endpointer's window of trailing silence had passed
    audio_s: float  # audio consumed
    compute_s: float  # time spent processing
    events: tuple[ListenEvent, ...] = field(default=(), repr=False)
    first_pass_s: float = 0.0  # of compute_s, the first pass's share
    judge_s: float = 0.0  # of compute_s, the deciding judge run's
    judge_started: float | None = None  # the clock when the deciding judge run began
    judge_result: JudgeResult | None = field(default=None, repr=False)  # the deciding judge run (nothing
    # decided: the one that set the last speech aside)
    why: str = ""  # what decided (:func:`verdict_why`; "" when nothing was said)

    @property
    def latency_ms(self) -> int | None:
        """From the end of speech to the decision; None when there was no speech."""
        if self.speech_end is None:
            return None
        return max(0, round((self.decided_at - self.speech_end) * 1000))

    @property
    def real_time_factor(self) -> float:
        return self.compute_s / self.audio_s if self.audio_s else 0.0


def verdict_why(text: str, speech_start: float | None, judged: JudgeResult | None, veto: str = "") -> str:
    """Why a listen heard ``text``: the listener's own ``veto`` on what the judge heard, the judge's rule,
    veto or verifier probability, or without a judge the first pass's word; "" when nothing was said.

    >>> verdict_why("pass", 0.4, None), verdict_why("", None, None)
    ('first pass alone', '')
    """
    if veto:
        return veto
    if judged is not None:
        return judged.why
    if speech_start is None:
        return ""
    return "first pass alone" if text else "first pass: nothing in the grammar"


class Phase(enum.Enum):
    BEFORE_SPEECH = "before speech"  # no speech yet, or only speech set aside: a pre-roll is kept
    IN_SPEECH = "in speech"  # the first pass follows the speech; its end is looked for
    PENDING = "pending"  # a judge's verdict waits for the audio that shows the speaker stopped
    DECIDED = "decided"


@dataclass(frozen=True)
class Pending:
    """A judge's verdict, and when (audio and clock) it was asked for and ready."""

    result: JudgeResult
    asked_at: float  # the audio time it was asked for
    spoken_to: float | None  # the end of the last loud frame judged
    started: float  # clock
    ready_at: float  # clock
    partial: str | None = None  # taken on the first pass's stable phrase (else at a quiet)
    heard_to: float | None = None  # the audio time where the audio judged ends


class RunClock:
    """A simulated real-time clock: a piece of audio is processed once it has been spoken and the
    previous piece is done, and processing takes the time it took (a judge's look: the compute
    time its judge reports, when longer). It says when a verdict came, never which."""

    def __init__(self) -> None:
        self.free_at = 0.0  # when the processing so far was over
        self.compute_s = 0.0
        self._began = 0.0  # the clock when the current piece's processing began
        self._wall = 0.0  # time.perf_counter() then
        self._extra = 0.0  # what the current piece's looks reported beyond their wall time

    def now(self) -> float:
        return self._began + (time.perf_counter() - self._wall) + self._extra

    def wait_for(self, arrived: float) -> None:
        """Nothing to process before ``arrived`` (muted audio)."""
        self.free_at = max(self.free_at, arrived)

    @contextmanager
    def processing(self, arrived: float) -> Iterator[None]:
        self._began, self._wall, self._extra = max(self.free_at, arrived), time.perf_counter(), 0.0
        try:
            yield
        finally:
            self.free_at = self.now()
            self.compute_s += self.free_at - self._began

    def look_took(self, wall_s: float, reported_s: float) -> None:
        self._extra += max(0.0, reported_s - wall_s)


def grade_utterance(utterance: Utterance, context: ListenContext, strictness: Strictness | None = None) -> LineGrade:
    """The verdict on an utterance: speech in which no phrase was recognised is unclear, not silent."""
    grade = grade_line(utterance.text, context, strictness or Strictness.NORMAL)
    if grade.verdict is Verdict.SILENT and utterance.speech_start is not None:
        return replace(grade, verdict=Verdict.UNCLEAR)
    return grade
