#!/usr/bin/env python3
"""Train the judge's verifier on the golden corpus, choose its operating points, and report.

The corpus (``tests/data/judge_corpus.npz``, see ``scripts/judge_corpus.py``) holds the judge's
scores for every trial of the benchmark's tune split. It is split by voice, never by trial, so that
what is reported is on voices that neither the model nor its operating points have heard:

* **train**: two voices, and a third of the human recordings and of the room's stretches: the
  two logistic regressions (lines; passes and commands) are fitted here, each on the likeliest
  candidate of each kind of verdict in every trial (what the verifier must tell from what was said);
* **points**: two other voices, and another third: the operating point of each kind of verdict
  (line, wrong line or rank, pass, command) is chosen here, on a coarse grid, the one that hears the
  most lines and passes while table talk, real recordings and the room alone move the game at most
  ``--talk`` of the time (0.5%, half the goal of 1%, so that voices not heard keep under it) and
  wrong lines and ranks are accepted at most 1% of the time;
* **report**: the last two voices and the last third, on which the table below is printed.

The benchmark's held-out voices and its party room are in none of them.

    .venv/bin/python scripts/train_verifier.py            # train, choose, report, and write the numbers
    .venv/bin/python scripts/train_verifier.py --dry-run  # ... without writing them

It writes ``voice_earl/data/verifier.json``: the scaler's and the regression's numbers, the operating
points, and what they were trained on and when.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from voice_earl.bench.corpus import VOICES, Expect
from voice_earl.bench.golden_file import (
    BASE_JUDGE,
    CORPUS,
    LOOKS_CORPUS,
    Case,
    HeardTrial,
    LookCase,
    corpus_file,
    judge_of,
    read_corpus,
    read_looks,
)
from voice_earl.bench.golden_replay import (
    POINTS,
    REPORT,
    TALK,
    TRAIN,
    VOICE_PARTS,
    WRONG,
    corpus_settings,
    part_of,
    replay,
    right,
    table,
    tally,
)
from voice_earl.bench.looks_replay import GRID as LOOK_GRID
from voice_earl.bench.looks_replay import (
    Decided,
    by_trial,
    combinations,
    decided_looks,
    label,
    looks_table,
    summed,
    takeable,
)
from voice_earl.listening.judge.candidates import Heard, Kind, heard_as
from voice_earl.listening.judge.decision import Decision, JudgeResult, Scored
from voice_earl.listening.judge.verifier import (
    LINE_FEATURES,
    MODEL_FILE,
    SHORT_FEATURES,
    Look,
    Model,
    Verifier,
    features,
)
from voice_earl.words.text import normalise


def look_of(result: JudgeResult) -> Look:
    return Look(result.scored, result.slots, result.first_pass, result.position, result.loud_room)


@dataclass(frozen=True)
class Rows:
    """One model's training rows: each candidate's features, and whether it is what was said."""

    x: np.ndarray
    y: np.ndarray


def contenders(result: JudgeResult) -> list[Scored]:
    """Of each kind of verdict, the likeliest candidate (by its mean): what the verifier must tell
    apart from what was said (the many candidates far behind teach it nothing)."""
    by_kind: dict[Heard, list[Scored]] = {}
    for item in sorted(result.scored, key=lambda item: item.mean, reverse=True):
        slot = result.slots.get(item.candidate)
        by_kind.setdefault(heard_as(item.candidate, slot is None or slot.due, result.position), []).append(item)
    return [items[0] for items in by_kind.values()]


def rows(cases: Iterable[Case], short: bool) -> Rows:
    names = SHORT_FEATURES if short else LINE_FEATURES
    xs, ys = [], []
    for case in cases:
        result = case.result
        look = look_of(result)
        free = (result.free.text, result.free.mean) if result.free else None
        for item in contenders(result):
            if (item.candidate.kind is not Kind.LINE) != short:
                continue
            said = right(case, item.candidate.phrase)
            if said and case.expect == Expect.PASS and normalise(item.candidate.text) != normalise(case.text):
                continue  # another wording of the pass said: right to hear, but not what the sound holds
            values = features(item, look, free)
            xs.append([values[name] for name in names])
            ys.append(said)
    return Rows(np.array(xs), np.array(ys))


def look_rows(looks: Iterable[LookCase], short: bool) -> Rows:
    """The listener's looks as training rows: on talk every contender is what was not said; on a said
    phrase, a contender that would take something else is too, and the one said is what was said where
    the look covers it (a look cut before the end of the phrase teaches neither)."""
    names = SHORT_FEATURES if short else LINE_FEATURES
    xs, ys = [], []
    for look in looks:
        case, result = look.case, look.case.result
        view = look_of(result)
        free = (result.free.text, result.free.mean) if result.free else None
        for item in contenders(result):
            said = label(look, item.candidate.phrase)
            if (item.candidate.kind is not Kind.LINE) != short or said is None:
                continue
            if said and case.expect == Expect.PASS and normalise(item.candidate.text) != normalise(case.text):
                continue  # another wording of the pass said (as in rows())
            values = features(item, view, free)
            xs.append([values[name] for name in names])
            ys.append(said)
    return Rows(np.array(xs).reshape(len(xs), len(names)), np.array(ys, dtype=bool))


def joined(*parts: Rows) -> Rows:
    return Rows(np.concatenate([p.x for p in parts]), np.concatenate([p.y for p in parts]))


def fit(data: Rows, names: Sequence[str], strength: float) -> Model:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(data.x)
    regression = LogisticRegression(C=strength, max_iter=2000).fit(scaler.transform(data.x), data.y)
    return Model(
        tuple(names),
        tuple(float(v) for v in scaler.mean_),
        tuple(float(v) for v in scaler.scale_),
        tuple(float(v) for v in regression.coef_[0]),
        float(regression.intercept_[0]),
    )


Found = Sequence[tuple[Case, Decision]]


def kind(decision: Decision) -> Heard:
    """What hearing the verifier's likeliest candidate does."""
    assert decision.heard is not None  # decided by the verifier
    return decision.heard


def heard_at(found: Found, points: dict[Heard, float]) -> list[tuple[Case, str]]:
    """What each trial is heard as, with these operating points."""
    return [(case, d.phrase if d.probability >= points[kind(d)] else "") for case, d in found]


# The operating points are looked for on this grid: a coarse one, so that a point is not chosen for
# the one trial of the points voices that lies just under it.
GRID = tuple(round(0.05 * step, 2) for step in range(1, 20))
# What counts, per trial of each kind: heard as said (lines, passes, commands; a wrong line or rank
# heard as wrong), talk that moved the game, a wrong line or rank accepted, said and heard as
# something else that moves the game.
MEASURES = ("line", "pass", "command", "wrong heard", "talk", "wrong", "harm")


def measures(case: Case, phrase: str) -> np.ndarray:
    t = tally([(case, phrase)])
    good = [t.good.get(k, 0) for k in (Expect.CORRECT, Expect.PASS, Expect.COMMAND)]
    return np.array([*good, sum(t.good.get(k, 0) for k in WRONG), t.talk, t.wrong, t.harm], dtype=float)


def choose_points(found: Found, talk_share: float) -> dict[Heard, float]:
    """Each kind's operating point, on a coarse grid: the most lines and passes heard (and commands,
    half as much; a said phrase heard as something else that moves the game costs 3) while talk moves
    the game at most ``talk_share`` of the time and wrong lines and ranks are accepted at most 1%."""
    kinds = list(Heard)
    counts = tally((case, "") for case, _ in found).counts
    said = {
        m: counts.get(e, 0) for m, e in (("line", Expect.CORRECT), ("pass", Expect.PASS), ("command", Expect.COMMAND))
    }
    talk_n = sum(counts.get(k, 0) for k in TALK)
    wrong_n = sum(counts.get(k, 0) for k in WRONG)
    # Each kind's sum of measures for each point of the grid (a trial is decided by its winner's kind).
    sums = np.zeros((len(kinds), len(GRID), len(MEASURES)))
    base = np.zeros(len(MEASURES))
    for case, d in found:
        unheard = measures(case, "")
        base += unheard
        heard = measures(case, d.phrase) - unheard
        k = kinds.index(kind(d))
        sums[k] += np.outer([d.probability >= point for point in GRID], heard)
    total = (
        base
        + sums[0][:, None, None, None]
        + sums[1][None, :, None, None]
        + sums[2][None, None, :, None]
        + sums[3][None, None, None, :]
    )
    index = {m: n for n, m in enumerate(MEASURES)}
    worth = (
        total[..., index["line"]] / max(1, said["line"])
        + total[..., index["pass"]] / max(1, said["pass"])
        + 0.5 * total[..., index["command"]] / max(1, said["command"])
        + 0.25 * total[..., index["wrong heard"]] / max(1, wrong_n)
        - 3 * total[..., index["harm"]] / max(1, sum(said.values()))
    )
    allowed = (total[..., index["talk"]] <= talk_share * talk_n + 1e-9) & (
        total[..., index["wrong"]] <= 0.01 * wrong_n + 1e-9
    )
    best = np.unravel_index(np.argmax(np.where(allowed, worth, -np.inf)), worth.shape)
    return {kind: GRID[int(i)] for kind, i in zip(kinds, best, strict=True)}


def choose_points_over_looks(
    looked: Decided, whole: Found, talk_share: float, heard: Sequence[HeardTrial]
) -> dict[Heard, float]:
    """Each kind's operating point, every combination of GRID tried: a trial of the listener's looks
    is heard as its first look that clears its kind's point (so talk moves the game when any of its
    looks would); a whole recording of the corpus as its one look. The most lines and passes heard
    (as choose_points weighs them) on both, while on each talk moves the game at most ``talk_share``
    of the time and wrong lines and ranks are accepted at most 1%."""
    combos = combinations()
    worth = np.zeros(len(combos))
    allowed = np.ones(len(combos), dtype=bool)
    index = {m: n for n, m in enumerate(MEASURES)}
    sets = (
        (
            [takeable(ds, t.case, measures) for t, ds in looked if t.case is not None],
            Counter(h.expect for h in heard),
        ),
        ([takeable([d], case, measures) for case, d in whole], Counter(case.expect for case, _ in whole)),
    )
    for trials, counts in sets:
        total = summed(trials, combos, len(MEASURES))
        said = {
            m: counts.get(e, 0)
            for m, e in (("line", Expect.CORRECT), ("pass", Expect.PASS), ("command", Expect.COMMAND))
        }
        talk_n = sum(counts.get(k, 0) for k in TALK)
        wrong_n = sum(counts.get(k, 0) for k in WRONG)
        worth += (
            total[:, index["line"]] / max(1, said["line"])
            + total[:, index["pass"]] / max(1, said["pass"])
            + 0.5 * total[:, index["command"]] / max(1, said["command"])
            + 0.25 * total[:, index["wrong heard"]] / max(1, wrong_n)
            - 3 * total[:, index["harm"]] / max(1, sum(said.values()))
        )
        allowed &= (total[:, index["talk"]] <= talk_share * talk_n + 1e-9) & (
            total[:, index["wrong"]] <= 0.01 * wrong_n + 1e-9
        )
    if not allowed.any():
        raise SystemExit("no operating points keep talk and wrong lines under their bars")
    best = combos[int(np.argmax(np.where(allowed, worth, -np.inf)))]
    return {kind: LOOK_GRID[int(i)] for kind, i in zip(Heard, best, strict=True)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--looks",
        type=Path,
        help="the listener's looks (scripts/judge_corpus.py --looks): trained on too, and the points chosen "
        "so that a trial moves the game when any of its looks would ('none': the whole recordings alone; "
        "default: the looks the corpus's judge took, when there are any)",
    )
    parser.add_argument(
        "--talk",
        type=float,
        default=0.005,
        help="the share of talk allowed to move the game on the points voices (half the 1%% goal, "
        "so that voices not heard keep under it)",
    )
    parser.add_argument("--strength", type=float, default=1.0, help="the regressions' C (inverse regularisation)")
    parser.add_argument(
        "--through-listener",
        nargs="*",
        metavar="CONDITION",
        help="then lower each kind's point as far as it goes with the real listener run over the points voices "
        "in these conditions (default: clean, babble 12 and 6 dB, cafe 6 dB), Whisper's scores remembered "
        "(voice_earl/bench/listened_points.py; the first run takes about half an hour a condition on 2 cores)",
    )
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument(
        "--out",
        type=Path,
        help=f"where the numbers go (default: {MODEL_FILE.name}, tiny.en's verifier, which only tiny.en's "
        "corpus may write: another judge's verifier is written only where asked)",
    )
    args = parser.parse_args()
    if judge_of(args.corpus) != BASE_JUDGE and args.out is None and not args.dry_run:
        parser.error(f"{args.corpus.name} was scored by the {judge_of(args.corpus)} judge: give --out or --dry-run")
    if args.looks is None:
        own = corpus_file(LOOKS_CORPUS, judge_of(args.corpus))
        args.looks = own if own.exists() else Path("none")
    cases = read_corpus(args.corpus)
    parts = {part: [c for c in cases if part_of(c.group) == part] for part in (TRAIN, POINTS, REPORT)}
    print(", ".join(f"{part}: {len(found)} trials" for part, found in parts.items()))
    looks, heard = read_looks(args.looks) if str(args.looks) != "none" else ([], [])
    look_parts = {part: [look for look in looks if part_of(look.case.group) == part] for part in (TRAIN, POINTS)}
    heard_parts = {part: [h for h in heard if part_of(h.group) == part] for part in (TRAIN, POINTS)}
    if looks:
        print(
            ", ".join(
                f"looks {part}: {len(found)} at {len(heard_parts[part])} trials" for part, found in look_parts.items()
            )
        )
    line = fit(
        joined(rows(parts[TRAIN], short=False), look_rows(look_parts[TRAIN], short=False)), LINE_FEATURES, args.strength
    )
    short = fit(
        joined(rows(parts[TRAIN], short=True), look_rows(look_parts[TRAIN], short=True)), SHORT_FEATURES, args.strength
    )
    for name, model in (("lines", line), ("passes and commands", short)):
        print(
            f"  {name}: "
            + ", ".join(f"{n} {c / s:+.2f}" for n, c, s in zip(model.features, model.coef, model.scale, strict=True))
        )
    verifier = Verifier(line, short, {}, "")
    fitted = corpus_settings(args.corpus)  # the numbers both decisions share, as the corpus's judge ships them
    unbarred = replace(fitted, line_point=0.0, wrong_point=0.0, pass_point=0.0, command_point=0.0)
    whole = replay(parts[POINTS], unbarred, verifier, exact=True)
    if looks:
        trials = by_trial(look_parts[POINTS], heard_parts[POINTS])
        looked = decided_looks(trials, unbarred, verifier, exact=True)
        points = choose_points_over_looks(looked, whole, args.talk, heard_parts[POINTS])
    else:
        points = choose_points(whole, args.talk)
    print("operating points: " + ", ".join(f"{kind.value} {value:.3f}" for kind, value in points.items()))
    if args.through_listener is not None:
        points = through_listener(verifier, points, args.through_listener or LISTENED_CONDITIONS, args.talk)
    print("\nthe whole recordings of the report voices:")
    print("\n".join(table(heard_at(replay(parts[REPORT], unbarred, verifier, exact=True), points))))
    if looks:
        shipped = fitted
        print("\nthe listener's looks at the points voices' trials (a trial: its first look taken), the rules:")
        print("\n".join(looks_table(decided_looks(trials, shipped), None)))
        print("... the shipped verifier:")
        print("\n".join(looks_table(decided_looks(trials, replace(shipped, verifier=True)), shipped.point)))
        print("... the verifier trained now:")
        print("\n".join(looks_table(looked, points.__getitem__)))
    if not args.dry_run:
        write(line, short, points, args, cases, len(looks))
    return 0


LISTENED_CONDITIONS = ("clean", "babble 12 dB", "babble 6 dB", "cafe 6 dB")


def through_listener(
    verifier: Verifier, start: dict[Heard, float], conditions: Sequence[str], talk: float
) -> dict[Heard, float]:
    """The points lowered with the real listener over the points voices, starting from ``start``."""
    from voice_earl.bench.corpus import CACHE
    from voice_earl.bench.listened_points import HEARD_KINDS, ListenedTries, choose_points

    print(f"\nthrough the listener, the points voices in {', '.join(conditions)}:")
    with ListenedTries(conditions, verifier, POINTS, CACHE / "remembered-v1-points.pickle") as tries:
        points = choose_points(tries, start, talk, 0.01)
        for condition, found in tries.by_condition(points).items():
            print(
                f"  {condition}: lines, passes and commands heard {found.count(*HEARD_KINDS)} of "
                f"{found.of(*HEARD_KINDS)}, talk that moved the game {found.count(*TALK)} of {found.of(*TALK)}"
            )
    return points


def write(
    line: Model,
    short: Model,
    points: dict[Heard, float],
    args: argparse.Namespace,
    cases: Sequence[Case],
    looks: int,
) -> None:
    digest = hashlib.sha256(args.corpus.read_bytes()).hexdigest()[:12]
    with_looks = ""
    if looks:
        looks_digest = hashlib.sha256(args.looks.read_bytes()).hexdigest()[:12]
        with_looks = f" and {args.looks.name} (sha256 {looks_digest}, {looks} looks of the listener)"
    voices = {
        part: [f"{VOICES['tune'][n].label}+{VOICES['tune'][n].pitch}" for n in numbers]
        for part, numbers in VOICE_PARTS.items()
    }
    data = {
        "trained_on": f"{args.corpus.name} (sha256 {digest}, {len(cases)} trials of the tune split){with_looks}; "
        f"fitted on the "
        f"voices {', '.join(voices[TRAIN])}, operating points chosen on {', '.join(voices[POINTS])} "
        f"for talk that moves the game at most {100 * args.talk:g}%"
        + (" (a trial of the looks: when any of its looks would)" if looks else ""),
        "trained_at": datetime.date.today().isoformat(),
        "operating_points": {kind.value: round(value, 3) for kind, value in points.items()},
        "line": line.to_json(),
        "short": short.to_json(),
    }
    out = args.out or MODEL_FILE
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"\nwritten: {out}")


if __name__ == "__main__":
    raise SystemExit(main())
