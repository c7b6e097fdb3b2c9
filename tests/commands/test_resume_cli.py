"""Resume restores the whole series: Silent Earl, the language, the bots' strategy, practice; a flag that would
change the game is refused; `--resume ID`, `history --unfinished` and `history abandon` work on the saved series."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from support.silent_script import as_input, human_script

from voice_earl.commands.cli import main
from voice_earl.game.bots import MostStrategy
from voice_earl.game.rules import HOYLE, DeckMode, profile_to_dict
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import database_path
from voice_earl.keep.storage_schema import MIGRATIONS, SCHEMA_VERSION
from voice_earl.table import play_modes
from voice_earl.table.saved_series import RECORD_FORMAT
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, SeatKind, TableSettings
from voice_earl.table.turns import BotSource

QUIET = ["--silent", "--no-voice"]


def run(argv: list[str], lines: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(as_input(lines)))
    return main(argv)


def records(series: int) -> list[dict[str, Any]]:
    with Store.open(exclusive=False) as store:
        return store.load_series(series)[1]


def settings_of(series: int) -> dict[str, Any]:
    with Store.open(exclusive=False) as store:
        return store.load_series(series)[0]


# -- a resumed practice series is the uninterrupted one ----------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_resumed_practice_series_equals_the_uninterrupted_one(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    practice = ["practice", "--seed", str(seed), "--deals", "1", "--strategy", "random", "--bots", "3", *QUIET]
    script = human_script(3000)
    assert run(practice, script, monkeypatch) == 0
    whole = records(1)
    assert whole[-1]["event"] == "series"  # played out

    cut = 25 + 7 * seed
    assert run(practice, [*script[:cut], "quit"], monkeypatch) == 0
    assert records(2)[-1]["event"] != "series"  # stopped part-way
    assert run(["practice", "--resume", "--no-voice"], script[cut:], monkeypatch) == 0
    assert records(2) == whole
    with Store.open(exclusive=False) as store:
        assert [s.status.value for s in store.list_series()] == ["finished", "finished"]


def test_resume_restores_silent_earl_the_language_the_strategy_and_practice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    practice = ["practice", "--seed", "5", "--strategy", "fewest", "--lang", "nl", *QUIET]
    assert run(practice, ["quit"], monkeypatch) == 0
    capsys.readouterr()
    assert run(["practice", "--resume", "--no-voice"], ["quit"], monkeypatch) == 0  # no --silent, no --lang
    out, err = capsys.readouterr()
    assert "Gestopt. De wedstrijd is bewaard." in out  # Dutch, as saved
    assert "Silent Earl" not in err  # no microphone was tried: the series is silent
    first_line = out.splitlines()[0]
    assert "Player 18 " in first_line and "[" in first_line  # practice shows the human's hand
    saved = settings_of(1)
    assert (saved["mode"], saved["strategy"], saved["language"], saved["rules"]["silent"]) == (
        "practice",
        "fewest",
        "nl",
        True,
    )


def test_play_resume_restores_a_silent_game_and_the_deck(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    players = ["--players", "Ann", "Ben", "Cy"]
    assert run(["play", *players, "--deck", "virtual", "--seed", "3", *QUIET], ["lead 7", "quit"], monkeypatch) == 0
    capsys.readouterr()
    assert run(["play", "--resume", "--no-voice"], ["quit"], monkeypatch) == 0
    out, err = capsys.readouterr()
    assert "virtual deck" in out and "Silent Earl" not in err


# -- flags that would change the game ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "resume", "message"),
    [
        (
            ["play", "--players", "Ann", "Ben", "Cy"],
            ["play", "--resume", "--deck", "virtual"],
            "series 1 was saved with --deck physical: --deck virtual would change its game",
        ),
        (
            ["play", "--players", "Ann", "Ben", "Cy"],
            ["play", "--resume", "--players", "Ann", "Ben", "Di"],
            "saved with --players Ann Ben Cy: --players Ann Ben Di",
        ),
        (
            ["play", "--players", "Ann", "Ben", "Cy"],
            ["play", "--resume", "--profile", "parlour"],
            "saved with --profile hoyle",
        ),
        (
            ["play", "--players", "Ann", "Ben", "Cy", "--seed", "4"],
            ["play", "--resume", "--seed", "5"],
            "saved with --seed 4",
        ),
        (
            ["play", "--players", "Ann", "Ben", "Cy", "--seed", "4"],
            ["play", "--resume", "--seed", "0"],
            "saved with --seed 4: --seed 0 would change",
        ),
        (
            ["play", "--players", "Ann", "Ben", "Cy"],
            ["play", "--resume", "--strictness", "strict"],
            "saved with --strictness normal",
        ),
        (
            ["practice", "--strategy", "random"],
            ["practice", "--resume", "--strategy", "most"],
            "saved with --strategy random",
        ),
        (["practice"], ["practice", "--resume", "--bots", "3"], "saved with --bots 2"),
        (["practice"], ["practice", "--resume", "--open-hands"], "saved without --open-hands"),
    ],
)
def test_a_flag_that_would_change_the_saved_game_is_refused(
    start: list[str],
    resume: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run([*start, *QUIET], ["quit"], monkeypatch) == 0
    before = records(1)
    capsys.readouterr()
    assert run([*resume, *QUIET], ["quit"], monkeypatch) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert records(1) == before


def test_flags_that_agree_with_the_saved_game_and_a_new_language_are_taken(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    start = ["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--seed", "9", *QUIET]
    assert run(start, ["quit"], monkeypatch) == 0
    again = ["play", "--resume", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--seed", "9", "--lang", "it"]
    assert run([*again, *QUIET], ["quit"], monkeypatch) == 0
    assert "Fermato" in capsys.readouterr().out
    assert settings_of(1)["language"] == "it"  # the next resume speaks Italian too


# -- which series -------------------------------------------------------------------------------------------


def test_resume_by_id_and_the_newest_of_its_kind(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for names in (["Ann", "Ben", "Cy"], ["Di", "Ed", "Flo"]):
        assert run(["play", "--players", *names, *QUIET], ["quit"], monkeypatch) == 0
    assert run(["practice", *QUIET], ["quit"], monkeypatch) == 0
    err = " ".join(capsys.readouterr().err.split())  # wrapped to the terminal between words
    assert "Series 2 (Di, Ed, Flo, started" in err and "`voice-earl play --resume 2` goes on with it" in err
    assert "`voice-earl history abandon 1` gives it up" in err

    assert run(["play", "--resume", "1", *QUIET], ["quit"], monkeypatch) == 0
    assert "Resuming series 1: Ann, Ben, Cy" in capsys.readouterr().err
    assert run(["play", "--resume", *QUIET], ["quit"], monkeypatch) == 0
    assert "Resuming series 2: Di, Ed, Flo" in capsys.readouterr().err
    assert run(["practice", "--resume", *QUIET], ["quit"], monkeypatch) == 0
    assert "Resuming series 3: Player" in capsys.readouterr().err

    assert run(["play", "--resume", "3", *QUIET], ["quit"], monkeypatch) == 1
    assert "series 3 is a practice series: resume it with `voice-earl practice --resume 3`" in capsys.readouterr().err
    assert run(["play", "--resume", "99", *QUIET], ["quit"], monkeypatch) == 1
    assert "no series 99" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        run(["play", "--resume", "9" * 30, *QUIET], ["quit"], monkeypatch)
    assert stopped.value.code == 2


def test_history_unfinished_lists_the_resume_commands_and_abandon_closes_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["play", "--players", "Ann", "Ben", "Cy", *QUIET], ["quit"], monkeypatch) == 0
    assert run(["practice", *QUIET], ["quit"], monkeypatch) == 0
    capsys.readouterr()
    assert main(["history", "--unfinished"]) == 0
    out = capsys.readouterr().out
    assert "voice-earl play --resume 1" in out and "voice-earl practice --resume 2" in out

    assert main(["history", "abandon", "1"]) == 0
    assert "series 1 abandoned" in capsys.readouterr().out
    assert main(["history", "list", "--unfinished"]) == 0
    out = capsys.readouterr().out
    assert "--resume 1" not in out and "voice-earl practice --resume 2" in out
    assert main(["history", "abandon", "1"]) == 1
    assert "series 1 is abandoned: only an unfinished series can be abandoned" in capsys.readouterr().err
    assert run(["play", "--resume", *QUIET], ["quit"], monkeypatch) == 1
    err = capsys.readouterr().err
    assert "no unfinished play series" in err and "practice series 2 is: voice-earl practice --resume 2" in err
    assert main(["history"]) == 0
    assert "abandoned" in capsys.readouterr().out


# -- a series saved by an older voice-earl ------------------------------------------------------------------


def old_practice_file(path: Path) -> list[dict[str, Any]]:
    """A schema-2 file holding a practice series as the version before this one saved it (format 1)."""
    seats = (Seat("You"), Seat("Ann (bot)", SeatKind.BOT), Seat("Ben (bot)", SeatKind.BOT))
    table = TableSettings(seats, HOYLE, DeckMode.VIRTUAL, deals=1, seed=8)
    session = TableSession(table, dict.fromkeys(range(3), BotSource(MostStrategy(), "bots:8")))
    for _ in range(12):
        session.play_turn()
    old_record = {
        "players": ["You", "Ann (bot)", "Ben (bot)"],
        "bots": [False, True, True],
        "profile": "hoyle",
        "rules": profile_to_dict(HOYLE.with_changes(silent=True)),
        "deck": "virtual",
        "deals": 1,
        "seed": 8,
        "chant": "earl",
        "first_dealer": None,
        "mode": "practice",
    }
    old = sqlite3.connect(path)
    for step in MIGRATIONS[:2]:
        old.executescript(step)
    old.execute(
        "INSERT INTO series (id, started_at, settings, players) VALUES (1, '2026-11-01T20:00:00+00:00', ?, ?)",
        (json.dumps(old_record), json.dumps(old_record["players"])),
    )
    for seq, record in enumerate(session.records):
        old.execute(
            "INSERT INTO events VALUES (1, ?, ?, ?, '2026-11-01T20:00:01+00:00')",
            (seq, record["event"], json.dumps(record)),
        )
    old.execute("PRAGMA user_version = 2")
    old.commit()
    old.close()
    return session.records


def test_a_practice_series_saved_by_the_older_format_resumes_as_practice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database_path().parent.mkdir(parents=True)
    saved = old_practice_file(database_path())
    assert run(["practice", "--resume", "--no-voice"], ["quit"], monkeypatch) == 0
    out, err = capsys.readouterr()
    assert "Resuming series 1: You, Ann (bot), Ben (bot)" in err
    assert "You " in out.splitlines()[0] and "[" in out.splitlines()[0]  # the hand is shown
    with Store.open(exclusive=False) as store:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        record, events = store.load_series(1)
    assert events[: len(saved)] == saved
    assert (record["record"], record["strategy"], record["strictness"], record["language"]) == (
        RECORD_FORMAT,
        "most",
        "normal",
        "en",
    )


class _Terminal(io.StringIO):
    """Typed lines at a terminal (the game's screen would take it over)."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("answer", "started"), [("n", False), ("", True)], ids=["no", "enter"])
def test_at_a_terminal_a_new_series_beside_an_unfinished_one_is_asked_for_first(
    answer: str, started: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The note that one is unfinished went to the terminal, and the game's screen covered it at once."""
    assert run(["play", "--players", "Ann", "Ben", "Cy", *QUIET], ["quit"], monkeypatch) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", _Terminal(f"{answer}\n"))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    played: list[object] = []  # the game itself at a terminal takes its keys raw: not here
    monkeypatch.setattr(play_modes, "run_table_mode", lambda args, store, setup: played.append(setup) or 0)
    assert main(["play", "--players", "Ann", "Ben", "Cy", *QUIET]) == 0
    said = " ".join(capsys.readouterr().err.split())
    assert "Series 1 (Ann, Ben, Cy, started " in said and "`voice-earl play --resume 1` goes on with it" in said
    assert ("Nothing was started." in said) is not started
    assert len(played) == started


def test_a_game_log_that_cannot_be_written_beside_the_database_is_said_when_the_game_stops(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The files beside the database are what a damaged one is rebuilt from: the log said so, the players not."""
    database_path().parent.mkdir(parents=True, exist_ok=True)
    (database_path().parent / "series").write_text("not a folder")  # where the game logs go
    monkeypatch.setenv("COLUMNS", "1000")  # the path whole on one line
    assert run(["play", "--players", "Ann", "Ben", "Cy", *QUIET], ["quit"], monkeypatch) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert re.search(r"the game log could not be written \([^()]*series-1\.jsonl: File exists\)", err), err
    assert "could not be rebuilt from the log" in err
    assert "The series is saved: voice-earl play --resume 1 goes on with it." in err  # the database has it
    assert [record["event"] for record in records(1)] == ["deal"]


def test_the_note_of_an_unfinished_series_keeps_each_command_on_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Wrapped at 80 columns, `voice-earl play --resume 1` was cut after "play": copied, it started a new game."""
    assert run(["play", "--players", "Ann", "Ben", "Cy", *QUIET], ["quit"], monkeypatch) == 0
    monkeypatch.setenv("COLUMNS", "60")
    assert run(["play", "--players", "Ann", "Ben", "Cy", *QUIET], ["quit"], monkeypatch) == 0
    lines = capsys.readouterr().err.splitlines()
    assert any("`voice-earl play --resume 1`" in line for line in lines), lines
    assert any("`voice-earl history abandon 1`" in line for line in lines), lines
    assert all(len(line) <= 60 for line in lines if "Series 1" in line or "abandon" in line)
