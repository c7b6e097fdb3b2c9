"""The judge's learned decision: how likely each candidate is to be what was said.

The judge scores every candidate against the audio (:mod:`voice_earl.listening.judge.whisper`);
from those scores this module makes a few features per candidate (its mean log-probability, its
gain over a quiet room, its lead over every other candidate, whether the first pass heard it, its
rank slot, its full stop, the free transcript, the voice's fall after it...) and weighs them with a
logistic regression (a ``StandardScaler`` and a ``LogisticRegression``, as openWakeWord's custom
verifier does), one for the lines and one for the short phrases. The numbers ship in
``voice_earl/data/verifier.json``, with what they were trained on and when; ``scripts/train_verifier.py``
trains them on the golden corpus (``tests/data/judge_corpus.npz``). Here they are only a weighted sum:
no scikit-learn, and not even numpy.

The rules around it, each named, are in ``docs/listening.md``.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from voice_earl.listening.judge.candidates import Candidate, Heard, Kind, heard_as
from voice_earl.listening.judge.settings import VERIFIER_FILE
from voice_earl.words.text import normalise

if TYPE_CHECKING:
    from voice_earl.listening.judge.scores import Scored, Slot

MODEL_FILE = VERIFIER_FILE  # the same file holds the operating points the settings read


# The features of each model, in the order of its numbers. A feature a model does not use is left out.
LINE_FEATURES = (
    "mean",
    "gain",
    "lead",
    "agree",
    "wrong",
    "rankless",
    "rankless_gain",
    "slot_lead",
    "slot_margin",
    "loud",
    "drop",
    "back",
    "seconds_per_token",
)
SHORT_FEATURES = (
    "mean",
    "gain",
    "lead",
    "agree",
    "stop",
    "free_margin",
    "goes_on",
    "says_it",
    "command",
    "loud",
    "drop",
    "back",
    "seconds",
)
# Where a feature's value is cut off: beyond these it says nothing more (and an infinite one is finite).
# A lead of more than one unit per token over every other candidate is no more evidence that it was
# said: in talk, one unlikely line may lead others even less likely.
CLIP = {
    "gain": (-4.0, 6.0),
    "lead": (-2.0, 1.0),
    "slot_lead": (0.0, 10.0),
    "slot_margin": (-10.0, 10.0),
    "stop": (-10.0, 0.0),
    "free_margin": (-6.0, 6.0),
    "drop": (0.0, 30.0),
    "back": (-30.0, 10.0),
    "seconds_per_token": (0.0, 1.0),
    "seconds": (0.0, 3.0),
}
# A voice after which no audio came yet: counted as neither back nor away.
NO_AUDIO_AFTER_DB = -10.0


@dataclass(frozen=True)
class Look:
    """What one look of the judge gives the features: every candidate's scores and the turn."""

    scored: Sequence[Scored]
    slots: Mapping[Candidate, Slot]
    first_pass: str
    due_position: int | None
    loud_room: bool

    @functools.cached_property
    def _two_best(self) -> tuple[tuple[str, float], tuple[str, float]]:
        """The two likeliest phrases (by the mean of their likeliest candidate), with their means."""
        best: dict[str, float] = {}
        for item in self.scored:
            phrase = item.candidate.phrase
            best[phrase] = max(best.get(phrase, -math.inf), item.mean)
        ranked = sorted(best.items(), key=lambda pair: pair[1], reverse=True)
        nothing = ("", -math.inf)
        return (ranked[0] if ranked else nothing), (ranked[1] if len(ranked) > 1 else nothing)

    def best_other(self, phrase: str) -> float:
        """The mean of the likeliest candidate that says something else than ``phrase``."""
        first, second = self._two_best
        return second[1] if first[0] == phrase else first[1]


def features(item: Scored, look: Look, free: tuple[str, float] | None = None) -> dict[str, float]:
    """One candidate's features on a look. ``free``: the free transcript's text and mean, for a short
    phrase (without it, the features that need it are left out)."""
    candidate, mean = item.candidate, item.mean
    drop, back = item.voice_drop_db, item.voice_back_db
    seconds = max(0.0, item.end_s - item.start_s)
    gain = _clip("gain", item.gain)
    values = {
        "mean": mean,
        "gain": gain,
        "lead": _clip("lead", mean - look.best_other(candidate.phrase)),
        "agree": float(bool(look.first_pass) and look.first_pass == candidate.phrase),
        "loud": float(look.loud_room),
        "drop": _clip("drop", 0.0 if drop is None else drop),
        "back": _clip("back", NO_AUDIO_AFTER_DB if back is None or drop is None else back),
        "seconds": _clip("seconds", seconds),
        "seconds_per_token": _clip("seconds_per_token", seconds / max(item.tokens, 1)),
    }
    if candidate.kind is Kind.LINE:
        slot = look.slots.get(candidate)
        due = slot is None or slot.due
        values.update(
            wrong=float(heard_as(candidate, due, look.due_position) is Heard.WRONG),
            rankless=float(candidate.rankless),
            # A line that names no rank is likely English for its words alone: its gain says more.
            rankless_gain=gain if candidate.rankless else 0.0,
            slot_lead=_clip("slot_lead", 10.0 if slot is None else slot.lead),
            slot_margin=_clip("slot_margin", -10.0 if slot is None else slot.margin),
        )
    else:
        values.update(stop=_clip("stop", item.last_logprob), command=float(candidate.kind is Kind.COMMAND))
        if free is not None:
            sayings = tuple(o.candidate.text for o in look.scored if o.candidate.kind is candidate.kind)
            values.update(
                goes_on=float(goes_on(sayings, free[0])),
                # Whisper, free to write anything, begins with a wording of it: a look at the first
                # half second of talk finds "Pass." likely, but writes " as" or " I will".
                says_it=float(says_it(sayings, free[0])),
                free_margin=_clip("free_margin", mean - free[1]),
            )
    return values


def _clip(name: str, value: float) -> float:
    low, high = CLIP[name]
    return low if value < low else high if value > high else value


@functools.lru_cache(maxsize=256)
def goes_on(sayings: tuple[str, ...], transcript: str) -> bool:
    """Whether ``transcript`` starts with one of ``sayings`` and then says more than them.

    >>> sayings = (" Pass.", " I pass.", " Pass, please.")
    >>> goes_on(sayings, " Pass it to the left."), goes_on(sayings, " Pass me the..."), goes_on(sayings, " Yes.")
    (True, True, False)
    >>> goes_on(sayings, " Pass. Pass."), goes_on(sayings, " Pass, please."), goes_on(sayings, " I pass.")
    (False, False, False)
    """
    wordings = sorted((normalise(saying).split() for saying in sayings), key=len, reverse=True)
    rest = normalise(transcript).split()
    began = False
    while rest:
        wording = next((w for w in wordings if w and rest[: len(w)] == w), None)
        if wording is None:
            return began
        began, rest = True, rest[len(wording) :]
    return False


@functools.lru_cache(maxsize=256)
def says_it(sayings: tuple[str, ...], transcript: str) -> bool:
    """Whether ``transcript`` begins with one of ``sayings`` (whatever follows).

    >>> sayings = (" Pass.", " I pass.", " Pass, please.")
    >>> says_it(sayings, " Pass it on."), says_it(sayings, " I pass."), says_it(sayings, " as"), says_it(sayings, "")
    (True, True, False, False)
    """
    rest = normalise(transcript).split()
    return any(wording and rest[: len(wording)] == wording for wording in (normalise(s).split() for s in sayings))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-min(max(z, -50.0), 50.0)))


@dataclass(frozen=True)
class Model:
    """A standard scaler and a logistic regression over named features."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    def probability(self, values: Mapping[str, float]) -> float:
        return _sigmoid(self._bias + sum(weight * values[name] for name, weight in self._weights))

    def bounds(self, values: Mapping[str, float], unknown: Mapping[str, tuple[float, float]]) -> tuple[float, float]:
        """The lowest and the highest probability over the ``unknown`` features' ranges (the rest as given)."""
        z, low, high = self._bias, 0.0, 0.0
        for name, weight in self._weights:
            if name in unknown:
                ends = (weight * unknown[name][0], weight * unknown[name][1])
                low, high = low + min(ends), high + max(ends)
            else:
                z += weight * values[name]
        return _sigmoid(z + low), _sigmoid(z + high)

    @functools.cached_property
    def _weights(self) -> tuple[tuple[str, float], ...]:
        """The regression on the features as they come (the scaler folded in)."""
        return tuple((name, c / s) for name, c, s in zip(self.features, self.coef, self.scale, strict=True))

    @functools.cached_property
    def _bias(self) -> float:
        return self.intercept - sum(c * m / s for c, m, s in zip(self.coef, self.mean, self.scale, strict=True))

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Model:
        def numbers(key: str) -> tuple[float, ...]:
            values = data[key]
            assert isinstance(values, list)
            return tuple(float(v) for v in values)

        names = data["features"]
        assert isinstance(names, list)
        intercept = data["intercept"]
        assert isinstance(intercept, (int, float))
        return cls(tuple(str(n) for n in names), numbers("mean"), numbers("scale"), numbers("coef"), float(intercept))


@dataclass(frozen=True)
class Verifier:
    """The two models, and the operating point chosen for each kind of verdict."""

    line: Model
    short: Model
    points: Mapping[str, float]  # Heard.value -> the probability above which it is heard
    trained: str  # what it was trained on, and when

    def model(self, candidate: Candidate) -> Model:
        return self.line if candidate.kind is Kind.LINE else self.short


def free_ranges() -> dict[str, tuple[float, float]]:
    """The features that need the free transcript, and every value they can take."""
    return {"free_margin": CLIP["free_margin"], "goes_on": (0.0, 1.0), "says_it": (0.0, 1.0)}


@functools.cache
def load_verifier(path: Path = MODEL_FILE) -> Verifier:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Verifier(
        Model.from_json(data["line"]),
        Model.from_json(data["short"]),
        {str(k): float(v) for k, v in data["operating_points"].items()},
        f"{data['trained_on']} ({data['trained_at']})",
    )
