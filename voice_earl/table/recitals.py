"""Lines heard outside a turn, through the same listener: a bot's line synthesized without a sound card
(the demo, :func:`synthesized_recital`) and the drill's microphone (:class:`DrillRecital`)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator

import numpy as np

from voice_earl.game.chants import ChantSet
from voice_earl.i18n import _
from voice_earl.listening.stream.audio import AudioChunk, Microphone, choose_input_device, pcm_chunks
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.utterance import grade_utterance
from voice_earl.table.drill import Prompt
from voice_earl.table.turns import Heard
from voice_earl.table.voice_input import open_listener
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import Strictness


def synthesized_recital(
    listener: Listener, voice: str | None, strictness: Strictness = Strictness.NORMAL
) -> Callable[[ListenContext, str], Heard]:
    """Say ``text`` with a synthetic voice and hear it through the real listener, in 40 ms chunks."""
    from voice_earl.table.speech import render, to_16k_mono

    room = np.random.default_rng(0)

    def recite(context: ListenContext, text: str) -> Heard:
        audio = to_16k_mono(render(text, voice=voice))
        speech = np.asarray(audio.samples, dtype=np.float64)
        # As a microphone hears it: a moment of a quiet room before, a second after (so that end of
        # speech can decide), and the room's faint noise (-60 dBFS) throughout.
        padded = np.concatenate([np.zeros(16000 // 5), speech, np.zeros(16000)])
        samples = np.clip(padded + room.normal(0.0, 33.0, padded.shape), -32768, 32767).astype(np.int16)
        utterance = listener.listen(pcm_chunks(samples), context)
        return Heard(grade_utterance(utterance, context, strictness), latency_ms=utterance.latency_ms)

    return recite


class DrillRecital:
    """The drill's microphone: listens for one line per prompt; ``last_audio`` keeps its sound."""

    def __init__(self, listener: Listener, microphone: Microphone, chant: ChantSet, keep_audio: bool) -> None:
        self.listener = listener
        self.microphone = microphone
        self.chant = chant
        self.keep_audio = keep_audio
        self.last_audio: bytes | None = None

    def __call__(self, prompt: Prompt) -> tuple[str, float] | None:
        started = time.monotonic()
        kept: list[bytes] = []

        def fresh() -> Iterator[AudioChunk]:
            for chunk in self.microphone.chunks():
                if chunk.captured_at is None or chunk.captured_at >= started:
                    if self.keep_audio:
                        kept.append(chunk.pcm)
                    yield chunk

        utterance = self.listener.listen(fresh(), prompt.context(self.chant))
        self.last_audio = b"".join(kept) if self.keep_audio else None
        return utterance.text, time.monotonic() - started


@contextlib.contextmanager
def drill_recital(args: object) -> Iterator[DrillRecital]:
    """Load the recognizer, open the microphone, and listen for the drill."""
    from voice_earl.keep.chant_files import chant_set

    choose_input_device(getattr(args, "device", None))
    listener, reason = open_listener(args)
    print("voice-earl: " + _("listening with {listener}").format(listener=reason), file=sys.stderr)
    chant = chant_set(getattr(args, "chant", None) or "earl")
    with Microphone(getattr(args, "device", None)) as microphone:
        yield DrillRecital(listener, microphone, chant, bool(getattr(args, "keep_audio", False)))
