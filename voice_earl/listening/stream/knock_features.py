"""What a candidate knock sounded like: the numbers :class:`~voice_earl.listening.stream.knock.KnockDetector`
weighs (:data:`FEATURES`).

Two scales. On the detector's 5 ms hops, five bands over the room's own level: how far the sound
rose and where in the spectrum, whether anything after it is as loud, how fast each band falls
away, how flat its spectrum is, whether its treble rings on and whether a voice's pitch follows. On
1 ms frames of the audio itself, 40 ms before the onset and the window after it: a knuckle's rap
rises within a millisecond or two and its treble is gone within a few more, where the onset of a
word, a laugh's "ha" or a card slid rises over tens of milliseconds, and babble's syllables never
rise that fast. The 16 ms spectra the hops are measured with smear that rise; the frames keep it.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from voice_earl.listening.stream.audio import SAMPLE_RATE

HOP = 80  # samples: 5 ms
FLOOR = 1e-3  # energies below this (int16 units squared per bin) are silence: no log of zero
PEAK_HOPS = slice(0, 4)  # the rap itself: its first 20 ms
FALL_HOPS = slice(8, 16)  # 40-80 ms after the onset
GONE_HOPS = slice(16, 24)  # 80-120 ms: a knock has gone back to the room by now
DECAY_HOPS = (slice(4, 8), slice(8, 16), slice(16, 24))  # 20-40, 40-80 and 80-120 ms after the onset
DECAY_BANDS = (60, 300, 800, 2000, 4000)
VOICED_LAGS = (40, 200)  # samples: a voice's pitch period, 80-400 Hz
MAX_RISE_DB = 30.0  # a rise beyond this counts as this: in a silent room every sound rises without end
FRAME = 16  # samples: 1 ms
PRE_HOPS = 8  # the audio kept before an onset: 40 ms
RAP_FRAMES = 25  # the rap's peak is looked for in the first 25 ms
TREBLE_HZ = 2000.0
BASS_HZ = 800.0
FRAME_FEATURES = (
    "treble_rise_db",
    "treble_over_loudest_db",
    "treble_attack_ms",
    "treble_decay_ms",
    "treble_after_db",
    "bass_rise_db",
    "crest_db",
)
FEATURES = (
    "rise_db",
    "shape_60",
    "shape_300",
    "shape_800",
    "shape_2000",
    "shape_4000",
    "step_db",
    "later_db",
    "tail_db",
    "width",
    "flatness",
    "ring_db",
    "voicing",
    *(f"decay_{band}_{span}" for span in ("20", "40", "80") for band in DECAY_BANDS),
    *FRAME_FEATURES,
)


def db(value: float) -> float:
    return 10.0 * math.log10(max(value, FLOOR))


def voicing(samples: npt.NDArray[np.float64]) -> float:
    """How periodic the sound after a rap is (0-1): speech, laughter and a creak go on with a voice's
    pitch; a knock's ring is gone or has no pitch in that range."""
    centred = samples - samples.mean()
    size = 1 << (2 * len(centred) - 1).bit_length()
    spectrum = np.fft.rfft(centred, size)
    correlation = np.fft.irfft(np.abs(spectrum) ** 2, size)[: len(centred)]
    if correlation[0] <= FLOOR:
        return 0.0
    low, high = VOICED_LAGS
    return float(max(0.0, correlation[low:high].max() / correlation[0]))


def hop_features(
    hops: npt.NDArray[np.float64],
    room: npt.NDArray[np.float64],
    before: float,
    flatness: float,
    samples: npt.NDArray[np.float64],
) -> tuple[float, ...]:
    """The features on the hops (see :func:`event_features`). Levels are over the room's own, band by
    band, so that a knock is measured by what it adds to the room: in babble the treble, which talk
    hardly has, carries a rap best."""
    over = hops / np.maximum(room, FLOOR)
    level = over.mean(axis=1)  # each band weighs alike
    peak = float(level[PEAK_HOPS].max())
    peak_db = db(peak)
    rises = [db(float(v)) for v in over[PEAK_HOPS].max(axis=0)]
    rise = max(rises)
    treble = hops[:, 3:].sum(axis=1)
    return (
        min(rise, MAX_RISE_DB),
        *(max(r - rise, -MAX_RISE_DB) for r in rises),  # the rap's spectrum: where it rose most, where least
        min(db(float(level[0])) - db(before), MAX_RISE_DB),
        db(float(level[PEAK_HOPS.stop :].max())) - peak_db,  # speech goes on as loud (a vowel after a "p")
        db(float(level[GONE_HOPS].mean())) - peak_db,
        float(np.sum(level >= peak / 4)),  # hops within 6 dB of the rap: a rap is short
        flatness,
        db(float(treble[FALL_HOPS].mean())) - db(float(treble[PEAK_HOPS].mean())),
        voicing(samples[PEAK_HOPS.stop * HOP :]),
        *(
            max(db(float(v)) - db(float(p)), -40.0)  # how far each band has fallen from its own peak
            for span in DECAY_HOPS
            for v, p in zip(over[span].mean(axis=0), over[PEAK_HOPS].max(axis=0), strict=True)
        ),
    )


def frame_powers(audio: npt.NDArray[np.float64], low_hz: float, high_hz: float) -> npt.NDArray[np.float64]:
    """The power of ``audio`` between ``low_hz`` and ``high_hz`` in each 1 ms frame."""
    freqs = np.fft.rfftfreq(len(audio), 1.0 / SAMPLE_RATE)
    passed = np.fft.irfft(np.fft.rfft(audio) * ((freqs >= low_hz) & (freqs < high_hz)), len(audio))
    frames = len(passed) // FRAME
    return np.asarray((passed[: frames * FRAME] ** 2).reshape(frames, FRAME).mean(axis=1))


def frame_features(pre: npt.NDArray[np.float64], samples: npt.NDArray[np.float64]) -> tuple[float, ...]:
    """The features on 1 ms frames (:data:`FRAME_FEATURES`): ``pre``, the audio before the onset, is the room."""
    audio = np.concatenate([pre, samples])
    start = len(pre) // FRAME
    treble = frame_powers(audio, TREBLE_HZ, SAMPLE_RATE)
    bass = frame_powers(audio, 0.0, BASS_HZ)
    whole = treble + bass + frame_powers(audio, BASS_HZ, TREBLE_HZ)
    rap = treble[start : start + RAP_FRAMES]
    at = start + int(np.argmax(rap))
    peak = float(treble[at])
    room = float(np.median(treble[:start])) if start else FLOOR
    loudest = float(treble[:start].max()) if start else FLOOR
    near = treble[: at + 1] >= peak / 10  # within 10 dB of the peak, back from it
    attack = at - (int(np.flatnonzero(~near).max()) + 1 if not near.all() else 0)
    fallen = np.flatnonzero(treble[at:] < peak / 31.6)  # 15 dB below it
    decay = int(fallen[0]) if len(fallen) else len(treble) - at
    after = treble[at + 30 :]
    bass_room = float(np.median(bass[:start])) if start else FLOOR
    whole_rest = whole[start + RAP_FRAMES :]
    return (
        min(db(peak) - db(room), 2 * MAX_RISE_DB),
        min(db(peak) - db(loudest), MAX_RISE_DB),
        float(attack),
        float(decay),
        max(db(float(after.mean())) - db(peak), -60.0) if len(after) else -60.0,
        min(db(float(bass[start : start + RAP_FRAMES].max())) - db(bass_room), 2 * MAX_RISE_DB),
        min(db(float(whole[start : start + RAP_FRAMES].max())) - db(float(whole_rest.mean())), 2 * MAX_RISE_DB)
        if len(whole_rest)
        else 0.0,
    )


def event_features(
    hops: npt.NDArray[np.float64],
    room: npt.NDArray[np.float64],
    before: float,
    flatness: float,
    samples: npt.NDArray[np.float64],
    pre: npt.NDArray[np.float64],
) -> tuple[float, ...]:
    """The features of one candidate (:data:`FEATURES`). ``hops``: its band energies, one row per hop
    from the onset; ``room``: the room's band energies before it (the median); ``before``: the hop
    before the onset over the room; ``flatness``: the spectral flatness of its first hop;
    ``samples``: its audio from the onset on; ``pre``: the audio just before it."""
    return hop_features(hops, room, before, flatness, samples) + frame_features(pre, samples)
