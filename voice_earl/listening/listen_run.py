"""One call of :meth:`voice_earl.listening.listener.Listener.listen`, frame by frame.

See :mod:`voice_earl.listening.listener` for what it does; this is how.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from voice_earl.listening.audio import BYTES_PER_SAMPLE, SAMPLE_RATE, AudioChunk, Pcm16
from voice_earl.listening.context import ListenContext
from voice_earl.listening.judge_choice import JudgeResult
from voice_earl.listening.recognizer import (
    Final,
    ListenEvent,
    Partial,
    Recognizer,
    SpeechSetAside,
    SpeechStarted,
    SpeechStopped,
)
from voice_earl.listening.speech_end import EndWatch
from voice_earl.listening.text import normalise
from voice_earl.listening.utterance import EventHandler, Judge, ListenSettings, Utterance

logger = logging.getLogger("voice_earl.listening.listener")


MIN_LINE_WORDS = 4

T = TypeVar("T")


@dataclass(frozen=True)
class Pending:
    """A judge's verdict taken at a likely end of speech, waiting for the audio that came meanwhile."""

    result: JudgeResult
    started: float  # clock
    ready_at: float  # clock
    audio_at: float  # seconds of audio judged: the verdict stands once confirm_s more shows no speech
    partial: str | None = None  # taken on the first pass's stable phrase (else at a quiet)


class ListenRun:
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
        self.endpointer = Endpointer(
            window=s.end_window_s, ratio=s.end_ratio, vad_mode=s.vad_mode, sample_rate=SAMPLE_RATE
        )
        self.watch = EndWatch(s.likely_end_s, peak_range_db=s.loud_range_db)
        self.frame_bytes = int(self.endpointer.frame_bytes)
        self.frame_s = self.frame_bytes / (BYTES_PER_SAMPLE * SAMPLE_RATE)
        self.preroll: deque[bytes] = deque(maxlen=int((s.end_window_s + 0.2) / self.frame_s) + 1)
        self.audio: list[bytes] = []  # the utterance's audio, pre-roll included, for the judge
        self.audio_from = 0.0  # the audio time where it starts
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
        self.verdict_pending: Pending | None = None
        # What the first pass may settle on: whole lines, and passes and commands (see _follow_partial).
        self.whole_lines = frozenset(p for p in phrases if len(p.split()) >= MIN_LINE_WORDS)
        self.short_phrases = frozenset(phrases) - self.whole_lines
        self.judged_partial = ""
        self.last_judged: Pending | None = None  # the latest judge run on this speech
        self.dropped: Pending | None = None  # a verdict dropped when the room got loud again
        self.deciding: Pending | None = None
        self.set_aside: JudgeResult | None = None  # the judge's word on the last speech set aside (its why)
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
        self.watch.skip(chunk.duration)
        self.clock = max(self.clock, self.audio_t)

    @contextmanager
    def _processing(self, arrived: float) -> Iterator[None]:
        """Processing on the simulated clock: it begins once the audio has ``arrived`` and the
        previous processing is over, and moves the clock on by the time it takes."""
        self.feed_perf = started = time.perf_counter()
        self.feed_clock = max(self.clock, arrived)
        yield
        spent = time.perf_counter() - started
        self.compute_s += spent
        self.clock = self.feed_clock + spent

    def feed(self, chunk: AudioChunk) -> bool:
        """Process one chunk; True once the utterance is decided."""
        with self._processing(self.audio_t + chunk.duration):  # it arrives once spoken
            self.pending += chunk.pcm
            while len(self.pending) >= self.frame_bytes and not self.done:
                frame, self.pending = self.pending[: self.frame_bytes], self.pending[self.frame_bytes :]
                self._frame(frame)
        return self.done

    def _first_pass(self, call: Callable[[], T]) -> T:
        """A call of the first pass's recognizer, its time added to ``first_pass_s``."""
        started = time.perf_counter()
        answer = call()
        self.first_pass_s += time.perf_counter() - started
        return answer

    def _accept(self, frame: bytes) -> None:
        self.audio.append(frame)
        self._first_pass(lambda: self.recognizer.accept(frame))

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
        self._accept(frame)
        if speech is not None and not self.endpointer.in_speech:
            self.emit(SpeechStopped(self.audio_t))
            self._end_of_speech()
            return
        if self.judge is not None:
            self._judge_if_likely_end()
            self._confirm_pending()
            self._take_if_stopped()
        elif self.audio_t - self.partial_checked_at >= self.settings.partial_every_s:
            self._check_partial()
        if not self.done and self.audio_t - self.speech_start > self.settings.max_speech_s:
            self._decide(early=False)

    def _start(self, at: float) -> None:
        self.speech_start = at
        self.emit(SpeechStarted(at))
        self.watch.speech_began(len(self.preroll) * self.frame_s)
        self.audio_from = self.audio_t - len(self.preroll) * self.frame_s
        for frame in self.preroll:
            self._accept(frame)
        self.preroll.clear()

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

    # -- the judge

    def _judge_if_likely_end(self) -> None:
        """Judge when the end of speech is likely: after a short quiet, or (when talk around the
        table keeps it loud) once the first pass has held a whole phrase for a moment. A waiting
        verdict is dropped when the speaker goes on; a phrase after which the voice fell away
        needs no wait (the room's talk that goes on is not the speaker's)."""
        pending = self.verdict_pending
        if pending is not None and pending.partial is None and self.watch.loud_since_end:
            logger.debug("speech went on at %.2fs: the early verdict is dropped", self.audio_t)
            self.dropped, self.verdict_pending, pending = pending, None, None
        if not self.settings.early_accept:
            return
        if self.audio_t - self.partial_checked_at >= self.settings.partial_every_s:
            self._follow_partial()
            pending = self.verdict_pending
        if pending is None and self.watch.likely_end() and self.watch.loud_since_end:
            self._take_or_wait(self._run_judge(self._first_pass(self.recognizer.partial)))

    def _take_or_wait(self, run: Pending, partial: str | None = None) -> None:
        """A phrase heard where the speaker's voice fell away is taken at once; another phrase heard
        waits for :meth:`_confirm_pending`."""
        if run.result.voice_stopped:
            self._decided(run.result.phrase, early=True, by=run)
        elif run.result.heard:
            self.verdict_pending = replace(run, partial=partial)

    def _confirm_pending(self) -> None:
        """A waiting verdict stands once ``confirm_s`` of audio after what was judged shows that the
        speaker did not go on: a rule on the audio alone, so the verdict never depends on how fast
        the judge ran (the time of the decision does: the later of this moment and the judge's)."""
        pending = self.verdict_pending
        if pending is not None and self.audio_t >= pending.audio_at + self.settings.confirm_s - 1e-9:
            self._decided(pending.result.phrase, early=True, by=pending)

    def _take_if_stopped(self) -> None:
        """In a loud room, a verdict dropped when the room got loud again is taken after all once
        the audio since shows that the voice fell away where its phrase ends: the room's talk went
        on, not the speaker. A later judge run that hears a phrase replaces it; one that hears
        nothing does not, since the talk that followed may put the line just under its floor, and
        whether the speaker stopped there is the voice's fall to tell."""
        dropped = self.dropped
        if dropped is None or self.verdict_pending is not None or self.done or not self.watch.room_loud():
            return
        assert self.judge is not None
        stopped = self.judge.stopped_after(dropped.result, self._samples())
        if stopped is None:
            return
        self.dropped = None
        if stopped:
            logger.debug("the voice fell away after %r: taken at %.2fs", dropped.result.phrase, self.audio_t)
            taken = replace(dropped, result=replace(dropped.result, voice_stopped=True))
            self._decided(taken.result.phrase, early=True, by=taken)

    def _follow_partial(self) -> None:
        """A whole line the first pass has held is judged on the speech so far, and its verdict waits
        for ``confirm_s`` of audio in which the first pass heard nothing more (no wait when the judge
        heard the speaker's voice fall away after it). A pass or a command, which the first pass
        holds even when the speaker goes on ("pass me the crisps"), only in a loud room (in a quiet
        one its end is heard): it is judged on ``confirm_s`` more audio than that, what followed it
        included, and decided then."""
        changed = self._take_partial()
        text = self.partial
        if changed and self.verdict_pending is not None and self.verdict_pending.partial is not None:
            self.verdict_pending = None  # the first pass heard more: the speaker went on
        if self.verdict_pending is not None or self.judged_partial == text or not self._partial_stable():
            return
        said = normalise(text)
        if said in self.whole_lines:
            self.judged_partial = text
            self._take_or_wait(self._run_judge(text), partial=text)
        elif said in self.short_phrases and self._partial_stable(self.settings.confirm_s) and self.watch.room_loud():
            self.judged_partial = text
            run = self._judged(self._samples(), text)  # not the speech's last judgement: it may go on
            if run.result.phrase in self.short_phrases:  # a line on part of the speech waits for its end
                self._decided(run.result.phrase, early=True, by=run)

    def _samples(self) -> Pcm16:
        return np.frombuffer(b"".join(self.audio), dtype=np.int16)

    def _judged(self, samples: Pcm16, first_pass: str) -> Pending:
        assert self.judge is not None
        started = self.now()
        result = self.judge.judge(samples, self.context, first_pass)
        if result.heard:
            self.dropped = None  # a newer verdict replaces it (one that hears nothing does not: _take_if_stopped)
        return Pending(result, started, self.now(), self.audio_t)

    def _run_judge(self, first_pass: str) -> Pending:
        """The judge on the speech up to the end of its last loud frame."""
        self.watch.loud_since_end = False
        samples = self._samples()
        if self.watch.last_loud is not None:
            # The speech and the quiet that marked its end, not what came after (more quiet, talk).
            spoken = self.watch.last_loud + self.settings.likely_end_s - self.audio_from
            samples = samples[: max(0, round(spoken * SAMPLE_RATE))]
        self.last_judged = self._judged(samples, first_pass)
        return self.last_judged

    def _latest_judgement(self, first_pass: str) -> Pending:
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
        text = self._first_pass(self.recognizer.finish)
        if self.judge is not None:
            run = self._latest_judgement(text)
            if run.result.heard:
                self._decided(run.result.phrase, early=False, by=run)
                return
            self.set_aside = run.result
            text = ""
        if normalise(text):
            self._decided(text, early=False)
            return
        logger.debug("speech at %.2fs matched no phrase; listening on", self.speech_start or 0.0)
        self.emit(SpeechSetAside(self.audio_t))
        self.ignored_start = self.ignored_start if self.ignored_start is not None else self.speech_start
        self.speech_end = self.speech_end if self.speech_end is not None else self.watch.last_loud
        self.speech_start = None
        self.partial = self.judged_partial = ""
        self.stable_since = None
        self.verdict_pending = self.last_judged = self.dropped = None
        self.preroll.clear()
        self.audio.clear()
        self.watch.speech_ended()
        self.recognizer.begin(self.phrases)

    def _decide(self, early: bool) -> None:
        text = self._first_pass(self.recognizer.finish)
        if self.judge is None:
            self._decided(text, early)
            return
        run = self._latest_judgement(text)
        self._decided(run.result.phrase, early, by=run)

    def _decided(self, text: str, early: bool, by: Pending | None = None) -> None:
        if self.judge is not None:
            self._first_pass(self.recognizer.reset)  # the judge decides: the first pass's utterance is closed
        self.text = text
        self.early = early
        self.deciding = by
        self.done = True
        self.speech_end = self.watch.last_loud
        self.emit(Final(self.text, self.audio_t, early=early))

    def result(self) -> Utterance:
        if not self.done and self.speech_start is not None:
            with self._processing(self.audio_t):
                if self.pending:
                    self._accept(self.pending)
                    self.watch.feed(self.pending)
                self.emit(SpeechStopped(self.audio_t))
                self._decide(early=False)
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
            judge_result=deciding.result if deciding is not None else self.set_aside,
        )


