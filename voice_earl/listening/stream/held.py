"""A held utterance: speech whose start and end the speaker marked by holding a button (a phone's
Hold to speak), close to the microphone.

There is no end of speech to wait for and no table talk before or after it to tell apart: the
whole of what was held is the utterance. The first pass hears it as it comes, while the button is
held, so that little is left for it when the button comes up; then the judge weighs all of it at
once with the turn's context and what the first pass heard, as it weighs what the listener hears
(a line the first pass heard too is taken on weaker evidence). Without a judge the first pass
decides.

>>> from voice_earl.game.cards import Rank
>>> quiet = np.zeros(8000, dtype=np.int16)
>>> held = hear_held(None, quiet, ListenContext(2, (Rank.QUEEN,)))  # type: ignore[arg-type]
>>> held.text, held.speech_start
('', None)
"""

from __future__ import annotations

import time

import numpy as np

from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16
from voice_earl.listening.stream.listener import Listener, logged
from voice_earl.listening.stream.speech_end import loud_frames, speech_end_s, speech_start_s
from voice_earl.listening.stream.utterance import Utterance, verdict_why
from voice_earl.words.context import ListenContext


class HeldSpeech:
    """One held utterance, heard as it comes. Use it on one thread: it drives the listener's first pass."""

    def __init__(self, listener: Listener, context: ListenContext) -> None:
        self.listener = listener
        self.context = context
        self._fed = 0  # bytes the first pass has taken
        self._first_pass_s = 0.0

    def hear(self, pcm: bytes) -> None:
        """The audio held so far (16 kHz mono little-endian int16, all of it from the start of the
        hold): the first pass takes what it has not had yet."""
        if len(pcm) <= self._fed:
            return
        started = time.perf_counter()
        recognizer = self.listener.recognizer
        if self._fed == 0:
            recognizer.begin(self.context.phrases())
        recognizer.accept(pcm[self._fed :])
        self._fed = len(pcm)
        self._first_pass_s += time.perf_counter() - started

    def finish(self, pcm: bytes) -> Utterance:
        """What the whole hold (``pcm``) holds, of the turn's phrases.

        Times are seconds of the held audio: the decision comes at its end plus the time taken
        after the release. A hold with nothing louder than its own floor in it (a button held in
        silence) is nothing heard, without asking the judge."""
        released = time.perf_counter()
        samples: Pcm16 = np.frombuffer(pcm, dtype="<i2").astype(np.int16)
        seconds = len(samples) / SAMPLE_RATE
        if len(loud_frames(samples)) == 0:
            if self._fed:
                self.listener.recognizer.reset()
            return Utterance(
                "", None, None, seconds + time.perf_counter() - released, False, seconds, self._first_pass_s
            )
        self.hear(pcm)
        finishing = time.perf_counter()
        first_pass = self.listener.recognizer.finish()
        self._first_pass_s += time.perf_counter() - finishing
        start, end = speech_start_s(samples), speech_end_s(samples)
        judge = self.listener.judge
        if judge is None or not judge.understands(self.context):
            after = time.perf_counter() - released
            return logged(
                Utterance(
                    first_pass,
                    start,
                    end,
                    seconds + after,
                    False,
                    seconds,
                    self._first_pass_s,
                    first_pass_s=self._first_pass_s,
                    why=verdict_why(first_pass, start, None),
                )
            )
        result = judge.judge(samples, self.context, first_pass, held=True)
        after = time.perf_counter() - released
        return logged(
            Utterance(
                result.phrase,
                start,
                end,
                seconds + after,
                False,
                seconds,
                self._first_pass_s + result.compute_s,
                first_pass_s=self._first_pass_s,
                judge_s=result.compute_s,
                judge_started=seconds,
                judge_result=result,
                why=verdict_why(result.phrase, start, result),
            )
        )


def hear_held(listener: Listener, samples: Pcm16, context: ListenContext) -> Utterance:
    """A whole held utterance (16 kHz int16) heard at once: the first pass, then the judge."""
    return HeldSpeech(listener, context).finish(samples.astype("<i2").tobytes())
