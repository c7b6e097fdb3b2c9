"""From a stream of audio chunks to one utterance: start and end of speech, early accept, mute.

The listener cuts the audio into the endpointer's frames (pocketsphinx's WebRTC-VAD
endpointer). Before speech it keeps a short pre-roll; when speech starts, the recognizer gets
the pre-roll and then every frame at once (not the endpointer's delayed copy), so its partial
hypothesis is current. The utterance ends:

* at end of speech: the endpointer has heard its window of trailing silence;
* early: the partial hypothesis already is a line due and has stayed the same for
  ``early_stable_s`` of audio, so the player need not wait for the trailing silence;
* at the end of the input, or after ``max_speech_s`` of speech.

Speech in which nothing in the grammar was heard (a cough, table chatter) does not end the
listening: the listener says so (a ``SpeechSetAside`` event), the recognizer starts afresh and
the listener waits for the next speech.

With a judge (:mod:`voice_earl.listening.judge.whisper`), the judge and not the first pass
decides what was said, and may decide that it was none of the turn's phrases (then the speech
is set aside). The listener asks it to look:

* at a likely end: ``likely_end_s`` of quiet after the last loud 10 ms frame of speech long
  enough to be a phrase (:class:`~voice_earl.listening.stream.speech_end.EndWatch`), on the speech up
  to there. Its verdict stands once ``confirm_s`` more audio has no loud frame; when the voice
  is loud again first the speaker went on, and in a quiet room a pass or a command heard there
  is not taken from the rest of that speech ("pass ... me the crisps would you");
* when talk around the table keeps the room loud: once the first pass has held a whole line
  for ``early_stable_s`` (its verdict stands while the first pass hears nothing more), or a pass
  or a command for ``confirm_s`` longer (judged with what followed it, and decided then);
* at the end of speech, when the speaker went on since the last look.

A phrase the judge hears where the speaker's voice fell away in a loud room is taken at once; a
line heard at a lull before the room got loud again is taken once the audio since shows that
the voice fell away where it ends (:meth:`~voice_earl.listening.stream.utterance.Judge.stopped_after`).

Every look is asked for at a moment of the audio, and every rule reads the audio heard, the
first pass and the judge's answers: the verdict is a function of the audio alone. How long a
look takes only delays the verdict. Latency is measured on a simulated real-time clock
(:class:`~voice_earl.listening.stream.utterance.RunClock`): each chunk is processed once its audio has
been spoken and the previous one is done, and processing takes its measured compute time (a
look: the time its judge reports, when longer). ``latency_ms`` is the time from the end of the
speech (its last loud frame) to the decision on that clock. The frames themselves are handled
in :mod:`voice_earl.listening.stream.run`.

A knock on the table (:mod:`voice_earl.listening.stream.knock`), when knocks are listened for, is heard
from the same audio: at positions 2-4 it ends the listen with a pass (see
:mod:`voice_earl.listening.stream.knock_pass`); at a lead it does nothing.

Half-duplex: audio captured inside :meth:`Listener.muted` (while the narrator speaks), and for
``mute_tail_s`` after it, is dropped, so the narrator's voice never makes a play.
"""

from __future__ import annotations

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
from voice_earl.listening.stream.utterance import EventHandler, Judge, ListenSettings, Utterance
from voice_earl.words.context import ListenContext
from voice_earl.words.text import normalise


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
                return knocks.passed(run, chunk)
            if run.feed(chunk):
                break
        return run.result()


