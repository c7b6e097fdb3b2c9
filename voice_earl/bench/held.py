"""The listening benchmark's trials as a phone held to the mouth hears them (``bench_listening.py --close-mic``).

A phone 30 cm from the mouth gets about 10 dB more of the speaker's direct sound than a laptop a
metre or two away (the inverse-square law: 20·log10(1/0.3) ≈ 10.5 dB), while the room's diffuse
talk stays about the same: each condition's room is mixed 10 dB quieter against the voice. The
player holds Hold to speak a moment before speaking and lets go a moment after: each recording is
cut there, and heard as the laptop hears what a phone held
(:class:`~voice_earl.table.phones.mic_gate.HeldHearing`): the first pass as it comes, the judge on
all of it at the release. The time from the release to the verdict is what is left of the first
pass and the judge: all the audio is there when the button comes up.
"""

from __future__ import annotations

import numpy as np

from voice_earl.bench.corpus import LEAD_IN_S, Trial
from voice_earl.listening.stream.audio import SAMPLE_RATE
from voice_earl.table.phones.mic_gate import HeldHearing

CLOSE_MIC_GAIN_DB = 10.0
HOLD_LEAD_S = 0.3  # the button goes down this long before the voice ...
HOLD_TAIL_S = 0.25  # ... and comes up this long after it
HOLD_MAX_S = 8.0  # the longest hold judged (a room stretch of the benchmark is shorter)
FOLLOW_S = 0.05  # what the first pass has not heard yet when the button comes up (mic_gate's _POLL_S)


def at_the_phone(condition: str) -> str:
    """The condition as the phone hears it: a room of talk or noise 10 dB quieter against the voice
    ("babble 6 dB" -> "babble 16 dB"); a quiet room and an echo stay as they are.

    >>> at_the_phone("party 6 dB"), at_the_phone("clean")
    ('party 16 dB', 'clean')
    """
    parts = condition.split()
    if len(parts) != 3 or parts[2] != "dB":
        return condition
    return f"{parts[0]} {float(parts[1]) + CLOSE_MIC_GAIN_DB:g} dB"


def held_segment(audio: np.ndarray, true_end: float) -> np.ndarray:
    """What the phone sends: from just before the voice (which starts after the lead-in) to just
    after its true end, at most ``HOLD_MAX_S``.

    >>> held_segment(np.zeros(5 * SAMPLE_RATE, dtype=np.int16), 2.0).shape[0] / SAMPLE_RATE
    2.15
    """
    start = max(0.0, LEAD_IN_S - HOLD_LEAD_S)
    end = min(len(audio) / SAMPLE_RATE, true_end + HOLD_TAIL_S, start + HOLD_MAX_S)
    return audio[round(start * SAMPLE_RATE) : round(end * SAMPLE_RATE)]


def hear_held_trial(
    hearing: HeldHearing, trial: Trial, audio: np.ndarray, true_end: float
) -> tuple[str, str, int, str]:
    """The verdict's value, what was heard, the milliseconds from the release to the verdict and
    what decided (the judge's ``why``).

    While the button is held the first pass hears the audio as it comes (the game's thread looks
    for more every 50 ms): at the release only the last moments are left for it, then the judge."""
    pcm = held_segment(audio, true_end).astype("<i2").tobytes()
    speech = hearing.begin(trial.context)
    speech.hear(pcm[: max(0, len(pcm) - round(FOLLOW_S * SAMPLE_RATE) * 2)])
    heard = hearing.heard(speech, pcm)
    grade = heard.grade
    return grade.verdict.value, grade.heard, round(heard.latency_ms or 0.0), heard.why
