"""The table commands' arguments: clear one-line errors, never a traceback."""

from __future__ import annotations

import io
import sys

import pytest

from voice_earl.commands.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--players", "Ann", "Ben", "--silent"], "hoyle profile is for 3 to 6 players, not 2"),
        (["play", "--players", "Ann", "Ann", "Cy", "--silent"], "Ann is named twice"),
        (["play", "--players", "Ann", "Ben", "Cy", "--open-hands", "--silent"], "--open-hands needs --deck virtual"),
        (["play", "--players", "Ann", "Ben", "Cy", "--kitty", "--silent"], "add --profile parlour"),
        (["play", "--players", "Ann", "Ben", "Cy", "--chant", "nosuch.toml", "--silent"], "no such chant file"),
        (["play", "--players", "Ann", "Ben", "Cy", "--remind-after", "0"], "more than 0 seconds"),
        (["play", "--players", "Ann", "Ben", "Cy", "--lang", "fr"], "invalid choice"),
        (["practice", "--bots", "0", "--silent"], "argument --bots: must be from 1 to 12, not 0"),
        (["demo", "--players", "2"], "hoyle profile is for 3 to 6 players, not 2"),
    ],
)
def test_bad_table_arguments_give_one_clear_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code  # argparse's own errors
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_play_without_players_and_without_a_terminal_says_how_to_name_them(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "--silent"]) == 2
    assert "voice-earl play --players Ann Ben Cy" in capsys.readouterr().err


def test_a_parlour_silent_game_with_two_players_and_counters(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("lead 7\nquit\n"))
    argv = ["play", "--players", "Ann", "Ben", "--profile", "parlour", "--scoring", "counters", "--deck", "virtual",
            "--silent", "--no-voice", "--seed", "2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "parlour" in out
