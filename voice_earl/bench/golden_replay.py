"""The judge's decision replayed on the golden corpus, in seconds: change a setting, see what it does.

The corpus (``tests/data/judge_corpus.npz``, made by ``scripts/judge_corpus.py``) keeps what the judge
scored for every trial of the benchmark's tune split in every tuning condition. Here the decision
(:func:`voice_earl.listening.judge.decision.decide`, the verifier and its vetoes) runs again on those
scores, with the shipped settings or with others, and prints per condition how many lines were
accepted, wrong lines and ranks accepted, passes and commands heard, and talk that moved the game
(table talk, real recordings and the room alone), beside how often Whisper ranked the line due or the
pass first among the turn's phrases (what a decision over its scores can hardly hear more than);
``--show-errors`` lists the mistakes grouped by the reason that decided them.

    .venv/bin/python scripts/judge_replay.py
    .venv/bin/python scripts/judge_replay.py --set pass_floor=-4 --show-errors
    .venv/bin/python scripts/judge_replay.py --set verifier=true   # the trained verifier instead of the rules

The figures are on whole recordings judged once, as the corpus keeps them; the listener looks several
times as the speech goes on (``scripts/bench_listening.py`` measures that, slowly; ``--looks`` replays
the decision on the listener's own looks, ``tests/data/looks_corpus.npz``, a trial heard as the first
look taken: :mod:`voice_earl.bench.looks_replay`).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from voice_earl.bench.corpus import TUNING_CONDITIONS, VOICES, Expect, moved_the_game
from voice_earl.bench.golden_file import CORPUS, TRAINED_JUDGE, Case, judge_of, read_corpus
from voice_earl.bench.outcomes import grouped_by_reason
from voice_earl.bench.settings import chosen_settings
from voice_earl.listening.judge.decision import Decision, JudgeSettings, Transcript, decide
from voice_earl.listening.judge.settings import trained_judge_settings
from voice_earl.listening.judge.verifier import Verifier
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import LineGrade, Verdict, grade_line

TRAIN, POINTS, REPORT = "train", "points", "report"
# The tune split's six voices, two to each part (by label and pitch, as the corpus names them).
VOICE_PARTS = {TRAIN: (0, 1), POINTS: (2, 3), REPORT: (4, 5)}


def part_of(group: str) -> str:
    """Which part a voice or a recording is in (a recording: by a hash of its name, a third each)."""
    tune = VOICES["tune"]
    for part, numbers in VOICE_PARTS.items():
        if any(group == f"{tune[n].label}+{tune[n].pitch}" for n in numbers):
            return part
    return (TRAIN, POINTS, REPORT)[int(hashlib.sha1(group.encode()).hexdigest(), 16) % 3]


TALK = (Expect.CHATTER, Expect.HUMAN, Expect.ROOM)  # speech that must not move the game
WRONG = (Expect.WRONG_LINE, Expect.WRONG_RANK)


def corpus_settings(path: Path) -> JudgeSettings:
    """The shipped decision of the judge that scored the corpus in ``path`` (each judge has its own)."""
    return trained_judge_settings() if judge_of(path) == TRAINED_JUDGE else JudgeSettings()


def replay(
    cases: Iterable[Case],
    settings: JudgeSettings,
    verifier: Verifier | None = None,
    exact: bool = False,
) -> list[tuple[Case, Decision]]:
    """The decision on each case's kept scores (its free transcript as kept; ``exact``: always asked
    for, so that every probability is exact)."""
    decided = []
    for case in cases:
        result = case.result
        free = result.free
        assert free is not None  # the corpus keeps every free transcript
        decided.append(
            (
                case,
                decide(
                    result.scored,
                    result.slots,
                    settings,
                    functools.partial(_kept, free),
                    result.first_pass,
                    result.position,
                    result.loud_room,
                    verifier,
                    exact,
                    case.held,
                ),
            )
        )
    return decided


def _kept(free: Transcript) -> Transcript:
    return free


@functools.lru_cache(maxsize=4096)
def judged(phrase: str, context: ListenContext) -> LineGrade:
    """The verdict on a phrase (the same few phrases come again and again)."""
    return grade_line(phrase, context)


def right(case: Case, phrase: str) -> bool:
    """Whether hearing ``phrase`` is what the trial's speech should give (talk: nothing is right)."""
    if case.expect in TALK:
        return False
    if case.expect == Expect.PASS:
        return judged(phrase, case.context).verdict is Verdict.PASS
    if case.expect == Expect.COMMAND:
        return phrase == case.text

    def heard(text: str) -> tuple[object, ...]:
        grade = judged(text, case.context)
        return grade.verdict, grade.heard_position, grade.heard_rank

    return heard(phrase) == heard(case.text)


@dataclass(frozen=True)
class Tally:
    """What a set of decisions did, by kind of trial."""

    counts: dict[str, int]  # trials of each kind
    good: dict[str, int]  # lines accepted, passes and commands heard, wrong lines and ranks heard as wrong
    talk: int  # talk, recordings and the room alone that moved the game
    wrong: int  # wrong lines and ranks accepted as the line due
    harm: int  # a line, a pass or a command heard as something else that moves the game

    def share(self, key: str) -> float:
        """Of the trials of a kind (an Expect, or "talk", or "wrong"), the share counted."""
        if key == "talk":
            return self.talk / max(1, sum(self.counts.get(k, 0) for k in TALK))
        if key == "wrong":
            return self.wrong / max(1, sum(self.counts.get(k, 0) for k in WRONG))
        return self.good.get(key, 0) / max(1, self.counts.get(key, 0))

    def heard(self) -> dict[str, int]:
        """What was heard, by kind of verdict: the counts the corpus tests pin."""
        return {
            "lines accepted": self.good.get(Expect.CORRECT, 0),
            "wrong lines and ranks accepted": self.wrong,
            "passes heard": self.good.get(Expect.PASS, 0),
            "commands heard": self.good.get(Expect.COMMAND, 0),
            "talk that moved the game": self.talk,
            "said, and heard as something else that moves the game": self.harm,
        }


def tally(decided: Iterable[tuple[Case, str]]) -> Tally:
    """How a set of trials came out, each heard as the phrase given with it ("": nothing)."""
    counts: dict[str, int] = {}
    good: dict[str, int] = {}
    talk = wrong = harm = 0
    for case, phrase in decided:
        counts[case.expect] = counts.get(case.expect, 0) + 1
        verdict = judged(phrase, case.context).verdict if phrase else Verdict.UNCLEAR
        moved = moved_the_game(verdict, phrase)
        if case.expect in TALK:
            talk += moved
        elif case.expect in WRONG:
            wrong += verdict is Verdict.CORRECT
            good[case.expect] = good.get(case.expect, 0) + (moved and verdict is not Verdict.CORRECT)
        elif right(case, phrase):
            good[case.expect] = good.get(case.expect, 0) + 1
        else:
            harm += moved
    return Tally(counts, good, talk, wrong, harm)


def ranked_first(case: Case) -> bool:
    """Whether Whisper likes what was said best of the turn's phrases (by mean log-probability per
    token): about the most a decision over its scores hears without hearing talk as well (the rules
    hear a little more in a quiet room, where the first pass's agreement and the rank slot help)."""
    if not case.result.scored:
        return False
    best = max(case.result.scored, key=lambda scored: scored.mean)
    return right(case, best.candidate.phrase)


def ranked_share(cases: Iterable[Case], expect: str) -> float:
    """Of the trials of a kind (a line due or a pass), the share whose speech Whisper ranked first."""
    chosen = [case for case in cases if case.expect == expect]
    return sum(map(ranked_first, chosen)) / max(1, len(chosen))


HEADER = (
    f"{'condition':14} {'n':>5} {'lines':>6} {'wrong':>6} {'passes':>6} {'cmds':>6} {'talk':>6} {'harm':>5}"
    f" {'line 1st':>8} {'pass 1st':>8}"
)


def table(decided: Sequence[tuple[Case, str]]) -> list[str]:
    """A row per condition and one for all: lines accepted, wrong lines and ranks accepted, passes and
    commands heard, talk that moved the game (%), and said phrases heard as something else that moves it;
    then where Whisper ranked the line due and the pass first (%: :func:`ranked_first`)."""
    conditions = sorted({case.condition for case, _ in decided}, key=TUNING_CONDITIONS.index)
    lines = [HEADER]
    for condition in [*conditions, "all"]:
        chosen = [(case, phrase) for case, phrase in decided if condition in ("all", case.condition)]
        t = tally(chosen)
        cases = [case for case, _ in chosen]
        lines.append(
            f"{condition:14} {len(chosen):5} {100 * t.share(Expect.CORRECT):6.1f} "
            f"{100 * t.share('wrong'):6.1f} {100 * t.share(Expect.PASS):6.1f} "
            f"{100 * t.share(Expect.COMMAND):6.1f} {100 * t.share('talk'):6.1f} {t.harm:5}"
            f" {100 * ranked_share(cases, Expect.CORRECT):8.1f} {100 * ranked_share(cases, Expect.PASS):8.1f}"
        )
    return lines


def show_errors(decided: Sequence[tuple[Case, Decision]]) -> None:
    mistakes = [(case, d) for case, d in decided if _mistaken(case, d.phrase)]
    for reason, group in grouped_by_reason(mistakes, lambda pair: pair[1].why):
        print(f"  {len(group)} x {reason}")
        for case, d in group:
            print(
                f"    {case.condition:13} {case.expect:10} p{case.context.position} {case.group:32} "
                f"{case.text!r} -> {d.phrase!r}: {d.why}"
            )


def _mistaken(case: Case, phrase: str) -> bool:
    t = tally([(case, phrase)])
    return bool(t.talk or t.wrong or t.harm) or (case.expect not in (*TALK, *WRONG) and not right(case, phrase))


def main(looks: Callable[[JudgeSettings, str | None], int] | None = None) -> int:
    """``looks``: what replays a decision on the listener's looks (``--looks``; see scripts/judge_replay.py)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--corpus",
        type=Path,
        default=CORPUS,
        help=f"default: {CORPUS.name}, tiny.en's (its decision replayed; a trained judge's corpus, its own)",
    )
    parser.add_argument("--set", nargs="+", default=[], metavar="NAME=VALUE", help="judge settings to try")
    parser.add_argument(
        "--part",
        choices=(TRAIN, POINTS, REPORT),
        help="only the voices and recordings of one "
        "part of the verifier's split (report: those it was neither fitted nor chosen on)",
    )
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument(
        "--looks",
        action="store_true",
        help="on the listener's looks (tests/data/looks_corpus.npz): a trial heard as its first look taken",
    )
    args = parser.parse_args()
    if args.looks and looks is not None:
        return looks(chosen_settings(args.set)[1], args.part)
    cases = [case for case in read_corpus(args.corpus) if args.part in (None, part_of(case.group))]
    decided = replay(cases, chosen_settings(args.set, corpus_settings(args.corpus))[1])
    print("\n".join(table([(case, d.phrase) for case, d in decided])))
    if args.show_errors:
        show_errors(decided)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
