"""The listening benchmark as a phone held to the mouth hears it (voice_earl/bench/held.py,
``bench_listening.py --close-mic``): the room 10 dB quieter, and each recording cut at the hold."""

from __future__ import annotations

import numpy as np

from voice_earl.bench.corpus import CONDITIONS, LEAD_IN_S
from voice_earl.bench.held import CLOSE_MIC_GAIN_DB, HOLD_LEAD_S, HOLD_MAX_S, HOLD_TAIL_S, at_the_phone, held_segment
from voice_earl.listening.stream.audio import SAMPLE_RATE


def test_every_room_is_ten_db_quieter_at_the_phone_and_the_rest_stay_as_they_are() -> None:
    for condition in CONDITIONS:
        heard = at_the_phone(condition)
        if condition.endswith(" dB"):
            kind, level, _ = condition.split()
            assert heard == f"{kind} {float(level) + CLOSE_MIC_GAIN_DB:g} dB"
        else:
            assert heard == condition
    assert CLOSE_MIC_GAIN_DB == 10.0


def test_a_hold_starts_before_the_voice_ends_after_it_and_never_runs_past_eight_seconds() -> None:
    audio = np.arange(20 * SAMPLE_RATE, dtype=np.int64)  # each sample its own index
    held = held_segment(audio, true_end=3.0)
    assert held[0] == round((LEAD_IN_S - HOLD_LEAD_S) * SAMPLE_RATE)
    assert held[-1] == round((3.0 + HOLD_TAIL_S) * SAMPLE_RATE) - 1
    assert len(held_segment(audio, true_end=15.0)) == round(HOLD_MAX_S * SAMPLE_RATE)
