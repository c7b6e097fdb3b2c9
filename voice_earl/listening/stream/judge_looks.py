"""The judge's looks at a speech: when the listener asks the judge, and what its verdicts wait for.

A mixin of :class:`voice_earl.listening.stream.run.ListenRun`, which holds the speech's state and its
phases; here are only the rules that read the judge's answers (docs/listening.md, "The judge's rules").
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from voice_earl.listening.recognizer import Recognizer
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16
from voice_earl.listening.stream.speech_end import EndWatch
from voice_earl.listening.stream.utterance import Judge, ListenSettings, Pending, Phase, RunClock
from voice_earl.words.context import ListenContext
from voice_earl.words.text import normalise

logger = logging.getLogger("voice_earl.listening.stream.listener")  # the run's too: one log for a listen

T = TypeVar("T")


class JudgeLooks:
    """When a run asks its judge, and how it takes, holds or drops the verdicts."""

    settings: ListenSettings
    judge: Judge | None
    recognizer: Recognizer
    context: ListenContext
    clock: RunClock
    watch: EndWatch
    phase: Phase
    due: frozenset[str]
    whole_lines: frozenset[str]
    short_phrases: frozenset[str]
    audio_t: float
    audio_from: float
    speech_start: float | None
    partial: str
    judged_partial: str
    pending: Pending | None
    last_judged: Pending | None
    dropped: Pending | None
    looked_at: float | None
    row_first: Pending | None
    row_last: Pending | None
    went_on_after: set[str]
    veto: str

    # What the run itself does (ListenRun).
    def _first_pass(self, call: Callable[[], T]) -> T:
        raise NotImplementedError

    def _samples(self) -> Pcm16:
        raise NotImplementedError

    def _partial_due(self) -> bool:
        raise NotImplementedError

    def _take_partial(self) -> bool:
        raise NotImplementedError

    def _partial_stable(self, more_s: float = 0.0) -> bool:
        raise NotImplementedError

    def _hold(self, run: Pending) -> None:
        raise NotImplementedError

    def _speaker_went_on(self, keep: bool) -> None:
        raise NotImplementedError

    def _decided(self, text: str, early: bool, by: Pending | None = None) -> None:
        raise NotImplementedError

    def _look(self) -> None:
        """One frame of speech with a judge: drop a waiting verdict the speaker talked over, look
        where the end is likely, take a waiting verdict the audio has confirmed, or a dropped one
        after which the voice is seen to have fallen away."""
        if self.phase is Phase.PENDING and self._went_on_after_quiet():
            logger.debug("speech went on at %.2fs: the early verdict is dropped", self.audio_t)
            self._speaker_went_on(keep=True)
        if self.settings.early_accept:
            if self._partial_due():
                self._follow_partial()
            end = self.watch.unseen_end
            if self.phase is Phase.IN_SPEECH and end is not None:
                partial = self._first_pass(self.recognizer.partial)
                self._take_or_hold(self._judge_speech(partial, end, asked_at=end + self.settings.likely_end_s))
        self._confirm_pending()
        self._take_if_stopped()
        self._loud_look()
        self._take_if_heard_again()

    def _loud_look(self) -> None:
        """In a loud room, whose talk may leave no quiet to mark an end, the speech so far is judged once
        ``loud_look_every_s`` of it has passed since the last look. Only the line due is taken from such a
        look (talk cut at any moment may end in "pass"): at once where the voice fell away after it, else
        once the voice is seen to stay away (:meth:`_take_if_stopped`)."""
        every, since = self.settings.loud_look_every_s, self.speech_start if self.looked_at is None else self.looked_at
        if every <= 0 or since is None or self.audio_t - since < every - 1e-9 or self.phase is not Phase.IN_SPEECH:
            return
        if not self.settings.early_accept or not self.watch.room_loud():
            return
        run = self._judged(self._samples(), self._first_pass(self.recognizer.partial), self.watch.last_loud)
        if self._heard(run) and run.result.phrase in self.due:
            if run.result.voice_stopped:
                self._decided(run.result.phrase, early=True, by=run)
            else:
                self.dropped = run

    def _take_if_heard_again(self) -> None:
        """In a loud room, the line due heard at looks in a row, the last of them on ``heard_again_s``
        more audio than the first (of the audio each weighed), is taken: words said after the line would
        have cost it its full stop ("... as good as he used to be"), where the room's talk does not; the
        voice's energy cannot tell, the talk being as loud. Not a pass: Whisper hears "I pass" in talk
        that starts like it ("my password ...") look after look."""
        first, last, again = self.row_first, self.row_last, self.settings.heard_again_s
        if again <= 0 or first is None or last is None or self.phase is not Phase.IN_SPEECH:
            return
        if first.heard_to is None or last.heard_to is None or last.heard_to - first.heard_to < again - 1e-9:
            return
        if not self.settings.early_accept or not self.watch.room_loud() or not self._heard(last):
            return
        if last.result.phrase in self.due:
            logger.debug("%r heard again on %.2fs more audio: taken at %.2fs", last.result.phrase, again, self.audio_t)
            self._decided(last.result.phrase, early=True, by=last)

    def _follow_row(self, run: Pending) -> None:
        """The first and the latest of the looks in a row that heard the same phrase."""
        if not run.result.heard:
            self.row_first = self.row_last = None
        elif self.row_first is None or self.row_first.result.phrase != run.result.phrase:
            self.row_first = self.row_last = run
        else:
            self.row_last = run

    def _went_on_after_quiet(self) -> bool:
        """A verdict taken at a short quiet, and the voice was loud again since."""
        return self.pending is not None and self.pending.partial is None and self.watch.went_on(self.pending.spoken_to)

    def _heard(self, run: Pending) -> bool:
        """Whether a judge's verdict hears a phrase the listener may take: in a quiet room, not a
        pass or a command that the speaker was heard to go on after at a pause in this speech
        ("pass ... me the crisps would you"): Whisper may hear the whole speech as that saying."""
        said = run.result
        if said.heard and said.best.candidate.text in self.went_on_after:
            self.veto = f"listener: the speaker went on after {said.best.candidate.text.strip()!r} at a pause"
            return False
        return said.heard

    def _take_or_hold(self, run: Pending, partial: str | None = None) -> None:
        """A phrase heard where the speaker's voice fell away is taken at once; another phrase heard
        waits for :meth:`_confirm_pending`."""
        if not self._heard(run):
            return
        if run.result.voice_stopped:
            self._decided(run.result.phrase, early=True, by=run)
        else:
            self._hold(replace(run, partial=partial))

    def _confirm_pending(self) -> None:
        """A waiting verdict stands once ``confirm_s`` of audio after what was judged shows that the
        speaker did not go on."""
        pending = self.pending
        if pending is not None and self.audio_t >= pending.asked_at + self.settings.confirm_s - 1e-9:
            self._decided(pending.result.phrase, early=True, by=pending)

    def _take_if_stopped(self) -> None:
        """In a loud room, a verdict dropped when the room got loud again is taken after all once
        the audio since shows that the voice fell away where its phrase ends: the room's talk went
        on, not the speaker. A later judge run that hears a phrase replaces it; one that hears
        nothing does not, since the talk that followed may put the line just under its floor, and
        whether the speaker stopped there is the voice's fall to tell."""
        dropped = self.dropped
        if dropped is None or self.phase is not Phase.IN_SPEECH or not self.watch.room_loud():
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
        if changed and self.pending is not None and self.pending.partial is not None:
            self._speaker_went_on(keep=False)  # the first pass heard more
        if self.phase is not Phase.IN_SPEECH or self.judged_partial == text or not self._partial_stable():
            return
        said = normalise(text)
        if said in self.whole_lines:
            self.judged_partial = text
            self._take_or_hold(self._judge_speech(text), partial=text)
        elif said in self.short_phrases and self._partial_stable(self.settings.confirm_s) and self.watch.room_loud():
            self.judged_partial = text
            run = self._judged(self._samples(), text, self.watch.last_loud)  # not the speech's last judgement
            if run.result.phrase in self.short_phrases:  # a line on part of the speech waits for its end
                self._decided(run.result.phrase, early=True, by=run)

    def _judged(
        self, samples: Pcm16, first_pass: str, spoken_to: float | None, asked_at: float | None = None
    ) -> Pending:
        """The judge's verdict on ``samples`` (speech loud up to ``spoken_to``), asked for at
        ``asked_at`` (default: now)."""
        assert self.judge is not None
        started, wall = self.clock.now(), time.perf_counter()
        self.looked_at = self.audio_t
        result = self.judge.judge(samples, self.context, first_pass)
        self.clock.look_took(time.perf_counter() - wall, result.compute_s)
        if result.heard:
            self.dropped = None  # a newer verdict replaces it (one that hears nothing does not: _take_if_stopped)
        asked = self.audio_t if asked_at is None else asked_at
        weighed = len(samples) / SAMPLE_RATE if result.weighed_to_s is None else result.weighed_to_s
        heard_to = self.audio_from + weighed
        run = Pending(result, asked, spoken_to, started, self.clock.now(), heard_to=heard_to)
        self._follow_row(run)
        return run

    def _judge_speech(self, first_pass: str, end: float | None = None, asked_at: float | None = None) -> Pending:
        """The judge on the speech up to ``end`` (default: its last loud frame) and the quiet that
        marks an end (not what came after: more quiet, talk)."""
        end = self.watch.last_loud if end is None else end
        self.watch.looked(end)
        samples = self._samples()
        if end is not None:
            spoken = end + self.settings.likely_end_s - self.audio_from
            samples = samples[: max(0, round(spoken * SAMPLE_RATE))]
        self.last_judged = self._judged(samples, first_pass, end, asked_at)
        return self.last_judged

    def _latest_judgement(self, first_pass: str) -> Pending:
        """The judge's verdict on the whole speech: the last run's, unless the speaker went on since
        (or the first pass has since changed its mind)."""
        if self.pending is not None:
            return self.pending
        last = self.last_judged
        if last is None or self.watch.went_on(last.spoken_to) or last.result.first_pass != normalise(first_pass):
            return self._judge_speech(first_pass)
        return last
