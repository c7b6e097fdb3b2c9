"""One call of :meth:`voice_earl.listening.stream.listener.Listener.listen`, frame by frame.

See :mod:`voice_earl.listening.stream.listener` for what it does; this is how. A run is in one
:class:`Phase` at a time and moves between them by one method each (``_speech_began``,
``_hold``, ``_speaker_went_on``, ``_set_aside``, ``_decided``). Every rule that moves it reads
the audio: how much has been heard (``audio_t``), its energy (:class:`EndWatch`), the first pass
and the judge's answers (when to ask the judge, and what its verdicts wait for:
:mod:`voice_earl.listening.stream.judge_looks`). The :class:`RunClock` only records when things happened.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

import numpy as np

from voice_earl.listening.judge.decision import JudgeResult
from voice_earl.listening.recognizer import (
    Final,
    ListenEvent,
    Partial,
    Recognizer,
    SpeechSetAside,
    SpeechStarted,
    SpeechStopped,
)
from voice_earl.listening.stream.audio import BYTES_PER_SAMPLE, SAMPLE_RATE, AudioChunk, Pcm16
from voice_earl.listening.stream.judge_looks import JudgeLooks, T, logger
from voice_earl.listening.stream.speech_end import EndWatch
from voice_earl.listening.stream.utterance import (
    EventHandler,
    Judge,
    ListenSettings,
    Pending,
    Phase,
    RunClock,
    Utterance,
    verdict_why,
)
from voice_earl.words.context import ListenContext
from voice_earl.words.text import normalise

MIN_LINE_WORDS = 4


class ListenRun(JudgeLooks):
    """The state of one :meth:`Listener.listen` call."""

    def __init__(
        self,
        recognizer: Recognizer,
        judge: Judge | None,
        settings: ListenSettings,
        context: ListenContext,
        phrases: tuple[str, ...],
        due: frozenset[str],
        on_event: EventHandler | None,
    ) -> None:
        from pocketsphinx import Endpointer

        self.settings = s = settings
        self.recognizer = recognizer
        self.judge = judge if judge is not None and judge.understands(context) else None
        self.context = context
        self.phrases = phrases
        self.due = due
        self.on_event = on_event
        # What the first pass may settle on: whole lines, and passes and commands (see _follow_partial).
        self.whole_lines = frozenset(p for p in phrases if len(p.split()) >= MIN_LINE_WORDS)
        self.short_phrases = frozenset(phrases) - self.whole_lines
        self.endpointer = Endpointer(
            window=s.end_window_s, ratio=s.end_ratio, vad_mode=s.vad_mode, sample_rate=SAMPLE_RATE
        )
        self.watch = EndWatch(s.likely_end_s, peak_range_db=s.loud_range_db)
        self.frame_bytes = int(self.endpointer.frame_bytes)
        self.frame_s = self.frame_bytes / (BYTES_PER_SAMPLE * SAMPLE_RATE)
        self.preroll: deque[bytes] = deque(maxlen=int((s.end_window_s + 0.2) / self.frame_s) + 1)
        self.audio: list[bytes] = []  # the speech's audio, pre-roll included, for the judge
        self.audio_from = 0.0  # the audio time where it starts
        self.leftover = b""  # less than a frame, kept for the next chunk
        self.audio_t = 0.0  # seconds of audio heard
        self.clock = RunClock()
        self.first_pass_s = 0.0
        self.events: list[ListenEvent] = []
        self.phase = Phase.BEFORE_SPEECH
        self.speech_start: float | None = None
        self.ignored_start: float | None = None  # the first speech set aside
        self.speech_end: float | None = None
        self.partial = ""
        self.partial_checked_at = 0.0
        self.stable_since: float | None = None
        self.judged_partial = ""
        self.pending: Pending | None = None  # in PENDING: the verdict waiting
        self.last_judged: Pending | None = None  # the latest judge run on this speech
        self.dropped: Pending | None = None  # a verdict dropped when the room got loud again
        self.went_on_after: set[str] = set()  # short sayings the speaker went on after, in a quiet room
        self.deciding: Pending | None = None
        self.looked_at: float | None = None  # the audio time of the judge's last look at this speech
        self.row_first: Pending | None = None  # the first and the latest of the looks in a row that heard
        self.row_last: Pending | None = None  # the same phrase (_take_if_heard_again)
        self.set_aside: JudgeResult | None = None  # the judge's word on the last speech set aside (its why)
        self.veto = ""  # why the listener did not take a phrase the judge heard
        self.text = ""
        self.early = False
        started = time.perf_counter()
        self.recognizer.begin(phrases)  # before the audio: counted as compute, not on the clock
        self.clock.compute_s += time.perf_counter() - started

    @property
    def done(self) -> bool:
        return self.phase is Phase.DECIDED

    def emit(self, event: ListenEvent) -> None:
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    # -- audio in

    def skip(self, chunk: AudioChunk) -> None:
        """Muted audio: time passes, nothing is heard."""
        self.audio_t += chunk.duration
        self.watch.skip(chunk.duration)
        self.clock.wait_for(self.audio_t)

    def feed(self, chunk: AudioChunk) -> bool:
        """Process one chunk; True once the utterance is decided."""
        with self.clock.processing(self.audio_t + chunk.duration):  # it arrives once spoken
            self.leftover += chunk.pcm
            while len(self.leftover) >= self.frame_bytes and not self.done:
                frame, self.leftover = self.leftover[: self.frame_bytes], self.leftover[self.frame_bytes :]
                self._frame(frame)
        return self.done

    def _frame(self, frame: bytes) -> None:
        self.audio_t += self.frame_s
        self.watch.feed(frame)
        change = self.endpointer.process(frame)
        if self.phase is Phase.BEFORE_SPEECH:
            self.preroll.append(frame)
            if change is not None and self.endpointer.in_speech:
                self._speech_began(float(self.endpointer.speech_start))
            return
        self._accept(frame)
        if change is not None and not self.endpointer.in_speech:
            self.emit(SpeechStopped(self.audio_t))
            self._speech_ended()
            return
        if self.judge is not None:
            self._look()
        elif self._partial_due():
            self._check_partial()
        speech_start = self.speech_start
        if speech_start is not None and not self.done and self.audio_t - speech_start > self.settings.max_speech_s:
            self._decide(early=False)

    def _first_pass(self, call: Callable[[], T]) -> T:
        """A call of the first pass's recognizer, its time added to ``first_pass_s``."""
        started = time.perf_counter()
        answer = call()
        self.first_pass_s += time.perf_counter() - started
        return answer

    def _accept(self, frame: bytes) -> None:
        self.audio.append(frame)
        self._first_pass(lambda: self.recognizer.accept(frame))

    def _samples(self) -> Pcm16:
        return np.frombuffer(b"".join(self.audio), dtype=np.int16)

    # -- the first pass alone

    def _partial_due(self) -> bool:
        return self.audio_t - self.partial_checked_at >= self.settings.partial_every_s

    def _take_partial(self) -> bool:
        """Ask the first pass what it has heard so far; True when that changed."""
        self.partial_checked_at = self.audio_t
        text = self._first_pass(self.recognizer.partial)
        if text == self.partial:
            return False
        self.partial = text
        self.stable_since = self.audio_t
        self.emit(Partial(text, self.audio_t))
        return True

    def _partial_stable(self, more_s: float = 0.0) -> bool:
        """The first pass's partial has stayed unchanged for ``early_stable_s`` (and ``more_s``)."""
        held = self.settings.early_stable_s + more_s
        return self.stable_since is not None and self.audio_t - self.stable_since >= held

    def _check_partial(self) -> None:
        self._take_partial()
        if self.settings.early_accept and self._partial_stable() and normalise(self.partial) in self.due:
            self._decide(early=True)

    # -- the end of speech

    def _speech_ended(self) -> None:
        """Decide, unless nothing in the grammar was heard (a cough, chatter): then listen on."""
        text = self._first_pass(self.recognizer.finish)
        if self.judge is not None:
            run = self._latest_judgement(text)
            if self._heard(run):
                self._decided(run.result.phrase, early=False, by=run)
                return
            self.set_aside = run.result
            text = ""
        if normalise(text):
            self._decided(text, early=False)
            return
        self._set_aside()

    def _decide(self, early: bool, cut_off: bool = False) -> None:
        """Decide now, on what was heard so far (early, or at the end of the input or of ``max_speech_s``).
        ``cut_off``: the input ended with the voice still loud, and nothing shows that a pass or a command
        was said alone ("There's a", cut there, sounds like "I pass"): none is taken."""
        text = self._first_pass(self.recognizer.finish)
        run = self._latest_judgement(text) if self.judge is not None else None
        if run is not None:
            text = run.result.phrase if self._heard(run) else ""
        if cut_off and normalise(text) in {
            normalise(saying) for saying in (*self.context.pass_words, *self.context.commands)
        }:
            self.veto, text = f"listener: {text!r} cut off with the voice still loud", ""
        self._decided(text, early, by=run)

    # -- the transitions

    def _speech_began(self, at: float) -> None:
        """BEFORE_SPEECH -> IN_SPEECH: the first pass gets the pre-roll, then every frame."""
        self.phase = Phase.IN_SPEECH
        self.speech_start = at
        self.emit(SpeechStarted(at))
        self.watch.speech_began(len(self.preroll) * self.frame_s)
        self.audio_from = self.audio_t - len(self.preroll) * self.frame_s
        for frame in self.preroll:
            self._accept(frame)
        self.preroll.clear()

    def _hold(self, run: Pending) -> None:
        """IN_SPEECH -> PENDING."""
        self.phase = Phase.PENDING
        self.pending = run

    def _speaker_went_on(self, keep: bool) -> None:
        """PENDING -> IN_SPEECH; ``keep``: the verdict, taken at a quiet, may yet be taken if the
        voice is seen to have fallen away after it (:meth:`_take_if_stopped`)."""
        pending = self.pending
        if keep and pending is not None:
            self.dropped = pending
            if pending.result.phrase in self.short_phrases and not self.watch.room_loud():
                self.went_on_after.add(pending.result.best.candidate.text)
        self.phase = Phase.IN_SPEECH
        self.pending = None

    def _set_aside(self) -> None:
        """IN_SPEECH or PENDING -> BEFORE_SPEECH: the speech matched no phrase; listen on afresh."""
        logger.debug("speech at %.2fs matched no phrase; listening on", self.speech_start or 0.0)
        self.emit(SpeechSetAside(self.audio_t))
        self.ignored_start = self.ignored_start if self.ignored_start is not None else self.speech_start
        self.speech_end = self.speech_end if self.speech_end is not None else self.watch.last_loud
        self.phase = Phase.BEFORE_SPEECH
        self.speech_start = None
        self.partial = self.judged_partial = ""
        self.stable_since = None
        self.pending = self.last_judged = self.dropped = self.row_first = self.row_last = None
        self.looked_at = None
        self.went_on_after.clear()
        self.preroll.clear()
        self.audio.clear()
        self.watch.speech_ended()
        self.recognizer.begin(self.phrases)

    def _decided(self, text: str, early: bool, by: Pending | None = None) -> None:
        """-> DECIDED."""
        if self.judge is not None:
            self._first_pass(self.recognizer.reset)  # the judge decides: the first pass's utterance is closed
        self.phase = Phase.DECIDED
        self.pending = None
        self.text = text
        self.early = early
        self.deciding = by
        self.speech_end = self.watch.last_loud
        self.emit(Final(self.text, self.audio_t, early=early))

    # -- the end of the input

    def result(self) -> Utterance:
        if self.phase in (Phase.IN_SPEECH, Phase.PENDING):
            with self.clock.processing(self.audio_t):
                if self.leftover:
                    self._accept(self.leftover)
                    self.watch.feed(self.leftover)
                self.emit(SpeechStopped(self.audio_t))
                self._decide(early=False, cut_off=self.watch.still_loud())
        elif self.phase is Phase.BEFORE_SPEECH:
            self.recognizer.reset()
        start = self.speech_start if self.speech_start is not None else self.ignored_start
        deciding = self.deciding
        judged = deciding.result if deciding is not None else self.set_aside
        return Utterance(
            text=self.text,
            speech_start=start,
            speech_end=self.speech_end if start is not None else None,
            decided_at=self.clock.free_at,
            early=self.early,
            audio_s=self.audio_t,
            compute_s=self.clock.compute_s,
            events=tuple(self.events),
            first_pass_s=self.first_pass_s,
            judge_s=deciding.ready_at - deciding.started if deciding is not None else 0.0,
            judge_started=deciding.started if deciding is not None else None,
            judge_result=judged,
            why=verdict_why(self.text, start, judged, "" if self.text else self.veto),
        )
