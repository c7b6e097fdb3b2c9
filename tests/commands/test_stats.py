"""Practice statistics and the `history` / `stats` commands, on data stored through the real database."""

from __future__ import annotations

import dataclasses
import io
import json
import shlex
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from voice_earl.commands import drill
from voice_earl.commands.cli import main
from voice_earl.game.cards import Rank
from voice_earl.game.chants import EARL
from voice_earl.keep.accuracy import (
    LineSlip,
    Slip,
    TrendBy,
    bar,
    bar_chart,
    by_formula,
    by_rank,
    common_slips,
    line_score,
    slips,
    trend,
    utterance_slips,
    words,
)
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import database_path
from voice_earl.keep.storage_values import Mode, Utterance, utterance_of
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import grade_line

SETTINGS: dict[str, Any] = {"players": ["Ann", "Ben", "Cy"], "profile": "hoyle", "deck": "virtual", "seed": 7}


def sample_log() -> list[dict[str, Any]]:
    line = "There's as good as Queen can be"
    return [
        {"event": "deal", "deal": 1, "dealer": 2, "players": ["Ann", "Ben", "Cy"], "hands": [["QS"], ["QH"], ["7D"]]},
        {"event": "lead", "deal": 1, "player": 0, "card": "QS", "position": 1, "line": line, "verdict": "correct"},
        {"event": "play", "deal": 1, "player": 1, "card": "QH", "position": 2, "line": "There's a Queen as good as he"},
        {"event": "pass", "deal": 1, "player": 2},
        {"event": "win", "deal": 1, "player": 0, "cards_left": [[], ["4C"], ["7D", "8D"]]},
        {"event": "settle", "deal": 1, "payments": [3, -1, -2], "totals": [3, -1, -2]},
        {"event": "series", "totals": [3, -1, -2], "places": [1, 2, 3]},
    ]


DAY_ONE = datetime(2026, 11, 27, 12, 0, tzinfo=timezone.utc)
DAY_TWO = DAY_ONE + timedelta(days=1)


def said(
    position: int, rank: Rank, heard: str, verdict: str, *, at: datetime = DAY_ONE, latency_ms: int = 500, **more: Any
) -> Utterance:
    return Utterance(
        mode=more.pop("mode", Mode.PRACTICE),
        position=position,
        rank=rank,
        expected=EARL.line(position, rank),
        heard=heard,
        verdict=verdict,
        score=more.pop("score", 90 if verdict == "correct" else 60),
        latency_ms=latency_ms,
        at=at,
        **more,
    )


def practice_history() -> list[Utterance]:
    """Day one: shaky (1 of 4 right, slow). Day two: better (3 of 4 right, faster)."""
    return [
        said(1, Rank.QUEEN, "there's as good as queen can be", "correct", latency_ms=900),
        said(2, Rank.QUEEN, "there's a queen as good as me", "unclear", latency_ms=1100, session="a", heard_position=2),
        said(2, Rank.SEVEN, "there's a seven as good as me", "unclear", latency_ms=1000, session="a", heard_position=2),
        said(3, Rank.SEVEN, "", "silent", latency_ms=1200, session="a"),
        said(1, Rank.SEVEN, "there's as good as seven can be", "correct", at=DAY_TWO, latency_ms=400),
        said(2, Rank.SEVEN, "there's a seven as good as me", "unclear", at=DAY_TWO, latency_ms=500, heard_position=2),
        said(3, Rank.SEVEN, "there's the best of all the three", "correct", at=DAY_TWO, latency_ms=300),
        said(4, Rank.SEVEN, "and there's earl of coventry", "correct", at=DAY_TWO, latency_ms=600),
    ]


# -- slips ---------------------------------------------------------------------------------------------


def test_words_are_compared_as_the_verdicts_compare_them() -> None:
    assert words("There’s a Queen, as good as HE!") == ["there", "is", "a", "queen", "as", "good", "as", "he"]
    assert slips("There's a Queen as good as he", "there is a queen as good as he") == []


def test_slips_find_substitutions_drops_and_additions() -> None:
    assert slips(EARL.line(2, Rank.QUEEN), "there's a queen as good as me") == [Slip("he", "me")]
    assert slips(EARL.line(4, Rank.ACE), "and there's earl of coventry") == [Slip("the", None)]
    assert slips(EARL.line(3, Rank.ACE), "there's the very best of all the three") == [Slip(None, "very")]
    assert slips(EARL.line(1, Rank.ACE), "There's as good as Ace can be.") == []


def test_common_slips_count_and_ignore_silence() -> None:
    counted = common_slips(practice_history())
    assert counted[0] == (Slip("he", "me"), 3)
    assert (Slip("the", None), 1) in counted
    assert all(slip.expected != "best" for slip, _ in counted)  # the silent line is not a slip


def graded(position: int, rank: Rank, transcript: str) -> Utterance:
    """An utterance as the game keeps it: its line graded for real."""
    grade = grade_line(transcript, ListenContext(position, (rank,)))
    return utterance_of(grade, Mode.PRACTICE, 700, strictness="normal")


def test_a_whole_line_for_another_is_a_line_slip_not_word_slips() -> None:
    earl_for_he = graded(4, Rank.KING, "There's a King as good as he")
    assert (earl_for_he.verdict, earl_for_he.heard_position, earl_for_he.score) == ("wrong_line", 2, 100)
    assert utterance_slips(earl_for_he) == [LineSlip(due=4, said=2)]
    old = dataclasses.replace(earl_for_he, heard_position=None)  # kept before the heard line was saved
    assert utterance_slips(old) == [LineSlip(due=4, said=None)]
    chatter = graded(2, Rank.QUEEN, "pass me the crisps please")
    assert chatter.heard_position is None and utterance_slips(chatter) == []


def test_the_score_is_against_the_line_due_like_the_verdict() -> None:
    perfect = graded(2, Rank.QUEEN, "There's a Queen as good as he")
    other_line = graded(4, Rank.KING, "There's a King as good as he")
    wrong_rank = graded(2, Rank.QUEEN, "There's a King as good as he")
    assert line_score(perfect) == 100
    assert line_score(other_line) < 50 < line_score(wrong_rank) < 100
    (tallied,) = by_formula([other_line])
    assert (tallied.accuracy, tallied.mean_score) == (0.0, line_score(other_line))


def test_stats_never_calls_a_wrong_line_a_perfect_score(capsys: pytest.CaptureFixture[str]) -> None:
    with Store.open() as store:
        for _ in range(3):
            store.record_utterance(graded(4, Rank.KING, "There's a King as good as he"))
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    assert header.startswith("3 lines said, 0% correct, mean score ") and "mean score 100" not in header
    assert "3x  line 2 'as good as he' for line 4 'the Earl'" in out
    assert "'king' for" not in out and "'earl'" not in out


# -- tallies ---------------------------------------------------------------------------------------------


def test_accuracy_and_speed_per_formula_and_rank() -> None:
    formulas = {t.label: t for t in by_formula(practice_history())}
    assert list(formulas) == ["1 lead", "2 as good as he", "3 best of three", "4 the Earl"]
    assert (formulas["1 lead"].count, formulas["1 lead"].accuracy) == (2, 1.0)
    assert (formulas["2 as good as he"].correct, formulas["2 as good as he"].median_latency_ms) == (0, 1000)
    ranks = {t.label: t for t in by_rank(practice_history())}
    assert list(ranks) == ["Seven", "Queen"]
    assert (ranks["Seven"].count, ranks["Seven"].correct) == (6, 3)


def test_trend_per_day_and_per_session() -> None:
    days = trend(practice_history(), TrendBy.DAY)
    assert [t.label for t in days] == [
        DAY_ONE.astimezone().strftime("%Y-%m-%d"),
        DAY_TWO.astimezone().strftime("%Y-%m-%d"),
    ]
    assert [t.accuracy for t in days] == [0.25, 0.75]
    assert [t.median_latency_ms for t in days] == [1050, 450]
    sessions = trend(practice_history(), TrendBy.SESSION)
    assert [t.count for t in sessions] == [1, 3, 4]  # session "a" between two unnamed days


def test_per_session_each_drill_and_each_series_is_a_row_of_its_own(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing named a session: --by session was --by day."""
    starts = iter([datetime(2026, 12, 7, 20, 0, 5), datetime(2026, 12, 7, 20, 9, 1)])

    class Clock(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return next(starts)

    monkeypatch.setattr(drill, "datetime", Clock)
    for seed, line in ((3, "there's a ten as good as he"), (4, "there's as good as ace can be")):
        monkeypatch.setattr(sys, "stdin", io.StringIO(f"{line}\n"))
        assert main(["drill", "--typed", "--rounds", "1", "--seed", str(seed)]) == 0
    in_a_series = said(1, Rank.KING, "there's as good as king can be", "correct", series_id=7)
    with Store.read() as store:
        sessions = trend([*store.utterances(), in_a_series], TrendBy.SESSION)
    assert [(t.label, t.count) for t in sessions] == [
        ("series 7", 1),  # said on DAY_ONE, before the drills
        ("drill 2026-12-07 20:00:05", 1),
        ("drill 2026-12-07 20:09:01", 1),
    ]
    capsys.readouterr()


# -- bars ------------------------------------------------------------------------------------------------


def test_bars_use_eighth_blocks_and_clamp() -> None:
    assert bar(1, 1, 4) == "████"
    assert bar(0.5625, 1, 2) == "█▏"
    assert bar(2, 1, 3) == "███"
    assert bar(0, 1, 3) == "   "


def test_bar_chart_lines_fit_80_columns() -> None:
    rows = [("2026-11-27", 0.25), ("a very long session label that goes on", 1.0)]
    lines = bar_chart(rows, 1.0, lambda v: f"{v:.0%}", width=80)
    assert all(len(line) <= 80 for line in lines)
    assert lines[1].count("█") > 3 * lines[0].count("█")
    assert lines[0].endswith(" 25%")


# -- `voice-earl stats` ------------------------------------------------------------------------------------


def _store_practice() -> None:
    with Store.open() as store:
        for utterance in practice_history():
            store.record_utterance(utterance)
        store.record_utterance(said(1, Rank.KING, "there's as good as king can be", "correct", mode=Mode.DRILL))


def test_stats_with_no_practice_reads_well(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("no lines said yet: ") and out.endswith("try `voice-earl practice` or `voice-earl drill`")
    assert "played in silence keeps none" in out  # a silent series played is not "no practice"


def test_stats_for_one_mode_with_none_of_it_names_the_mode(capsys: pytest.CaptureFixture[str]) -> None:
    _store_practice()
    assert main(["stats", "--mode", "play"]) == 0
    assert capsys.readouterr().out.startswith("no lines said yet in play: ")


def test_stats_shows_formulas_ranks_slips_and_trend_in_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    _store_practice()
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("9 lines said, 56% correct")
    assert "By formula" in out and "By rank" in out and "King" in out
    assert "3x  'me' for 'he'" in out
    assert "dropped 'the'" in out
    assert "Accuracy per day:" in out and "Median latency per day:" in out
    assert "█" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_stats_filters_by_mode(capsys: pytest.CaptureFixture[str]) -> None:
    _store_practice()
    assert main(["stats", "--mode", "drill"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 lines said, 100% correct")
    assert "No slips" in out


def test_stats_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _store_practice()
    picture = tmp_path / "trend.png"
    assert main(["stats", "--plot", str(picture)]) == 0
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote the charts to {picture}" in capsys.readouterr().out


def test_stats_plot_without_matplotlib_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _store_practice()
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    assert main(["stats", "--plot", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err
    # into this game's own Python (its .venv): a bare pip may be another Python's, where the game never looks
    assert err.strip().endswith(
        f"--plot needs matplotlib: {shlex.quote(sys.executable)} -m pip install 'voice-earl[plot]'"
    )
    assert not (tmp_path / "x.png").exists()


# -- `voice-earl history` ----------------------------------------------------------------------------------


def _store_series() -> int:
    with Store.open() as store:
        unfinished = store.open_series({**SETTINGS, "players": ["Di", "Ed", "Flo"]})
        store.append_event(unfinished, 0, {**sample_log()[0], "players": ["Di", "Ed", "Flo"]})
        finished = store.open_series(SETTINGS)
        for seq, event in enumerate(sample_log()):
            store.append_event(finished, seq, event)
        store.finish_series(finished)
    return finished


def cell(table: str, text: str) -> bool:
    """Whether ``text`` stands alone in a cell of a table as rich draws it."""
    return any(
        text in (part.strip() for part in line.split("│")) or f" {text} " in f" {line} " for line in table.splitlines()
    )


def test_history_with_no_series_reads_well(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history"]) == 0
    assert capsys.readouterr().out.strip() == "no series yet - play one with `voice-earl play`"


def test_history_lists_series_with_players_profile_winner_and_totals(capsys: pytest.CaptureFixture[str]) -> None:
    _store_series()
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert "Ann, Ben, Cy" in out and "Di, Ed, Flo" in out
    finished_row = next(line for line in out.splitlines() if "Ann, Ben, Cy" in line)
    assert "Ann " in finished_row.split("hoyle")[1]  # the winner
    assert "unfinished" in next(line for line in out.splitlines() if "Di, Ed, Flo" in line)
    assert "hoyle" in out
    assert [cell(out, name) for name in ("Ann 3", "Ben -1", "Cy -2")] == [True] * 3  # totals, each named
    assert out.index("Ann, Ben, Cy") < out.index("Di, Ed, Flo")  # newest first


def test_history_says_how_far_an_unfinished_series_got_and_marks_practice(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with Store.open() as store:
        store.open_series({**SETTINGS, "deals": 6})
        practice = store.open_series({**SETTINGS, "deals": 3, "mode": "practice", "players": ["Eve", "Ann (bot)"]})
        store.append_event(practice, 0, {**sample_log()[0], "players": ["Eve", "Ann (bot)"]})
    assert main(["history"]) == 0
    rows = capsys.readouterr().out.splitlines()
    played = next(index for index, row in enumerate(rows) if "Ann, Ben, Cy" in row)
    practised = next(index for index, row in enumerate(rows) if "Eve, Ann (bot)" in row)
    assert " 0 of 6 " in rows[played] and " 1 of 3 " in rows[practised]  # not "0" and "1"
    assert "practice" in rows[practised + 1] and "practice" not in rows[played] + rows[played + 1]


def test_history_show_tells_each_deal_and_its_settlement(capsys: pytest.CaptureFixture[str]) -> None:
    series_id = _store_series()
    assert main(["history", "show", str(series_id)]) == 0
    out = capsys.readouterr().out
    assert f"Series {series_id}: hoyle" in out
    assert "Settings: a game, virtual deck, seed 7\n" in out
    assert "False" not in out and "None" not in out
    assert [cell(out, name) for name in ("Ann +3", "Ben -1", "Cy -2", "Ann 0", "Ben 1", "Cy 2")] == [True] * 6
    assert "Winner: Ann; places 1. Ann, 2. Ben, 3. Cy" in out  # by place, not by seat


def test_history_export_writes_the_game_log_as_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    series_id = _store_series()
    out = tmp_path / "series.jsonl"
    assert main(["history", "export", str(series_id), "--out", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == sample_log()
    assert lines[3] == '{"event":"pass","deal":1,"player":2}'
    assert "wrote 7 events" in capsys.readouterr().out
    assert main(["history", "export", str(series_id)]) == 0
    assert capsys.readouterr().out.splitlines() == lines


@pytest.mark.parametrize("command", [["history", "export", "1", "--out"], ["stats", "--plot"]])
def test_an_export_or_a_picture_is_never_written_over_the_saved_games(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The database named as the file to write is refused with one line, and kept whole."""
    _store_series()
    database = database_path()
    kept = database.read_bytes()
    with pytest.raises(SystemExit) as refused:
        main([*command, str(database)])
    assert refused.value.code == 2
    assert "is one of the files voice-earl keeps its games in" in capsys.readouterr().err
    assert database.read_bytes() == kept


def test_history_of_an_unknown_series_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    _store_series()
    assert main(["history", "show", "99"]) == 1
    assert capsys.readouterr().err == "voice-earl history: no series 99: see `voice-earl history` for the list\n"


def test_stats_bars_show_the_latest_fortnight(capsys: pytest.CaptureFixture[str]) -> None:
    with Store.open() as store:
        for day in range(20):
            store.record_utterance(
                said(1, Rank.ACE, "there's as good as ace can be", "correct", at=DAY_ONE + timedelta(days=day))
            )
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert "(the last 14 of 20 days; --plot draws them all)" in out
    accuracy_bars = out.split("Accuracy per day:\n")[1].split("\n\n")[0].splitlines()
    assert len(accuracy_bars) == 14
    assert accuracy_bars[-1].startswith((DAY_ONE + timedelta(days=19)).astimezone().strftime("%Y-%m-%d"))


@pytest.mark.parametrize("where", ["folder", "folder/", "missing/trend.png"])
def test_stats_plot_into_a_folder_or_a_missing_folder_is_refused(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    with pytest.raises(SystemExit) as refused:
        main(["stats", "--plot", where])
    err = capsys.readouterr().err
    assert refused.value.code == 2
    assert "is a folder: give a file name, such as folder/stats.png" in err or "'missing' does not exist" in err
    assert list(tmp_path.iterdir()) == [tmp_path / "folder"]  # no folder.png beside it


def test_stats_plot_without_an_extension_writes_and_names_a_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _store_practice()
    assert main(["stats", "--plot", str(tmp_path / "trend")]) == 0
    assert (tmp_path / "trend.png").read_bytes()[:4] == b"\x89PNG"
    assert f"wrote the charts to {tmp_path / 'trend.png'}" in capsys.readouterr().out
