"""Whatever a player is called, `history` and `stats` show it exactly as typed, and `play` plays with it: a name
is text, never rich markup (``[/]`` once crashed the first deal and every later `history`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from support.odd_names import tables
from support.table_views import bot_session
from support.terminal_game import TerminalGame, squeezed

from voice_earl.commands.cli import main
from voice_earl.game.cards import Rank
from voice_earl.game.chants import EARL
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_values import Mode, Utterance

WIDE = "400"  # no column of a table is wrapped: each name is read whole on its line


def saved_series(names: tuple[str, ...]) -> None:
    """A finished deal between ``names``, and an unfinished series of theirs just dealt, in the store."""
    session = bot_session(deals=1, names=names)
    session.run()
    with Store.open() as store:
        for records, finished in ((session.records, True), (session.records[:1], False)):
            series = store.open_series({"players": list(names), "profile": "hoyle", "deck": "virtual", "seed": 3})
            for seq, record in enumerate(records):
                store.append_event(series, seq, record)
            if finished:
                store.finish_series(series)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=tables)
@example(names=("Ann", "[/]", "Cy"))
@example(names=("[dad]", "Jo [the host]", "[blink red]Ben"))
def test_every_name_is_listed_by_history_as_typed(
    names: tuple[str, ...], tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VOICE_EARL_DATA_DIR", str(tmp_path_factory.mktemp("data")))
        patch.setenv("COLUMNS", WIDE)
        saved_series(names)
        shown: dict[str, str] = {}
        for argv in (["history"], ["history", "--unfinished"], ["history", "show", "1"]):
            assert main(argv) == 0
            out, err = capsys.readouterr()
            assert err == ""
            shown[" ".join(argv)] = out
    for command, out in shown.items():
        for name in names:
            assert name in out, f"{name!r} is not in `{command}`:\n{out}"


def test_history_show_counts_the_seats_from_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VOICE_EARL_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("COLUMNS", WIDE)
    saved_series(("Ann", "Mary, Jo", "Cy"))
    assert main(["history", "show", "1"]) == 0
    assert "Players by seat: 1 Ann, 2 Mary, Jo, 3 Cy\n" in capsys.readouterr().out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(labels=tables)
@example(labels=("[/]", "[dad]", ":smile:"))
def test_every_practice_session_is_named_by_stats_as_kept(
    labels: tuple[str, ...], tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VOICE_EARL_DATA_DIR", str(tmp_path_factory.mktemp("data")))
        with Store.open() as store:
            for label in labels:
                heard = "there's a queen as good as me"
                expected = EARL.line(2, Rank.QUEEN)
                store.record_utterance(Utterance(Mode.PRACTICE, 2, Rank.QUEEN, expected, heard, "unclear", 60, 500))
                store.record_utterance(
                    Utterance(Mode.PRACTICE, 2, Rank.QUEEN, expected, heard, "unclear", 60, 500, session=label)
                )
        assert main(["stats", "--by", "session"]) == 0
    out = capsys.readouterr().out
    for label in labels:
        assert label in out, f"{label!r} is not in `stats`:\n{out}"


def test_stats_names_the_file_of_its_charts_as_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    with Store.open() as store:
        store.record_utterance(Utterance(Mode.PRACTICE, 1, Rank.ACE, EARL.line(1, Rank.ACE), "", "silent", 0, None))
    folder = tmp_path / "[dad]"
    folder.mkdir()
    charts = folder / "[blink red]charts.png"
    assert main(["stats", "--plot", str(charts)]) == 0
    assert f"wrote the charts to {charts}" in capsys.readouterr().out
    assert charts.exists()


@pytest.mark.slow  # two deals typed at a terminal
@pytest.mark.parametrize("named", ["on the command line", "in the config file"])
def test_a_name_of_square_brackets_plays_at_a_terminal(named: str, tmp_path: Path) -> None:
    env = {"VOICE_EARL_DATA_DIR": str(tmp_path / "data"), "VOICE_EARL_CONFIG_DIR": str(tmp_path / "config")}
    players = ["--players", "Ann", "[/]", "Cy"]
    if named == "in the config file":
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("VOICE_EARL_CONFIG_DIR", env["VOICE_EARL_CONFIG_DIR"])
            assert main(["config", "set", "players", "[/]", "Ben", "Cy"]) == 0
        players = []
    argv = ["play", *players, "--deck", "virtual", "--deals", "1", "--seed", "3", "--silent", "--no-voice"]
    game = TerminalGame(argv, env)
    try:
        game.wait_for("space pass")
        assert game.seen("[/]")
        assert game.play_out("\r a234567890jqk") == 0, game.tail()
    finally:
        game.close()
    assert "Traceback" not in game.screen_text() and squeezed("MarkupError") not in game.screen_text()


@pytest.mark.parametrize("name", ["Ann (bot)", "ann (BOT)", "Ben"])
def test_no_bot_in_practice_has_the_players_name(name: str) -> None:
    from voice_earl.commands.cli import build_parser
    from voice_earl.commands.practice import practice_settings

    args = build_parser().parse_args(["practice", "--silent", "--bots", "5", "--name", name])
    names = practice_settings(args).names
    assert names[0] == name
    folded = [each.casefold() for each in names]
    assert len(set(folded)) == len(folded), names
    assert all(each.casefold() not in (name.casefold(), f"{name} (bot)".casefold()) for each in names[1:]), names
