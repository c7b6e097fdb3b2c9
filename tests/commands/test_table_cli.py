"""The table commands' arguments: clear one-line errors, never a traceback."""

from __future__ import annotations

import io
import sys

import pytest
from support.patience import WAIT_S
from support.silent_script import as_input, human_script

from voice_earl.commands import play
from voice_earl.commands.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["play", "--players", "Ann", "Ben", "--silent"],
            "the hoyle rules are for 3 to 6 players, not 2; the parlour rules take 2 to 13: --profile parlour",
        ),
        (["play", "--players", "Ann", "Ann", "Cy", "--silent"], "Ann is named twice"),
        (["play", "--players", "Ann", "Ben", "Cy", "--open-hands", "--silent"], "--open-hands needs --deck virtual"),
        (["play", "--players", "Ann", "Ben", "Cy", "--kitty", "--silent"], "add --profile parlour"),
        (["practice", "--stack", "5", "--silent"], "--stack belongs to the parlour profile: add --profile parlour"),
        (["practice", "--stack", "5", "--kitty", "--silent"], "--stack, --kitty belong to the parlour profile"),
        (["practice", "--players", "X"], "voice-earl practice: error: unrecognized arguments: --players X"),
        (["play", "--players", "Ann", "Ben", "Cy", "--chant", "nosuch.toml", "--silent"], "no such chant file"),
        (["play", "--players", "Ann", "Ben", "Cy", "--remind-after", "0"], "more than 0 seconds"),
        (["play", "--players", "Ann", "Ben", "Cy", "--lang", "fr"], "invalid choice"),
        (["practice", "--bots", "0", "--silent"], "argument --bots: must be from 1 to 12, not 0"),
        (["demo", "--players", "2"], "hoyle rules are for 3 to 6 players, not 2; the parlour rules take 2 to 13"),
        (  # a player and bots: counted as bots, as --bots counts them
            ["practice", "--bots", "1", "--silent"],
            "the hoyle rules are for 2 to 5 bots, not 1; the parlour rules take 1 to 12: --profile parlour",
        ),
        (["simulate", "--players", "14"], "the hoyle rules are for 3 to 6 players, not 14"),
        (  # every card the bots play taken back: the demo would never end
            ["demo", "--profile", "parlour", "--chant-errors", "1"],
            "takes every card back, so no deal could end: use a rate below 1",
        ),
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


class _Terminal(io.StringIO):
    """A terminal's input holding what was typed: Ctrl-D at once is the end of it."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("typed", ["", "\n"])  # Ctrl-D at the question, or Enter
def test_play_asks_for_the_players_and_no_answer_is_one_clear_line(
    typed: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", _Terminal(typed))
    assert main(["play", "--silent"]) == 2
    err = capsys.readouterr().err
    assert err == "voice-earl play: no players named: voice-earl play --players Ann Ben Cy\n"


@pytest.mark.parametrize(
    ("typed", "names"),
    [
        ("Ann Ben Cy\n", ["Ann", "Ben", "Cy"]),
        ("Mary Jo, Ben ,Cy\n", ["Mary Jo", "Ben", "Cy"]),
        ("Ann,Ben\n", ["Ann", "Ben"]),
    ],
)
def test_the_players_asked_for_may_be_parted_by_commas_when_a_name_has_a_space(
    typed: str, names: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", _Terminal(typed))
    assert play.ask_players() == names


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
    argv = [
        "play",
        "--players",
        "Ann",
        "Ben",
        "--profile",
        "parlour",
        "--scoring",
        "counters",
        "--deck",
        "virtual",
        "--silent",
        "--no-voice",
        "--seed",
        "2",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "parlour" in out


def test_a_move_typed_while_paused_is_told_how_the_pause_ends(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines typed into a paused game: the lead is not played, and the answer says to type pause (it said
    nothing, and the pause itself said "press p", a key the typed lines have not got)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("pause\nlead 7\npause\nquit\n"))
    assert main(["play", "--players", "Ann", "Ben", "Cy", "--silent", "--no-voice", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("Paused. Type pause to go on.") == 2 and "Press p" not in out
    assert "Going on." in out and "Sevens" not in out


def _leader_rank(seed: int) -> str:
    """A rank the first leader of a three-player virtual deal with ``seed`` holds."""
    from voice_earl.game.rules import HOYLE, DeckMode
    from voice_earl.table.session import TableSession
    from voice_earl.table.session_events import Seat, TableSettings

    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE, DeckMode.VIRTUAL, seed=seed)
    deal = TableSession(settings, {}).deal
    assert deal.hands is not None
    return deal.hands[deal.turn][0].rank.value


VIRTUAL = ["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--silent", "--no-voice", "--seed", "2"]


def test_a_virtual_deck_without_open_hands_says_nobody_sees_their_cards(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(VIRTUAL) == 0
    out = capsys.readouterr().out
    assert "Nobody can see their own cards" in out
    assert "--phones" in out and "--open-hands" in out and "--deck physical" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main([*VIRTUAL, "--open-hands"]) == 0
    assert "Nobody can see their own cards" not in capsys.readouterr().out


def test_plain_silent_output_names_the_player_once(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"lead {_leader_rank(2)}\nquit\n"))
    assert main([*VIRTUAL, "--open-hands"]) == 0
    out = capsys.readouterr().out
    due = [part for line in out.splitlines() for part in line.split(" | ") if ", card 2 of 4" in part]
    assert due, out
    for part in due:
        name = part.split(":")[0].lstrip("▶")
        assert part.count(name) == 1 and "(" not in part, part  # not "Ben: Ben: Queens, card 2 of 4 (Ben: …)"


def test_stopping_says_the_series_is_saved_and_how_to_resume(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(VIRTUAL) == 0
    assert "The series is saved: voice-earl play --resume 1 goes on with it." in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["practice", "--silent", "--no-voice"]) == 0
    assert "voice-earl practice --resume" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "resume"),
    [
        (VIRTUAL, "voice-earl play --resume"),
        (["practice", "--silent", "--no-voice"], "voice-earl practice --resume"),
    ],
)
def test_ctrl_c_says_the_series_is_saved_and_how_to_resume(command: list[str], resume: str) -> None:
    import os
    import signal
    import subprocess
    import time
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from voice_earl.commands.cli import main; sys.exit(main())", *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    for line in process.stdout:  # wait until the table is up and asks for the first move
        if "to lead" in line or "card " in line:
            break
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=WAIT_S)
    assert process.returncode == 130, err
    assert resume in err and "saved" in err and "Traceback" not in err


def test_printed_to_a_file_the_last_move_comes_before_the_final_standings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not at a terminal the screen prints a line per change and the narrator its lines: the state after the
    last move is shown first, and what the narrator says about it (the winner, the settlement, the standings) after."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(as_input(human_script(800))))
    argv = ["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--silent", "--no-voice", "--deals", "1"]
    assert main([*argv, "--seed", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("Final: 1. ")  # the final standings close the game
    won = next(index for index, line in enumerate(lines) if " wins deal 1" in line)
    assert "0 cards" in lines[won - 1] and ", won" in lines[won - 1]  # the last state line, the winner out
