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
the listening: the listener says so (a ``SpeechSetAside`` event), the recognizer starts afresh and
the listener waits for the next speech.

With a judge (:mod:`voice_earl.listening.whisper_judge`), the judge and not the first pass
decides what was said, and may decide that it was none of the turn's phrases (then the speech is set
aside like a cough). When it looks, and when its verdict stands, is told in docs/listening.md; the
verdict is a function of the audio alone, never of how fast the judge ran. The frames themselves are
handled in :mod:`voice_earl.listening.listen_run`.

Half-duplex: audio captured inside :meth:`Listener.muted` (while the narrator speaks), and for
``mute_tail_s`` after it, is dropped, so the narrator's voice never makes a play.

Latency is measured on a simulated real-time clock: each chunk arrives when its audio has
been spoken, and processing it takes the measured compute time (waiting if the previous chunk
is still being processed). ``latency_ms`` is the time from the end of the speech (its last loud
frame, see :mod:`~voice_earl.listening.speech_end`) to the decision on that clock, so it counts
both the quiet waited for and the compute.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from voice_earl.listening.audio import AudioChunk
from voice_earl.listening.context import ListenContext
from voice_earl.listening.listen_run import ListenRun
from voice_earl.listening.recognizer import Recognizer
from voice_earl.listening.text import normalise
from voice_earl.listening.utterance import EventHandler, Judge, ListenSettings, Utterance, judge_utterance

__all__ = ["EventHandler", "Judge", "ListenSettings", "Listener", "Utterance", "judge_utterance"]


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
        run = ListenRun(self.recognizer, self.judge, self.settings, context, phrases, due, on_event)
        for item in chunks:
            chunk = item if isinstance(item, AudioChunk) else AudioChunk(item)
            if self.is_muted_at(chunk.captured_at if chunk.captured_at is not None else time.monotonic()):
                run.skip(chunk)
                continue
            if run.feed(chunk):
                break
        return run.result()


