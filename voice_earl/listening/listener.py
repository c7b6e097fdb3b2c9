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

Half-duplex: audio captured inside :meth:`Listener.muted` (while the narrator speaks), and for
``mute_tail_s`` after it, is dropped, so the narrator's voice never makes a play.

Latency is measured on a simulated real-time clock: each chunk arrives when its audio has
been spoken, and processing it takes the measured compute time (waiting if the previous chunk
is still being processed). ``latency_ms`` is the time from the end of the speech to the
decision on that clock, so it counts both the trailing silence waited for and the compute.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from voice_earl.listening.audio import BYTES_PER_SAMPLE, SAMPLE_RATE, AudioChunk
from voice_earl.listening.context import ListenContext
from voice_earl.listening.recognizer import Final, ListenEvent, Partial, Recognizer, SpeechStarted, SpeechStopped
from voice_earl.listening.text import normalise
from voice_earl.listening.verdicts import Judgement, Strictness, Verdict, judge

logger = logging.getLogger(__name__)

EventHandler = Callable[[ListenEvent], None]


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


@dataclass(frozen=True)
class Utterance:
    """What was heard, and when (seconds of audio from the start of the stream)."""

    text: str  # the recognizer's final text ("" when no speech was found)
    speech_start: float | None
    speech_end: float | None  # the end of the last voiced frame of the utterance
    decided_at: float  # simulated real-time clock at the decision
    early: bool  # decided by early accept
    audio_s: float  # audio consumed
    compute_s: float  # time spent processing
    events: tuple[ListenEvent, ...] = field(default=(), repr=False)

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

    def __init__(self, recognizer: Recognizer, settings: ListenSettings | None = None) -> None:
        self.recognizer = recognizer
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
        run = _Run(self, phrases, due, on_event)
        for item in chunks:
            chunk = item if isinstance(item, AudioChunk) else AudioChunk(item)
            if self.is_muted_at(chunk.captured_at if chunk.captured_at is not None else time.monotonic()):
                run.skip(chunk)
                continue
            if run.feed(chunk):
                break
        return run.result()


class _Run:
    """The state of one :meth:`Listener.listen` call."""

    def __init__(
        self, listener: Listener, phrases: tuple[str, ...], due: frozenset[str], on_event: EventHandler | None
    ) -> None:
        from pocketsphinx import Endpointer, Vad

        self.settings = s = listener.settings
        self.recognizer = listener.recognizer
        self.phrases = phrases
        self.due = due
        self.on_event = on_event
        self.endpointer = Endpointer(
            window=s.end_window_s, ratio=s.end_ratio, vad_mode=s.vad_mode, sample_rate=SAMPLE_RATE
        )
        self.vad = Vad(mode=s.vad_mode, sample_rate=SAMPLE_RATE)
        self.frame_bytes = int(self.endpointer.frame_bytes)
        self.frame_s = self.frame_bytes / (BYTES_PER_SAMPLE * SAMPLE_RATE)
        self.preroll: deque[bytes] = deque(maxlen=int((s.end_window_s + 0.2) / self.frame_s) + 1)
        self.pending = b""
        self.audio_t = 0.0  # seconds of audio consumed
        self.clock = 0.0  # simulated real-time clock
        self.compute_s = 0.0
        self.events: list[ListenEvent] = []
        self.speech_start: float | None = None
        self.ignored_start: float | None = None  # the first speech that matched no phrase
        self.last_voiced: float | None = None
        self.partial = ""
        self.partial_checked_at = 0.0
        self.stable_since: float | None = None
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

    def skip(self, chunk: AudioChunk) -> None:
        """Muted audio: time passes, nothing is heard."""
        self.audio_t += chunk.duration
        self.clock = max(self.clock, self.audio_t)

    def feed(self, chunk: AudioChunk) -> bool:
        """Process one chunk; True once the utterance is decided."""
        started = time.perf_counter()
        self.pending += chunk.pcm
        while len(self.pending) >= self.frame_bytes and not self.done:
            frame, self.pending = self.pending[: self.frame_bytes], self.pending[self.frame_bytes :]
            self._frame(frame)
        spent = time.perf_counter() - started
        self.compute_s += spent
        self.clock = max(self.clock, self.audio_t) + spent
        return self.done

    def _frame(self, frame: bytes) -> None:
        self.audio_t += self.frame_s
        speech = self.endpointer.process(frame)
        if self.speech_start is None:
            self.preroll.append(frame)
            if speech is None or not self.endpointer.in_speech:
                return
            self._start(float(self.endpointer.speech_start))
            return
        self.recognizer.accept(frame)
        if self.vad.is_speech(frame):
            self.last_voiced = self.audio_t
        if speech is not None and not self.endpointer.in_speech:
            self.emit(SpeechStopped(self.audio_t))
            self._end_of_speech()
            return
        if self.audio_t - self.partial_checked_at >= self.settings.partial_every_s:
            self._check_partial()
        if self.speech_start is not None and self.audio_t - self.speech_start > self.settings.max_speech_s:
            self._decide(early=False)

    def _start(self, at: float) -> None:
        self.speech_start = at
        self.emit(SpeechStarted(at))
        for frame in self.preroll:
            self.recognizer.accept(frame)
            if self.vad.is_speech(frame):
                self.last_voiced = self.audio_t
        self.preroll.clear()

    def _check_partial(self) -> None:
        self.partial_checked_at = self.audio_t
        text = self.recognizer.partial()
        if text != self.partial:
            self.partial = text
            self.stable_since = self.audio_t
            self.emit(Partial(text, self.audio_t))
        if not self.settings.early_accept or self.stable_since is None:
            return
        if normalise(self.partial) in self.due and self.audio_t - self.stable_since >= self.settings.early_stable_s:
            self._decide(early=True)

    def _end_of_speech(self) -> None:
        """Decide, unless nothing in the grammar was heard (a cough, chatter): then keep listening."""
        text = self.recognizer.finish()
        if normalise(text):
            self._decided(text, early=False)
            return
        logger.debug("speech at %.2fs matched no phrase; listening on", self.speech_start or 0.0)
        self.ignored_start = self.ignored_start if self.ignored_start is not None else self.speech_start
        self.speech_start = None
        self.partial = ""
        self.stable_since = None
        self.preroll.clear()
        self.recognizer.begin(self.phrases)

    def _decide(self, early: bool) -> None:
        self._decided(self.recognizer.finish(), early)

    def _decided(self, text: str, early: bool) -> None:
        self.text = text
        self.early = early
        self.done = True
        self.emit(Final(self.text, self.audio_t, early=early))

    def result(self) -> Utterance:
        if not self.done and self.speech_start is not None:
            started = time.perf_counter()
            if self.pending:
                self.recognizer.accept(self.pending)
            self.emit(SpeechStopped(self.audio_t))
            self._decide(early=False)
            spent = time.perf_counter() - started
            self.compute_s += spent
            self.clock = max(self.clock, self.audio_t) + spent
        elif not self.done:
            self.recognizer.reset()
        start = self.speech_start if self.speech_start is not None else self.ignored_start
        return Utterance(
            text=self.text,
            speech_start=start,
            speech_end=self.last_voiced if start is not None else None,
            decided_at=self.clock,
            early=self.early,
            audio_s=self.audio_t,
            compute_s=self.compute_s,
            events=tuple(self.events),
        )


def judge_utterance(utterance: Utterance, context: ListenContext, strictness: Strictness | None = None) -> Judgement:
    """The verdict on an utterance: speech in which no phrase was recognised is unclear, not silent."""
    judgement = judge(utterance.text, context, strictness or Strictness.NORMAL)
    if judgement.verdict is Verdict.SILENT and utterance.speech_start is not None:
        return replace(judgement, verdict=Verdict.UNCLEAR)
    return judgement
