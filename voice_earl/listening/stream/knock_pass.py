"""A knock heard while listening ends the listen with a pass, where a pass is allowed.

:class:`KnockWatch` runs beside one :meth:`~voice_earl.listening.stream.listener.Listener.listen`: it is fed
the same audio as the listener (and told of the audio the listener drops while the narrator
speaks, which it does not hear either), and when :class:`~voice_earl.listening.stream.knock.KnockDetector`
hears a knock, :meth:`KnockWatch.passed` closes the listen as if "pass" had been said. At a lead
(position 1) a pass is not allowed, so no watch is made and a knock does nothing.
"""

from __future__ import annotations

import logging
import time

from voice_earl.listening.recognizer import Final, KnockHeard
from voice_earl.listening.stream.audio import AudioChunk
from voice_earl.listening.stream.knock import Candidate, KnockDetector, KnockModel
from voice_earl.listening.stream.run import ListenRun
from voice_earl.listening.stream.utterance import Utterance
from voice_earl.words.context import PASS_WORDS, ListenContext

logger = logging.getLogger("voice_earl.listening.stream.listener")


class KnockWatch:
    """The knock detector beside one listen."""

    def __init__(self, model: KnockModel) -> None:
        self.detector = KnockDetector(model)
        self.heard: Candidate | None = None
        self.compute_s = 0.0
        self._last_s = 0.0  # the compute time of the last chunk

    @classmethod
    def for_turn(cls, model: KnockModel | None, context: ListenContext) -> KnockWatch | None:
        """A watch when knocks are listened for and the turn allows a pass (positions 2-4), else None."""
        return cls(model) if model is not None and context.position > 1 else None

    def skip(self, seconds: float) -> None:
        self.detector.skip(seconds)

    def feed(self, pcm: bytes) -> bool:
        """True once a knock is heard."""
        started = time.perf_counter()
        self.heard = self.detector.feed(pcm)
        self._last_s = time.perf_counter() - started
        self.compute_s += self._last_s
        return self.heard is not None

    def passed(self, run: ListenRun, chunk: AudioChunk) -> Utterance:
        """The listen, closed with a pass on ``chunk``, which the listener has not been fed: the first
        pass's utterance (talk around the table, most likely) is dropped, and the verdict comes once
        the chunk has arrived, the listener is done with the chunks before it and the knock is heard
        (on the listener's real-time clock)."""
        heard = self.heard
        assert heard is not None
        run.recognizer.reset()
        arrived = run.audio_t + chunk.duration
        logger.info("a knock at %.2fs (p=%.3f): a pass", heard.at, heard.probability)
        run.emit(KnockHeard(heard.at, heard.probability))
        run.emit(Final(PASS_WORDS[0], arrived, early=True))
        return Utterance(
            text=PASS_WORDS[0],
            speech_start=heard.at,
            speech_end=heard.at,  # a rap is over within tens of ms: its latency runs from its onset
            decided_at=max(run.clock.free_at, arrived) + self._last_s,
            early=True,
            audio_s=arrived,
            compute_s=run.clock.compute_s + self.compute_s,
            events=tuple(run.events),
            first_pass_s=run.first_pass_s,
        )
