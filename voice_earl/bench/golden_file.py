"""The judge's golden corpora as files: one compressed file of columns, a row per trial and a row
per candidate, that a decision is replayed on in a second (:mod:`voice_earl.bench.golden_corpus`
makes them; tests/data/README.md says what each holds)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from voice_earl.bench.corpus import Trial, commands_context
from voice_earl.game.cards import Rank
from voice_earl.listening.judge.candidates import Candidate, Kind
from voice_earl.listening.judge.decision import JudgeResult, Scored, Slot, Transcript

if TYPE_CHECKING:
    from voice_earl.bench.looks import Looked

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "judge_corpus.npz"  # in the repository
# The same trials as a phone held to the mouth hears them (bench_listening.py --close-mic): each room
# 10 dB quieter against the voice, each recording cut where the button is held, judged whole once.
HELD_CORPUS = CORPUS.with_name("held_corpus.npz")
HELD_CONDITIONS = ("clean", "babble 6 dB", "cafe 6 dB")
# Every look the real listener asked the judge for, at the train and points voices' trials
# (voice_earl/bench/looks.py): a row per look, with where it ends against the trial's true end.
LOOKS_CORPUS = CORPUS.with_name("looks_corpus.npz")
BASE_JUDGE, TRAINED_JUDGE = "tiny.en", "tiny.en-earl"  # which judge scored a corpus
# The shipped trained judge's scores on 300 stretches of the cafe's talk alone, as the listener looks at a room
# where no one speaks to it (voice_earl/bench/room_alone.py; ``judge_corpus.py --patch`` keeps them for a patch
# and for the shipped judge): a decision is replayed on them as on the corpus.
ROOM_ALONE_CORPUS = CORPUS.with_name("room_alone_earl.npz")


def corpus_file(base: Path, judge: str) -> Path:
    """The corpus ``base`` as ``judge`` scored it: the trained judge's scores are on another scale, so
    it has corpora of its own (``judge_corpus_earl.npz``)."""
    return base if judge == BASE_JUDGE else base.with_name(f"{base.stem}_earl{base.suffix}")


TRAINED_CORPUS = corpus_file(CORPUS, TRAINED_JUDGE)
TRAINED_HELD_CORPUS = corpus_file(HELD_CORPUS, TRAINED_JUDGE)


def judge_of(path: Path) -> str:
    """Which judge scored the corpus in ``path`` (a corpus that does not say: tiny.en's)."""
    with np.load(path) as data:
        return str(data["judge"]) if "judge" in data.files else BASE_JUDGE


@dataclass(frozen=True)
class Case:
    """One trial in one condition: what was said, and what the judge scored."""

    condition: str
    group: str  # the voice ("espeak-ng:en-us@150"), or the recording ("human:...", "room:...")
    expect: str  # an Expect
    text: str
    context: Any  # ListenContext
    result: JudgeResult  # the judge's scores (its phrase is not kept: a decision replays them)
    held: bool = False  # held to a phone (Hold to speak): the whole of the hold, marked by the speaker

    @property
    def trial(self) -> Trial:
        return Trial(self.text, self.context, self.expect, None)


def group_of(trial: Trial) -> str:
    if trial.voice is not None:
        return f"{trial.voice.label}+{trial.voice.pitch}"
    return f"{trial.expect}:{trial.text}"


def _strings(columns: dict[str, np.ndarray], name: str, values: Sequence[str]) -> None:
    """A column of strings as indices into its distinct values (they repeat: it compresses)."""
    distinct = sorted(set(values))
    index = {value: number for number, value in enumerate(distinct)}
    columns[name] = np.array([index[v] for v in values], dtype=np.int32)
    columns[f"{name}__values"] = np.array(distinct, dtype=str)


def _read_strings(data: Any, name: str) -> list[str]:
    values = [str(v) for v in data[f"{name}__values"]]
    return [values[i] for i in data[name]]


# Numbers are kept to a hundredth (a log-probability, a decibel, ten milliseconds), as whole numbers:
# they compress to a third of floats'. These stand for what is no number.
HUNDREDTHS = 100
NOT_KNOWN, ABOVE_ALL, BELOW_ALL = -(2**31), 2**31 - 1, -(2**31) + 1


def _fixed(values: Sequence[float]) -> np.ndarray:
    numbers = np.array(values, dtype=np.float64)
    kept = np.round(np.nan_to_num(numbers, nan=0.0, posinf=0.0, neginf=0.0) * HUNDREDTHS).astype(np.int32)
    kept[np.isnan(numbers)] = NOT_KNOWN
    kept[np.isposinf(numbers)] = ABOVE_ALL
    kept[np.isneginf(numbers)] = BELOW_ALL
    return kept


def _unfixed(kept: np.ndarray) -> list[float]:
    numbers = kept.astype(np.float64) / HUNDREDTHS
    numbers[kept == NOT_KNOWN] = np.nan
    numbers[kept == ABOVE_ALL] = np.inf
    numbers[kept == BELOW_ALL] = -np.inf
    return [float(v) for v in numbers]


FIXED = (
    "free_mean",
    "logprob",
    "quiet_logprob",
    "last_logprob",
    "voice_drop_db",
    "voice_back_db",
    "end_s",
    "start_s",
    "slot_logprob",
    "slot_margin",
    "slot_lead",
    "slot_over_due",
)


def _optional(value: float | None) -> float:
    return float("nan") if value is None else value


def write_corpus(
    results: dict[str, list[tuple[Trial, JudgeResult]]],
    path: Path,
    held: bool = False,
    extra: Mapping[str, np.ndarray] | None = None,
    judge: str = BASE_JUDGE,
) -> int:
    """The kept results as one compressed file of columns: a row per trial, and a row per candidate
    (and the ``extra`` columns as given); ``held``: every trial held to a phone."""
    trial_rows = [(condition, trial, result) for condition, kept in results.items() for trial, result in kept]
    rows = [
        (number, item, result.slots.get(item.candidate))
        for number, (_, _, result) in enumerate(trial_rows)
        for item in result.scored
    ]
    columns: dict[str, np.ndarray] = {}
    for name, values in (
        ("condition", [c for c, _, _ in trial_rows]),
        ("group", [group_of(t) for _, t, _ in trial_rows]),
        ("expect", [t.expect for _, t, _ in trial_rows]),
        ("text", [t.text for _, t, _ in trial_rows]),
        ("ranks", [",".join(r.value for r in t.context.ranks) for _, t, _ in trial_rows]),
        ("first_pass", [r.first_pass for _, _, r in trial_rows]),
        ("free_text", [r.free.text if r.free else "" for _, _, r in trial_rows]),
        ("kind", [item.candidate.kind.value for _, item, _ in rows]),
        ("candidate", [item.candidate.text for _, item, _ in rows]),
        ("phrase", [item.candidate.phrase for _, item, _ in rows]),
        ("slot_before", [s.before if s else "" for _, _, s in rows]),
        ("slot_spelling", [s.spelling if s else "" for _, _, s in rows]),
        ("slot_other_word", [s.other_word if s else "" for _, _, s in rows]),
        ("slot_rank", [s.rank.value if s else "" for _, _, s in rows]),
    ):
        _strings(columns, name, values)
    columns["position"] = np.array([t.context.position for _, t, _ in trial_rows], dtype=np.int8)
    columns["free_mean"] = _fixed([r.free.mean if r.free else np.nan for _, _, r in trial_rows])
    columns["loud_room"] = np.array([r.loud_room for _, _, r in trial_rows], dtype=bool)
    columns["trial"] = np.array([n for n, _, _ in rows], dtype=np.int32)
    columns["candidate_position"] = np.array([item.candidate.position or 0 for _, item, _ in rows], dtype=np.int8)
    columns["rankless"] = np.array([item.candidate.rankless for _, item, _ in rows], dtype=bool)
    columns["tokens"] = np.array([item.tokens for _, item, _ in rows], dtype=np.int8)
    for name, getter in (
        ("logprob", lambda item: item.logprob),
        ("quiet_logprob", lambda item: _optional(item.quiet_logprob)),
        ("last_logprob", lambda item: item.last_logprob),
        ("voice_drop_db", lambda item: _optional(item.voice_drop_db)),
        ("voice_back_db", lambda item: _optional(item.voice_back_db)),
        ("end_s", lambda item: item.end_s),
        ("start_s", lambda item: item.start_s),
    ):
        columns[name] = _fixed([getter(item) for _, item, _ in rows])
    columns["has_slot"] = np.array([s is not None for _, _, s in rows], dtype=bool)
    for name in ("logprob", "margin", "lead", "over_due"):
        columns[f"slot_{name}"] = _fixed([getattr(s, name) if s else np.nan for _, _, s in rows])
    columns["slot_place"] = np.array([s.place if s else -1 for _, _, s in rows], dtype=np.int8)
    columns["slot_due"] = np.array([bool(s and s.due) for _, _, s in rows], dtype=bool)
    columns.update(extra or {})
    path.parent.mkdir(parents=True, exist_ok=True)
    columns["held"] = np.array(held)  # every trial held to a phone, or none
    columns["judge"] = np.array(judge)
    np.savez_compressed(path, **columns)  # type: ignore[arg-type]
    return len(trial_rows)


def read_corpus(path: Path = CORPUS) -> list[Case]:
    """The corpus's trials, each with its candidates' scores as the judge gave them."""
    with np.load(path) as data:
        strings = {
            name: _read_strings(data, name)
            for name in (
                "condition",
                "group",
                "expect",
                "text",
                "ranks",
                "first_pass",
                "free_text",
                "kind",
                "candidate",
                "phrase",
                "slot_before",
                "slot_spelling",
                "slot_other_word",
                "slot_rank",
            )
        }
        held = bool(data["held"]) if "held" in data.files else False
        numbers: dict[str, list[Any]] = {
            name: _unfixed(data[name]) if name in FIXED else data[name].tolist()
            for name in data.files
            if not name.endswith("__values") and name not in strings and name not in ("held", "judge")
        }
    by_trial: list[list[tuple[Scored, Slot | None]]] = [[] for _ in strings["condition"]]
    candidate_of = functools.cache(
        lambda kind, text, phrase, position, rankless: Candidate(Kind(kind), text, phrase, position or None, rankless)
    )
    rank_of = {rank.value: rank for rank in Rank}
    columns = zip(
        numbers["trial"],
        strings["kind"],
        strings["candidate"],
        strings["phrase"],
        numbers["candidate_position"],
        numbers["rankless"],
        numbers["logprob"],
        numbers["tokens"],
        numbers["quiet_logprob"],
        numbers["last_logprob"],
        numbers["voice_drop_db"],
        numbers["end_s"],
        numbers["voice_back_db"],
        numbers["start_s"],
        numbers["has_slot"],
        strings["slot_before"],
        strings["slot_spelling"],
        numbers["slot_logprob"],
        strings["slot_other_word"],
        numbers["slot_margin"],
        strings["slot_rank"],
        numbers["slot_place"],
        numbers["slot_lead"],
        numbers["slot_due"],
        numbers["slot_over_due"],
        strict=True,
    )
    for (
        trial,
        kind,
        text,
        phrase,
        position,
        rankless,
        logprob,
        tokens,
        quiet,
        last,
        drop,
        end,
        back,
        start,
        has_slot,
        before,
        spelling,
        slot_logprob,
        other_word,
        margin,
        rank,
        place,
        lead,
        due,
        over_due,
    ) in columns:
        item = Scored(
            candidate_of(kind, text, phrase, position, rankless),
            logprob,
            tokens,
            _known(quiet),
            last,
            _known(drop),
            end,
            _known(back),
            start,
        )
        slot = None
        if has_slot:
            slot = Slot(before, spelling, slot_logprob, other_word, margin, rank_of[rank], place, lead, due, over_due)
        by_trial[trial].append((item, slot))
    cases = []
    for number, candidates in enumerate(by_trial):
        scored = tuple(item for item, _ in candidates)
        slots = {item.candidate: slot for item, slot in candidates if slot is not None}
        free = Transcript(strings["free_text"][number], numbers["free_mean"][number])
        position = numbers["position"][number]
        ranks = tuple(Rank(r) for r in strings["ranks"][number].split(","))
        result = JudgeResult(
            "",
            scored[0],
            0.0,
            scored,
            slots,
            strings["first_pass"][number],
            position,
            free,
            loud_room=numbers["loud_room"][number],
        )
        cases.append(
            Case(
                strings["condition"][number],
                strings["group"][number],
                strings["expect"][number],
                strings["text"][number],
                commands_context(position, ranks),
                result,
                held,
            )
        )
    return cases


def _known(value: float) -> float | None:
    return None if value != value else value  # NaN: not known


@dataclass(frozen=True)
class LookCase:
    """One look of the listener at a trial: the trial's number, which look it was, and where the audio
    it looked at ends against the trial's true end of speech (negative: before it)."""

    case: Case
    trial: int
    look: int
    end_after_s: float
    start_s: float  # where the audio it looked at begins in the trial's recording (the speech: LEAD_IN_S)


@dataclass(frozen=True)
class HeardTrial:
    """A trial the listener heard in a condition (whether or not it looked at it)."""

    condition: str
    trial: int
    group: str
    expect: str


def write_looks(looked: Mapping[str, Mapping[int, Looked]], path: Path) -> int:
    """The listener's looks as one compressed file (the corpus's columns, a row per look), with each
    look's trial, its number among the trial's looks and its end against the true end; and every trial
    heard, looked at or not."""
    results: dict[str, list[tuple[Trial, JudgeResult]]] = {}
    numbers: dict[str, list[float]] = {"look_trial": [], "look_number": [], "look_end_after_s": [], "look_start_s": []}
    heard: list[tuple[str, int, Trial]] = []
    for condition, kept in looked.items():
        results[condition] = []
        for number in sorted(kept):
            item = kept[number]
            heard.append((condition, number, item.trial))
            for look_number, look in enumerate(item.looks):
                results[condition].append((item.trial, look.result))
                numbers["look_trial"].append(number)
                numbers["look_number"].append(look_number)
                numbers["look_end_after_s"].append(look.end_s - item.true_end_s)
                numbers["look_start_s"].append(look.start_s)
    extra: dict[str, np.ndarray] = {
        "look_trial": np.array(numbers["look_trial"], dtype=np.int32),
        "look_number": np.array(numbers["look_number"], dtype=np.int16),
        "look_end_after_s": _fixed(numbers["look_end_after_s"]),
        "look_start_s": _fixed(numbers["look_start_s"]),
        "heard_trial": np.array([n for _, n, _ in heard], dtype=np.int32),
    }
    for name, values in (
        ("heard_condition", [c for c, _, _ in heard]),
        ("heard_group", [group_of(t) for _, _, t in heard]),
        ("heard_expect", [t.expect for _, _, t in heard]),
    ):
        _strings(extra, name, values)
    return write_corpus(results, path, extra=extra)


def read_looks(path: Path = LOOKS_CORPUS) -> tuple[list[LookCase], list[HeardTrial]]:
    """The listener's looks, and every trial heard (see :func:`write_looks`)."""
    cases = read_corpus(path)
    with np.load(path) as data:
        trial, number = data["look_trial"].tolist(), data["look_number"].tolist()
        end_after, start = _unfixed(data["look_end_after_s"]), _unfixed(data["look_start_s"])
        heard = [
            HeardTrial(condition, int(n), group, expect)
            for condition, n, group, expect in zip(
                _read_strings(data, "heard_condition"),
                data["heard_trial"].tolist(),
                _read_strings(data, "heard_group"),
                _read_strings(data, "heard_expect"),
                strict=True,
            )
        ]
    looks = [LookCase(*row) for row in zip(cases, trial, number, end_after, start, strict=True)]
    return looks, heard
