"""From a stream of audio chunks to one utterance: start and end of speech, early accept, mute.

The listener feeds the endpointer's frames to the first pass (with a short pre-roll before speech)
and ends the utterance at the end of speech, early when a line due has stayed the same for
``early_stable_s``, at the end of the input, or after ``max_speech_s``. Speech in which nothing in the
grammar was heard is set aside (a ``SpeechSetAside`` event), and the listener waits for the next.
With a judge (:mod:`voice_earl.listening.judge.whisper`) the judge decides what was said, looking at
a likely end, at moments the room stays loud, and at the end of speech; the frames themselves are
handled in :mod:`voice_earl.listening.stream.run`. A knock (:mod:`voice_earl.listening.stream.knock`), when
listened for, passes at positions 2-4. Audio inside :meth:`Listener.muted` (the narrator speaking),
and for ``mute_tail_s`` after it, is dropped.

Every rule reads the audio, the first pass and the judge's answers, never the clock: the verdict is
a function of the audio alone, and ``latency_ms`` is measured on a simulated real-time clock
(:class:`~voice_earl.listening.stream.utterance.RunClock`). The rules, their settings and the tests that
cover them are in docs/listening.md ("The judge's rules").
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from voice_earl.listening.recognizer import Recognizer
from voice_earl.listening.stream.audio import AudioChunk
from voice_earl.listening.stream.knock import KnockModel
from voice_earl.listening.stream.knock_pass import KnockWatch
from voice_earl.listening.stream.run import ListenRun
from voice_earl.listening.stream.utterance import EventHandler, Judge, ListenSettings, Utterance, grade_utterance
from voice_earl.words.context import ListenContext
from voice_earl.words.text import normalise

logger = logging.getLogger(__name__)

__all__ = ["EventHandler", "Judge", "ListenSettings", "Listener", "Utterance", "grade_utterance"]


class Listener:
    """Feeds a recognizer from an audio stream and decides when an utterance is over."""

    def __init__(
        self,
        recognizer: Recognizer,
        settings: ListenSettings | None = None,
        judge: Judge | None = None,
        knocks: KnockModel | None = None,
    ) -> None:
        self.recognizer = recognizer
        self.judge = judge
        self.knocks = knocks  # the knock detector's model: None, knocks are not listened for
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
        run = ListenRun(self.recognizer, self.judge, self.settings, context, phrases, due, on_event)
        knocks = KnockWatch.for_turn(self.knocks, context)  # None at a lead, or when knocks are not listened for
        for item in chunks:
            chunk = item if isinstance(item, AudioChunk) else AudioChunk(item)
            if self.is_muted_at(chunk.captured_at if chunk.captured_at is not None else time.monotonic()):
                run.skip(chunk)
                if knocks is not None:
                    knocks.skip(chunk.duration)
                continue
            if knocks is not None and knocks.feed(chunk.pcm):  # first: a knock need not wait for the judge
                return logged(knocks.passed(run, chunk))
            if run.feed(chunk):
                break
        return logged(run.result())


def logged(utterance: Utterance) -> Utterance:
    """``utterance``, with a line in the log file that says what was heard and why (a hold's too)."""
    if utterance.speech_start is not None:
        logger.info("heard %r at %.2fs: %s", utterance.text, utterance.decided_at, utterance.why)
    return utterance
