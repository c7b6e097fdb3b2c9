"""A knock on the table: one or two sharp raps of the knuckles, heard as a pass.

The parlour rules let a player without the rank pass by tapping the table (Gameplay 2). A knock is
a short, sharp sound: it rises out of the room within a few milliseconds, and within a tenth of a
second it is gone again. Speech does not go away (a "p" or a "k" is followed by a vowel), a clap is
brighter, a glass rings on, a card laid down is soft. :class:`KnockDetector` is fed the same audio
as the listener, cut into 5 ms hops. Each sudden rise is a candidate:

1. *onset*: a hop at least ``ONSET_DB`` louder than the room's median over the last 300 ms (each
   of five bands over the room's own level in it, weighed alike), or its treble (2-8 kHz) alone
   ``TREBLE_ONSET_DB`` over the room's treble, and ``STEP_DB`` louder than the last hops. A rap
   is broadband and reaches far above 4 kHz, where babble has little: in a loud room its treble
   stands out where the whole spectrum does not. Candidates may overlap, so that a murmur that
   rose just before a rap does not hide it;
2. *features*: ``WINDOW_S`` of audio from there on, and the 40 ms before it, give the numbers of
   :data:`~voice_earl.listening.stream.knock_features.FEATURES` (how far it rose, and where in the
   spectrum; whether anything after it is as loud; how fast each band falls; how flat its
   spectrum is; whether a voice's pitch follows; on 1 ms frames, how fast its treble rose and
   fell), see :mod:`~voice_earl.listening.stream.knock_features`;
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
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from importlib.resources import files
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16
from voice_earl.listening.stream.knock_features import FEATURES, FLOOR, HOP, PRE_HOPS, db, event_features

__all__ = ["FEATURES", "Candidate", "KnockDetector", "KnockModel", "candidates_in", "event_features", "shipped_model"]

FFT_SIZE = 256  # 16 ms of audio under each hop's spectrum
BAND_EDGES_HZ = (60, 300, 800, 2000, 4000, 8001)
TREBLE_BANDS = slice(3, 5)  # 2-8 kHz: where a rap stands out of talk
HISTORY_HOPS = 60  # the room's level: the median over the last 300 ms
MIN_HISTORY_HOPS = 20  # ... and over at least 100 ms of it before a rise counts
ONSET_DB = 6.0
TREBLE_ONSET_DB = 9.0  # ... or the treble alone this much over the room's treble
STEP_DB = 3.0
STEP_HOPS = 3  # ... over the loudest of the last three hops
REFRACTORY_HOPS = 6  # no new onset within 30 ms of the last: one rap rises over several hops
WINDOW_S = 0.12  # the audio after an onset that decides (the verdict comes this long after the rap)
PAIR_S = (0.08, 0.7)  # a second rap this long after the first makes a double knock


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


def over_room(bands: npt.NDArray[np.float64], room: npt.NDArray[np.float64]) -> float:
    """A hop's level over the room's, each band weighing alike (1: the room itself)."""
    return float((bands / np.maximum(room, FLOOR)).mean())


@dataclass
class _Event:
    """A candidate being heard: its window fills hop by hop."""

    hop: int  # the hop it rose in
    start: float
    room: npt.NDArray[np.float64]
    before: float
    flatness: float
    pre: npt.NDArray[np.float64]
    hops: list[npt.NDArray[np.float64]] = field(default_factory=list)
    samples: list[npt.NDArray[np.float64]] = field(default_factory=list)


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
        self._held: deque[tuple[int, npt.NDArray[np.float64]]] = deque()  # hops under an open window
        self._recent: deque[npt.NDArray[np.float64]] = deque(maxlen=PRE_HOPS)  # the audio before a rise
        self._room = np.zeros(len(BAND_EDGES_HZ) - 1)
        self._levels: deque[tuple[float, float]] = deque([(1.0, 1.0)], maxlen=STEP_HOPS)  # the last hops
        self._since_onset = REFRACTORY_HOPS
        self._events: list[_Event] = []
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
        self._held.clear()
        self._recent.clear()
        self._events = []

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
            for found in self._hop(bands[hop], spectra[hop], frames[hop][FFT_SIZE - HOP :]):
                if heard is None and self._is_knock(found):
                    heard = found
        return heard

    def _hop(
        self, bands: npt.NDArray[np.float64], spectrum: npt.NDArray[np.float64], samples: npt.NDArray[np.float64]
    ) -> list[Candidate]:
        """One hop: the windows it fills, and a new one if it rises out of the room. Windows may overlap,
        so that a murmur that rose just before a rap does not hide it."""
        self._hops_done += 1
        self._since_onset += 1
        for event in self._events:
            event.hops.append(bands)
            event.samples.append(samples)
        closed = [self._close(e) for e in self._events if len(e.hops) >= self._window_hops]
        self._events = [e for e in self._events if len(e.hops) < self._window_hops]
        heard_room = len(self._history) >= MIN_HISTORY_HOPS
        level = over_room(bands, self._room) if heard_room else 1.0
        treble = over_room(bands[TREBLE_BANDS], self._room[TREBLE_BANDS]) if heard_room else 1.0
        last = max(v for v, _ in self._levels)
        last_treble = max(t for _, t in self._levels)
        rose = db(level) >= ONSET_DB and db(level) - db(last) >= STEP_DB
        treble_rose = db(treble) >= TREBLE_ONSET_DB and db(treble) - db(last_treble) >= STEP_DB
        if (rose or treble_rose) and self._since_onset >= REFRACTORY_HOPS:
            self._since_onset = 0
            bins = spectrum[_FLAT_BINS] + FLOOR
            flatness = float(np.exp(np.mean(np.log(bins))) / np.mean(bins))
            pre = np.concatenate(list(self._recent)) if self._recent else np.zeros(0)
            start = self.audio_s - HOP / SAMPLE_RATE
            event = _Event(self._hops_done, start, self._room, self._levels[-1][0], flatness, pre, [bands], [samples])
            self._events.append(event)
        self._levels.append((level, treble))
        self._recent.append(samples)
        self._held.append((self._hops_done, bands))
        # A hop becomes the room's once every window it lies in has closed: a rap does not raise the
        # room it is measured against.
        first_open = min((e.hop for e in self._events), default=self._hops_done + 1)
        while self._held and self._held[0][0] < first_open:
            self._history.append(self._held.popleft()[1])
        if self._history and (self._hops_done % 4 == 0 or len(self._history) <= MIN_HISTORY_HOPS):
            self._room = np.median(np.array(self._history), axis=0)
        return closed

    def _close(self, event: _Event) -> Candidate:
        raw = (
            np.array(event.hops),
            event.room,
            event.before,
            event.flatness,
            np.concatenate(event.samples),
            event.pre,
        )
        features = event_features(*raw)
        if self.raw is not None:
            self.raw.append(raw)
        probability = self.model.probability(features) if self.model is not None else 0.0
        decided_at = event.start + len(event.hops) * HOP / SAMPLE_RATE
        candidate = Candidate(event.start, decided_at, features, probability)
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
