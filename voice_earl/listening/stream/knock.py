"""A knock on the table: one or two sharp raps of the knuckles, heard as a pass.

The parlour rules let a player without the rank pass by tapping the table (Gameplay 2). A knock is
a short, sharp sound: it rises out of the room within a few milliseconds, and within a tenth of a
second it is gone again. Speech does not go away (a "p" or a "k" is followed by a vowel), a clap is
brighter, a glass rings on, a card laid down is soft. :class:`KnockDetector` is fed the same audio
as the listener, cut into 5 ms hops. Each sudden rise is a candidate:

1. *onset*: a hop at least ``ONSET_DB`` louder than the room's median over the last 300 ms (each
   of five bands over the room's own level in it, weighed alike), and ``STEP_DB`` louder than the
   hop before it;
2. *features*: ``WINDOW_S`` of audio from there on gives 28 numbers (how far it rose, and where
   in the spectrum; whether anything after it is as loud; how fast each band falls; how flat its
   spectrum is; whether its treble rings on; whether a voice's pitch follows), see
   :func:`event_features`;
3. *verdict*: boosted trees over them (:class:`KnockModel`, trained by
   ``scripts/knock_train.py`` on real recordings that packages ship, its numbers shipped in
   ``voice_earl/data/knock.json``). A knock is heard when its probability reaches ``threshold``,
   or when two candidates within ``PAIR_S`` both reach ``pair_threshold``: a double rap.

It needs numpy only and costs about one small FFT per hop.

>>> detector = KnockDetector()
>>> detector.feed(np.zeros(1600, dtype=np.int16)) is None
True
"""

from __future__ import annotations

import json
import math
from collections import deque
from dataclasses import dataclass
from datetime import date
from functools import cache
from importlib.resources import files
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16

HOP = 80  # samples: 5 ms
FFT_SIZE = 256  # 16 ms of audio under each hop's spectrum
BAND_EDGES_HZ = (60, 300, 800, 2000, 4000, 8001)
HISTORY_HOPS = 60  # the room's level: the median over the last 300 ms
MIN_HISTORY_HOPS = 20  # ... and over at least 100 ms of it before a rise counts
ONSET_DB = 6.0
STEP_DB = 3.0
WINDOW_S = 0.12  # the audio after an onset that decides (the verdict comes this long after the rap)
PAIR_S = (0.08, 0.7)  # a second rap this long after the first makes a double knock
FLOOR = 1e-3  # energies below this (int16 units squared per bin) are silence: no log of zero

PEAK_HOPS = slice(0, 4)  # the rap itself: its first 20 ms
FALL_HOPS = slice(8, 16)  # 40-80 ms after the onset
GONE_HOPS = slice(16, 24)  # 80-120 ms: a knock has gone back to the room by now
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
    *(f"decay_{band}_{span}" for span in ("20", "40", "80") for band in (60, 300, 800, 2000, 4000)),
)
DECAY_HOPS = (slice(4, 8), slice(8, 16), slice(16, 24))  # 20-40, 40-80 and 80-120 ms after the onset
VOICED_LAGS = (40, 200)  # samples: a voice's pitch period, 80-400 Hz
MAX_RISE_DB = 30.0  # a rise beyond this counts as this: in a silent room every sound rises without end


@dataclass(frozen=True)
class Candidate:
    """A sudden rise in the room's sound, and what it sounded like."""

    at: float  # seconds of audio from the start of the stream to its onset
    decided_at: float  # ... to the end of the window that judged it
    features: tuple[float, ...]
    probability: float


Tree = tuple[int, float, int, float, int, float, float, float, float, float]


@dataclass(frozen=True)
class KnockModel:
    """Boosted trees of depth two over :data:`FEATURES` (their sum is the log-odds that a candidate
    is a rap), and the detector's two operating points.

    Each tree is ``(f, t, fl, tl, fr, tr, ll, lr, rl, rr)``: feature ``f`` at most ``t`` goes left,
    where feature ``fl`` at most ``tl`` gives ``ll``, else ``lr``; right, ``fr``/``tr`` give ``rl``
    or ``rr``.

    >>> model = KnockModel(-1.0, ((0, 10.0, 1, 0.0, 1, 0.0, -2.0, -2.0, 1.0, 3.0),), 0.9, 0.8)
    >>> round(model.probability((20.0, 1.0) + (0.0,) * (len(FEATURES) - 2)), 3)  # -1 + 3
    0.881
    """

    base: float
    trees: tuple[Tree, ...]
    threshold: float  # one rap alone
    pair_threshold: float  # each of two raps within PAIR_S
    trained_on: str = ""
    trained: str = ""

    def probability(self, features: tuple[float, ...]) -> float:
        z = self.base
        for f, t, fl, tl, fr, tr, ll, lr, rl, rr in self.trees:
            if features[f] <= t:
                z += ll if features[fl] <= tl else lr
            else:
                z += rl if features[fr] <= tr else rr
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(FEATURES),
            "base": self.base,
            "trees": [list(t) for t in self.trees],
            "threshold": self.threshold,
            "pair_threshold": self.pair_threshold,
            "trained_on": self.trained_on,
            "trained": self.trained or date.today().isoformat(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KnockModel:
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"the knock model's features {data['features']} are not {list(FEATURES)}")
        trees = tuple(tree_of(t) for t in data["trees"])
        return cls(
            float(data["base"]),
            trees,
            float(data["threshold"]),
            float(data["pair_threshold"]),
            str(data.get("trained_on", "")),
            str(data.get("trained", "")),
        )


def tree_of(values: list[float]) -> Tree:
    """A tree as :class:`KnockModel` keeps it, from its ten numbers (as JSON or training give them)."""
    f, t, fl, tl, fr, tr, ll, lr, rl, rr = values
    return (int(f), float(t), int(fl), float(tl), int(fr), float(tr), float(ll), float(lr), float(rl), float(rr))


@cache
def shipped_model() -> KnockModel:
    """The model that ships with the game (``voice_earl/data/knock.json``)."""
    text = (files("voice_earl") / "data" / "knock.json").read_text(encoding="utf-8")
    return KnockModel.from_json(json.loads(text))


def _bins(low_hz: float, high_hz: float) -> npt.NDArray[np.bool_]:
    """Which of a hop's FFT bins lie in [low_hz, high_hz)."""
    freqs = np.fft.rfftfreq(FFT_SIZE, 1.0 / SAMPLE_RATE)
    return (freqs >= low_hz) & (freqs < high_hz)


_BANDS = np.array([_bins(low, high) for low, high in pairwise(BAND_EDGES_HZ)], dtype=float)  # a row per band
_FLAT_BINS = _bins(300, 6000)
_WINDOW = np.hanning(FFT_SIZE)


def _db(value: float) -> float:
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


def event_features(
    hops: npt.NDArray[np.float64],
    room: npt.NDArray[np.float64],
    before: float,
    flatness: float,
    samples: npt.NDArray[np.float64],
) -> tuple[float, ...]:
    """The features of one candidate. ``hops``: its band energies, one row per hop from the onset;
    ``room``: the room's band energies before it (the median); ``before``: the hop before the onset
    over the room (see :func:`over_room`); ``flatness``: the spectral flatness of its first hop;
    ``samples``: its audio from the onset on.

    Levels are over the room's own, band by band, so that a knock is measured by what it adds to
    the room: in babble the treble, which talk hardly has, carries a rap best."""
    over = hops / np.maximum(room, FLOOR)
    level = over.mean(axis=1)  # each band weighs alike
    peak = float(level[PEAK_HOPS].max())
    peak_db = _db(peak)
    rises = [_db(float(v)) for v in over[PEAK_HOPS].max(axis=0)]
    rise = max(rises)
    treble = hops[:, 3:].sum(axis=1)
    return (
        min(rise, MAX_RISE_DB),
        *(max(r - rise, -MAX_RISE_DB) for r in rises),  # the rap's spectrum: where it rose most, where least
        min(_db(float(level[0])) - _db(before), MAX_RISE_DB),
        _db(float(level[PEAK_HOPS.stop :].max())) - peak_db,  # speech goes on as loud (a vowel after a "p")
        _db(float(level[GONE_HOPS].mean())) - peak_db,
        float(np.sum(level >= peak / 4)),  # hops within 6 dB of the rap: a rap is short
        flatness,
        _db(float(treble[FALL_HOPS].mean())) - _db(float(treble[PEAK_HOPS].mean())),
        voicing(samples[PEAK_HOPS.stop * HOP :]),
        *(
            max(_db(float(v)) - _db(float(p)), -40.0)  # how far each band has fallen from its own peak
            for span in DECAY_HOPS
            for v, p in zip(over[span].mean(axis=0), over[PEAK_HOPS].max(axis=0), strict=True)
        ),
    )


def over_room(bands: npt.NDArray[np.float64], room: npt.NDArray[np.float64]) -> float:
    """A hop's level over the room's, each band weighing alike (1: the room itself)."""
    return float((bands / np.maximum(room, FLOOR)).mean())


class KnockDetector:
    """Feed it audio as it comes; :meth:`feed` returns the first knock heard (see the module)."""

    def __init__(self, model: KnockModel | None = None, *, judge: bool = True, keep_raw: bool = False) -> None:
        self.model = model if model is not None or not judge else shipped_model()
        self.candidates: list[Candidate] = []  # every candidate so far (kept for measuring)
        # For training: each candidate's event_features() arguments, so that features can be tried anew.
        self.raw: list[tuple[Any, ...]] | None = [] if keep_raw else None
        self._tail = np.zeros(FFT_SIZE - HOP)
        self._pending = np.zeros(0)
        self._hops_done = 0
        self._offset_s = 0.0  # audio skipped (muted), which the hop count does not include
        self._history: deque[npt.NDArray[np.float64]] = deque(maxlen=HISTORY_HOPS)
        self._room = np.zeros(len(BAND_EDGES_HZ) - 1)
        self._last = 1.0  # the last hop over the room
        self._event: list[npt.NDArray[np.float64]] | None = None
        self._event_start = 0.0
        self._event_room = self._room
        self._event_before = 0.0
        self._event_flatness = 0.0
        self._event_samples: list[npt.NDArray[np.float64]] = []
        self._window_hops = round(WINDOW_S * SAMPLE_RATE / HOP)

    @property
    def audio_s(self) -> float:
        return self._offset_s + self._hops_done * HOP / SAMPLE_RATE

    def skip(self, seconds: float) -> None:
        """Audio that was not heard (muted while the narrator spoke): the room is learnt afresh."""
        self._offset_s += seconds + len(self._pending) / SAMPLE_RATE
        self._pending = np.zeros(0)
        self._tail = np.zeros(FFT_SIZE - HOP)
        self._history.clear()
        self._event = None

    def feed(self, pcm: bytes | Pcm16) -> Candidate | None:
        """Take more audio; the candidate that makes a knock, once one is heard (else None)."""
        samples = np.frombuffer(pcm, dtype=np.int16) if isinstance(pcm, bytes) else pcm
        self._pending = np.concatenate([self._pending, samples.astype(np.float64)])
        count = len(self._pending) // HOP
        if not count:
            return None
        stream = np.concatenate([self._tail, self._pending[: count * HOP]])
        self._pending = self._pending[count * HOP :]
        self._tail = stream[len(stream) - (FFT_SIZE - HOP) :]
        frames = np.lib.stride_tricks.sliding_window_view(stream, FFT_SIZE)[::HOP]
        spectra = np.abs(np.fft.rfft(frames * _WINDOW, axis=1)) ** 2 / FFT_SIZE
        bands = spectra @ _BANDS.T
        heard = None
        for hop in range(count):
            found = self._hop(bands[hop], spectra[hop], frames[hop][FFT_SIZE - HOP :])
            if found is not None and heard is None and self._is_knock(found):
                heard = found
        return heard

    def _hop(
        self, bands: npt.NDArray[np.float64], spectrum: npt.NDArray[np.float64], samples: npt.NDArray[np.float64]
    ) -> Candidate | None:
        self._hops_done += 1
        if self._event is not None:
            self._event.append(bands)
            self._event_samples.append(samples)
            return self._close_event() if len(self._event) >= self._window_hops else None
        level = over_room(bands, self._room) if len(self._history) >= MIN_HISTORY_HOPS else 1.0
        if _db(level) >= ONSET_DB and _db(level) - _db(self._last) >= STEP_DB:
            self._event = [bands]
            self._event_samples = [samples]
            self._event_start = self.audio_s - HOP / SAMPLE_RATE
            self._event_room = self._room
            self._event_before = self._last
            bins = spectrum[_FLAT_BINS] + FLOOR
            self._event_flatness = float(np.exp(np.mean(np.log(bins))) / np.mean(bins))
            self._last = level
            return None
        self._last = level
        self._history.append(bands)
        if self._hops_done % 4 == 0 or len(self._history) <= MIN_HISTORY_HOPS:
            self._room = np.median(np.array(self._history), axis=0)
        return None

    def _close_event(self) -> Candidate:
        assert self._event is not None
        hops = np.array(self._event)
        raw = (hops, self._event_room, self._event_before, self._event_flatness, np.concatenate(self._event_samples))
        features = event_features(*raw)
        if self.raw is not None:
            self.raw.append(raw)
        self._event = None
        self._last = over_room(hops[-1], self._room)
        self._history.extend(hops)  # a long sound becomes the room
        probability = self.model.probability(features) if self.model is not None else 0.0
        candidate = Candidate(self._event_start, self.audio_s, features, probability)
        self.candidates.append(candidate)
        return candidate

    def _is_knock(self, candidate: Candidate) -> bool:
        model = self.model
        if model is None:
            return False
        if candidate.probability >= model.threshold:
            return True
        if candidate.probability < model.pair_threshold:
            return False
        return any(
            PAIR_S[0] <= candidate.at - earlier.at <= PAIR_S[1] and earlier.probability >= model.pair_threshold
            for earlier in self.candidates[:-1]
        )


def candidates_in(samples: Pcm16, model: KnockModel | None = None, *, judge: bool = True) -> list[Candidate]:
    """Every candidate in a recording, for measuring and training (``judge=False``: no probabilities)."""
    detector = KnockDetector(model, judge=judge)
    detector.feed(samples)
    return detector.candidates
