"""From a stream of audio chunks to one utterance: start and end of speech, early accept, mute.

The listener cuts the audio into the endpointer's frames (pocketsphinx's WebRTC-VAD
endpointer). Before speech it keeps a short pre-roll; when speech starts, the recognizer gets
the pre-roll and then every frame at once (not the endpointer's delayed copy), so its partial
hypothesis is current. The utterance ends:

* at end of speech: the endpointer has heard its window of trailing silence;
* early: the partial hypothesis already is a line due and has stayed the same for
  ``early_stable_s`` of audio, so the player need not wait for the trailing silence;
* at the end of the input, or after ``max_speech_s`` of speech.

Speech in which the recognizer found no phrase at all (a cough, table chatter) does not end
the listening: the recognizer starts afresh and the listener waits for the next speech.

With a judge (:mod:`voice_earl.listening.whisper_judge`), the judge and not the first pass
decides what was said, and may decide that it was none of the turn's phrases (then the speech
is set aside like a cough). It starts as soon as the end of speech is likely: ``likely_end_s``
of quiet after the last loud frame (:class:`~voice_earl.listening.speech_end.EndWatch`), long
before the endpointer's window has passed. Its verdict is taken as soon as it is ready, unless
the speaker went on talking in the meantime; otherwise the endpointer's end of speech decides.

Half-duplex: audio captured inside :meth:`Listener.muted` (while the narrator speaks), and for
``mute_tail_s`` after it, is dropped, so the narrator's voice never makes a play.

Latency is measured on a simulated real-time clock: each chunk arrives when its audio has
been spoken, and processing it takes the measured compute time (waiting if the previous chunk
is still being processed). ``latency_ms`` is the time from the end of the speech (its last loud
frame, see :mod:`~voice_earl.listening.speech_end`) to the decision on that clock, so it counts
both the quiet waited for and the compute.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from voice_earl.listening.audio import BYTES_PER_SAMPLE, SAMPLE_RATE, AudioChunk, Pcm16
from voice_earl.listening.context import ListenContext
from voice_earl.listening.recognizer import Final, ListenEvent, Partial, Recognizer, SpeechStarted, SpeechStopped
from voice_earl.listening.speech_end import EndWatch
from voice_earl.listening.text import normalise
from voice_earl.listening.verdicts import Judgement, Strictness, Verdict, judge
from voice_earl.listening.whisper_judge import JudgeResult

logger = logging.getLogger(__name__)

EventHandler = Callable[[ListenEvent], None]


class Judge(Protocol):
    """Decides which of a turn's phrases an utterance holds, if any (the second pass)."""

    name: str

    def understands(self, context: ListenContext) -> bool:
        """Whether the judge can weigh this turn's phrases (an English model: English chants)."""

    def judge(self, samples: Pcm16, context: ListenContext, first_pass: str = "") -> JudgeResult: ...


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
    judge_result: JudgeResult | None = field(default=None, repr=False)  # the deciding judge run

    @property
    def latency_ms(self) -> int | None:
        """From the end of speech to the decision; None when there was no speech."""
        if self.speech_end is None:
            return None
        return max(0, round((self.decided_at - self.speech_end) * 1000))

    @property
    def real_time_factor(self) -> float:
        return self.compute_s / self.audio_s if self.audio_s else 0.0


class Listener:
    """Feeds a recognizer from an audio stream and decides when an utterance is over."""

    def __init__(
        self, recognizer: Recognizer, settings: ListenSettings | None = None, judge: Judge | None = None
    ) -> None:
        self.recognizer = recognizer
        self.judge = judge
        self.settings = settings or ListenSettings()
        self._lock = threading.Lock()
        self._muted_since: float | None = None
        self._mute_spans: deque[tuple[float, float]] = deque(maxlen=32)

    @contextmanager
    def muted(self) -> Iterator[None]:
        """Drop audio captured inside this block (and a short tail after it)."""
        with self._lock:
            self._muted_since = time.monotonic()
        try:
            yield
        finally:
            with self._lock:
                start = self._muted_since if self._muted_since is not None else time.monotonic()
                self._mute_spans.append((start, time.monotonic() + self.settings.mute_tail_s))
                self._muted_since = None

    def is_muted_at(self, moment: float) -> bool:
        with self._lock:
            if self._muted_since is not None and moment >= self._muted_since:
                return True
            return any(start <= moment <= end for start, end in self._mute_spans)

    def listen(
        self,
        chunks: Iterable[bytes | AudioChunk],
        context: ListenContext,
        *,
        grammar: ListenContext | None = None,
        on_event: EventHandler | None = None,
    ) -> Utterance:
        """Listen for one utterance. ``grammar`` (default: ``context``) gives the recognizer's phrases."""
        phrases = (grammar or context).phrases()
        due = frozenset(normalise(line) for line in context.due_lines())
        run = _Run(self, context, phrases, due, on_event)
        for item in chunks:
            chunk = item if isinstance(item, AudioChunk) else AudioChunk(item)
            if self.is_muted_at(chunk.captured_at if chunk.captured_at is not None else time.monotonic()):
                run.skip(chunk)
                continue
            if run.feed(chunk):
                break
        return run.result()


@dataclass(frozen=True)
class _Pending:
    """A judge's verdict taken at a likely end of speech, waiting for the audio that came meanwhile."""

    result: JudgeResult
    started: float  # clock
    ready_at: float  # clock


class _Run:
    """The state of one :meth:`Listener.listen` call."""

    def __init__(
        self,
        listener: Listener,
        context: ListenContext,
        phrases: tuple[str, ...],
        due: frozenset[str],
        on_event: EventHandler | None,
    ) -> None:
        from pocketsphinx import Endpointer

        self.settings = s = listener.settings
        self.recognizer = listener.recognizer
        judge = listener.judge
        self.judge = judge if judge is not None and judge.understands(context) else None
        self.context = context
        self.phrases = phrases
        self.due = due
        self.on_event = on_event
        self.endpointer = Endpointer(
            window=s.end_window_s, ratio=s.end_ratio, vad_mode=s.vad_mode, sample_rate=SAMPLE_RATE
        )
        self.watch = EndWatch(s.likely_end_s)
        self.frame_bytes = int(self.endpointer.frame_bytes)
        self.frame_s = self.frame_bytes / (BYTES_PER_SAMPLE * SAMPLE_RATE)
        self.preroll: deque[bytes] = deque(maxlen=int((s.end_window_s + 0.2) / self.frame_s) + 1)
        self.audio: list[bytes] = []  # the utterance's audio, pre-roll included, for the judge
        self.pending = b""
        self.audio_t = 0.0  # seconds of audio consumed
        self.clock = 0.0  # simulated real-time clock
        self.feed_clock = 0.0  # the clock when the current chunk's processing began
        self.feed_perf = 0.0
        self.compute_s = 0.0
        self.first_pass_s = 0.0
        self.events: list[ListenEvent] = []
        self.speech_start: float | None = None
        self.ignored_start: float | None = None  # the first speech that matched no phrase
        self.partial = ""
        self.partial_checked_at = 0.0
        self.stable_since: float | None = None
        self.verdict_pending: _Pending | None = None
        self.last_judged: _Pending | None = None  # the latest judge run on this speech
        self.deciding: _Pending | None = None
        self.speech_end: float | None = None
        self.text = ""
        self.early = False
        self.done = False
        started = time.perf_counter()
        self.recognizer.begin(phrases)
        self.compute_s += time.perf_counter() - started

    def emit(self, event: ListenEvent) -> None:
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def now(self) -> float:
        """The simulated clock, in the middle of processing a chunk."""
        return self.feed_clock + (time.perf_counter() - self.feed_perf)

    def skip(self, chunk: AudioChunk) -> None:
        """Muted audio: time passes, nothing is heard."""
        self.audio_t += chunk.duration
        self.clock = max(self.clock, self.audio_t)

    def feed(self, chunk: AudioChunk) -> bool:
        """Process one chunk; True once the utterance is decided."""
        self.feed_perf = started = time.perf_counter()
        self.feed_clock = max(self.clock, self.audio_t + chunk.duration)  # it arrives once spoken
        self.pending += chunk.pcm
        while len(self.pending) >= self.frame_bytes and not self.done:
            frame, self.pending = self.pending[: self.frame_bytes], self.pending[self.frame_bytes :]
            self._frame(frame)
        spent = time.perf_counter() - started
        self.compute_s += spent
        self.clock = self.feed_clock + spent
        waiting = self.verdict_pending
        # Take a ready verdict once every chunk that arrived meanwhile has been heard.
        if not self.done and waiting is not None and self.audio_t + chunk.duration > self.clock:
            self._decided(waiting.result.phrase, early=True, by=waiting)
        return self.done

    def _first_pass(self, frame: bytes) -> None:
        started = time.perf_counter()
        self.recognizer.accept(frame)
        self.first_pass_s += time.perf_counter() - started

    def _frame(self, frame: bytes) -> None:
        self.audio_t += self.frame_s
        self.watch.feed(frame)
        speech = self.endpointer.process(frame)
        if self.speech_start is None:
            self.preroll.append(frame)
            if speech is None or not self.endpointer.in_speech:
                return
            self._start(float(self.endpointer.speech_start))
            return
        self.audio.append(frame)
        self._first_pass(frame)
        if speech is not None and not self.endpointer.in_speech:
            self.emit(SpeechStopped(self.audio_t))
            self._end_of_speech()
            return
        if self.judge is not None:
            self._judge_if_likely_end()
        elif self.audio_t - self.partial_checked_at >= self.settings.partial_every_s:
            self._check_partial()
        if not self.done and self.audio_t - self.speech_start > self.settings.max_speech_s:
            self._decide(early=False)

    def _start(self, at: float) -> None:
        self.speech_start = at
        self.emit(SpeechStarted(at))
        self.watch.speech_began(len(self.preroll) * self.frame_s)
        for frame in self.preroll:
            self.audio.append(frame)
            self._first_pass(frame)
        self.preroll.clear()

    def _check_partial(self) -> None:
        self.partial_checked_at = self.audio_t
        started = time.perf_counter()
        text = self.recognizer.partial()
        self.first_pass_s += time.perf_counter() - started
        if text != self.partial:
            self.partial = text
            self.stable_since = self.audio_t
            self.emit(Partial(text, self.audio_t))
        if not self.settings.early_accept or self.stable_since is None:
            return
        if normalise(self.partial) in self.due and self.audio_t - self.stable_since >= self.settings.early_stable_s:
            self._decide(early=True)

    # -- the judge

    def _judge_if_likely_end(self) -> None:
        """Judge at a likely end of speech; drop a waiting verdict when the speaker goes on."""
        if self.verdict_pending is not None and self.watch.loud_since_end:
            logger.debug("speech went on at %.2fs: the early verdict is dropped", self.audio_t)
            self.verdict_pending = None
        if not self.settings.early_accept or not self.watch.likely_end() or not self.watch.loud_since_end:
            return
        started = time.perf_counter()
        heard = self.recognizer.partial()
        self.first_pass_s += time.perf_counter() - started
        run = self._run_judge(heard)
        if run.result.heard:
            self.verdict_pending = run

    def _run_judge(self, first_pass: str) -> _Pending:
        assert self.judge is not None
        self.watch.loud_since_end = False
        started = self.now()
        samples = np.frombuffer(b"".join(self.audio), dtype=np.int16)
        result = self.judge.judge(samples, self.context, first_pass)
        self.last_judged = _Pending(result, started, self.now())
        return self.last_judged

    def _latest_judgement(self, first_pass: str) -> _Pending:
        """The judge's verdict on the whole speech: the last run's, unless the speaker went on since
        (or the first pass has since changed its mind)."""
        if self.verdict_pending is not None:
            return self.verdict_pending
        last = self.last_judged
        if last is not None and not self.watch.loud_since_end and last.result.first_pass == normalise(first_pass):
            return last
        return self._run_judge(first_pass)

    # -- deciding

    def _end_of_speech(self) -> None:
        """Decide, unless nothing in the grammar was heard (a cough, chatter): then keep listening."""
        if self.judge is not None:
            run = self._latest_judgement(self._finish_recognizer())
            if run.result.heard:
                self._decided(run.result.phrase, early=False, by=run)
                return
            text = ""
        else:
            text = self._finish_recognizer()
        if normalise(text):
            self._decided(text, early=False)
            return
        logger.debug("speech at %.2fs matched no phrase; listening on", self.speech_start or 0.0)
        self.ignored_start = self.ignored_start if self.ignored_start is not None else self.speech_start
        self.speech_end = self.speech_end if self.speech_end is not None else self.watch.last_loud
        self.speech_start = None
        self.partial = ""
        self.stable_since = None
        self.verdict_pending = self.last_judged = None
        self.preroll.clear()
        self.audio.clear()
        self.watch.speech_ended()
        self.recognizer.begin(self.phrases)

    def _finish_recognizer(self) -> str:
        started = time.perf_counter()
        text = self.recognizer.finish()
        self.first_pass_s += time.perf_counter() - started
        return text

    def _end_recognizer(self) -> None:
        """The judge decides: the first pass's utterance is simply closed."""
        started = time.perf_counter()
        self.recognizer.reset()
        self.first_pass_s += time.perf_counter() - started

    def _decide(self, early: bool) -> None:
        if self.judge is None:
            self._decided(self._finish_recognizer(), early)
            return
        run = self._latest_judgement(self._finish_recognizer())
        self._decided(run.result.phrase, early, by=run)

    def _decided(self, text: str, early: bool, by: _Pending | None = None) -> None:
        if self.judge is not None:
            self._end_recognizer()
        self.text = text
        self.early = early
        self.deciding = by
        self.done = True
        self.speech_end = self.watch.last_loud
        self.emit(Final(self.text, self.audio_t, early=early))

    def result(self) -> Utterance:
        if not self.done and self.speech_start is not None:
            self.feed_perf = started = time.perf_counter()
            self.feed_clock = max(self.clock, self.audio_t)
            if self.pending:
                self.recognizer.accept(self.pending)
                self.audio.append(self.pending)
                self.watch.feed(self.pending)
            self.emit(SpeechStopped(self.audio_t))
            self._decide(early=False)
            spent = time.perf_counter() - started
            self.compute_s += spent
            self.clock = self.feed_clock + spent
        elif not self.done:
            self.recognizer.reset()
        start = self.speech_start if self.speech_start is not None else self.ignored_start
        deciding = self.deciding
        return Utterance(
            text=self.text,
            speech_start=start,
            speech_end=self.speech_end if start is not None else None,
            decided_at=self.clock,
            early=self.early,
            audio_s=self.audio_t,
            compute_s=self.compute_s,
            events=tuple(self.events),
            first_pass_s=self.first_pass_s,
            judge_s=deciding.ready_at - deciding.started if deciding is not None else 0.0,
            judge_started=deciding.started if deciding is not None else None,
            judge_result=deciding.result if deciding is not None else None,
        )


def judge_utterance(utterance: Utterance, context: ListenContext, strictness: Strictness | None = None) -> Judgement:
    """The verdict on an utterance: speech in which no phrase was recognised is unclear, not silent."""
    judgement = judge(utterance.text, context, strictness or Strictness.NORMAL)
    if judgement.verdict is Verdict.SILENT and utterance.speech_start is not None:
        return replace(judgement, verdict=Verdict.UNCLEAR)
    return judgement
