"""The listener's looks (voice_earl/bench/looks.py): where a look lies in its trial, how a trial is heard
from its looks, and the looks corpus (tests/data/looks_corpus.npz) kept and read back."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from voice_earl.bench.corpus import LEAD_IN_S, Expect
from voice_earl.bench.golden_file import CORPUS, LOOKS_CORPUS, read_corpus, read_looks, write_looks
from voice_earl.bench.golden_replay import POINTS, REPORT, TRAIN, part_of
from voice_earl.bench.looks import LookAt, Looked, where
from voice_earl.bench.looks_replay import (
    GRID,
    Takeable,
    by_trial,
    combinations,
    covers,
    decided_looks,
    heard_trials,
    summed,
    taken,
)
from voice_earl.listening.judge.candidates import Candidate, Heard, Kind
from voice_earl.listening.judge.decision import Decision, JudgeSettings, Scored


def test_a_look_is_found_in_its_trial_even_where_it_begins_in_silence() -> None:
    rng = np.random.default_rng(3)
    audio = np.concatenate([np.zeros(800), rng.normal(0, 3, 16000)]).astype(np.int16)  # a quiet room's hiss
    assert where(audio[500:9000], audio) == 500
    assert where(audio[4321:12000], audio) == 4321
    with pytest.raises(ValueError, match="not a stretch"):
        where(rng.normal(0, 3, 4000).astype(np.int16), audio)


def _decision(phrase: str, heard: Heard, probability: float) -> Decision:
    best = Scored(Candidate(Kind.LINE, " A line.", phrase or "a line"), -1.0, 3)
    return Decision(phrase, best, "verifier", "", heard, probability, 0.5)


def test_a_trial_is_heard_as_the_first_look_that_clears_its_kinds_point() -> None:
    looks = [
        _decision("pass", Heard.PASS, 0.6),  # under the pass's point
        _decision("", Heard.LINE, 0.99),  # vetoed: the listener looks on
        _decision("there is a king", Heard.LINE, 0.7),
        _decision("pass", Heard.PASS, 0.9),
    ]
    points = {Heard.PASS: 0.8, Heard.LINE: 0.5, Heard.WRONG: 0.9, Heard.COMMAND: 0.9}
    assert taken(looks, points.__getitem__) == 2
    assert taken(looks, {**points, Heard.LINE: 0.8}.__getitem__) == 3
    assert taken(looks) == 0  # the rules: the first look that hears a phrase


def test_every_combination_of_points_counts_only_the_first_look_taken() -> None:
    kinds = list(Heard)
    trial = Takeable(
        np.array([kinds.index(Heard.PASS), kinds.index(Heard.LINE)]),
        np.array([0.55, 0.95]),
        np.array([[0.0, 1.0], [1.0, 0.0]]),  # taking the pass moves the game; taking the line hears it
    )
    combos = combinations()
    total = summed([trial], combos, 2)
    for combo, row in zip(combos, total, strict=True):
        pass_point, line_point = GRID[combo[kinds.index(Heard.PASS)]], GRID[combo[kinds.index(Heard.LINE)]]
        expected = [0.0, 1.0] if pass_point <= 0.55 else [1.0, 0.0] if line_point <= 0.95 else [0.0, 0.0]
        assert list(row) == expected


def test_looks_are_kept_and_read_back_with_where_they_end(tmp_path: Path) -> None:
    cases = read_corpus(CORPUS)[:3]
    looked = {
        "clean": {
            7: Looked(cases[0].trial, 2.0, (LookAt(0.0, 1.5, cases[0].result), LookAt(0.0, 2.25, cases[1].result))),
            9: Looked(cases[2].trial, 1.0, ()),  # no speech heard: no look
        }
    }
    path = tmp_path / "looks.npz"
    assert write_looks(looked, path) == 2
    looks, heard = read_looks(path)
    assert [(h.trial, h.expect) for h in heard] == [(7, cases[0].expect), (9, cases[2].expect)]
    assert [(look.trial, look.look, look.end_after_s) for look in looks] == [(7, 0, -0.5), (7, 1, 0.25)]
    assert [look.case.result.scored for look in looks] == [cases[0].result.scored, cases[1].result.scored]
    trials = by_trial(looks, heard)
    assert [len(t.looks) for t in trials] == [2, 0]
    assert [covers(look) for look in looks] == [False, True]


@pytest.fixture(scope="module")
def kept() -> tuple[list, list]:  # type: ignore[type-arg]
    return read_looks(LOOKS_CORPUS)


def test_the_looks_corpus_holds_the_train_and_points_voices_only(kept: tuple[list, list]) -> None:  # type: ignore[type-arg]
    looks, heard = kept
    assert {part_of(h.group) for h in heard} == {TRAIN, POINTS}
    assert REPORT not in {part_of(look.case.group) for look in looks}
    assert {h.condition for h in heard} == {"clean", "babble 12 dB", "babble 6 dB"}
    assert all(look.start_s <= LEAD_IN_S for look in looks if look.case.expect == Expect.CORRECT and covers(look))


def test_the_rules_and_the_verifier_hear_on_the_looks_what_they_heard_when_it_was_made(
    kept: tuple[list, list],  # type: ignore[type-arg]
) -> None:
    """Each trial heard as its first look taken (scripts/judge_replay.py --looks prints it per room).
    Written here by hand once a change is meant."""
    trials = by_trial(*kept)
    assert heard_trials(decided_looks(trials, JudgeSettings())).heard() == RULES_ON_LOOKS
    verifier = replace(JudgeSettings(), verifier=True)
    assert heard_trials(decided_looks(trials, verifier), verifier.point).heard() == VERIFIER_ON_LOOKS


# Of 246 lines due, 159 wrong lines and ranks, 66 passes, 9 commands and 561 trials of talk (table talk,
# real recordings, the room alone), in clean, babble 12 dB and babble 6 dB.
RULES_ON_LOOKS = {
    "lines accepted": 217,
    "wrong lines and ranks accepted": 1,
    "passes heard": 59,
    "commands heard": 6,
    "talk that moved the game": 18,
    "said, and heard as something else that moves the game": 14,
}
# The shipped verifier, trained on whole recordings judged once: partial looks at talk in babble move
# the game (the replay takes the first look that hears a phrase, where the listener would hold it until
# the audio confirms it: it is more pessimistic than the listener about talk).
VERIFIER_ON_LOOKS = {
    "lines accepted": 172,
    "wrong lines and ranks accepted": 7,
    "passes heard": 60,
    "commands heard": 7,
    "talk that moved the game": 160,
    "said, and heard as something else that moves the game": 71,
}
