"""A held utterance: speech whose start and end the speaker marked by holding a button (a phone's
Hold to speak), close to the microphone.

There is no end of speech to wait for and no table talk before or after it to tell apart: the
whole of what was held is the utterance. With a judge it is judged at once, on all of the audio,
with the turn's context, as :meth:`Judge.judge` judges any utterance; without one the first pass
hears it, followed by enough quiet for its end of speech to be found.

>>> from voice_earl.game.cards import Rank
>>> quiet = np.zeros(8000, dtype=np.int16)
>>> held = hear_held(None, quiet, ListenContext(2, (Rank.QUEEN,)))  # type: ignore[arg-type]
>>> held.text, held.speech_start
('', None)
"""

from __future__ import annotations

import time

import numpy as np

from voice_earl.listening.audio import SAMPLE_RATE, AudioChunk, Pcm16, pcm_chunks
from voice_earl.listening.context import ListenContext
from voice_earl.listening.listener import Listener, Utterance
from voice_earl.listening.speech_end import loud_frames, speech_end_s, speech_start_s

# Without a judge, the quiet that follows the held audio so that the first pass finds its end.
END_QUIET_S = 0.6


def hear_held(listener: Listener, samples: Pcm16, context: ListenContext) -> Utterance:
    """What ``samples`` (16 kHz int16, the whole of one held utterance) hold, of the turn's phrases.

    Times are seconds of the held audio: the decision comes at its end plus the time it took (the
    audio is all there when the button is released). Audio with nothing louder than its own floor
    in it (a button held in silence) is nothing heard, without asking the judge."""
    started = time.perf_counter()
    seconds = len(samples) / SAMPLE_RATE
    if len(loud_frames(samples)) == 0:
        return Utterance("", None, None, seconds, False, seconds, time.perf_counter() - started)
    start, end = speech_start_s(samples), speech_end_s(samples)
    judge = listener.judge
    if judge is not None and judge.understands(context):
        result = judge.judge(samples, context)
        compute = time.perf_counter() - started
        return Utterance(result.phrase, start, end, seconds + compute, False, seconds, compute,
                         judge_s=result.compute_s, judge_started=seconds, judge_result=result)
    quiet = np.zeros(round(END_QUIET_S * SAMPLE_RATE), dtype=np.int16)
    # Stamped as captured long before now: the laptop's microphone is muted while the narrator
    # speaks, but a phone held to the mouth is not the laptop's microphone.
    chunks = (AudioChunk(pcm, captured_at=0.0) for pcm in pcm_chunks(np.concatenate([samples, quiet])))
    return listener.listen(chunks, context)
