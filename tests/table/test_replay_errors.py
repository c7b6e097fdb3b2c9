"""A journal that does not replay (edited or damaged): one line naming the series and what to do, never a
traceback, and the series is left as it was."""

from __future__ import annotations

import io
import json
import sqlite3
import sys
from typing import Any

import pytest

from voice_earl.commands.cli import main
from voice_earl.keep.storage_file import database_path


def played_series(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("lead 7\nplay\npass\nquit\n"))
    argv = ["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--seed", "3", "--silent", "--no-voice"]
    assert main(argv) == 0


def edit_event(seq: int, change: Any) -> None:
    with sqlite3.connect(database_path()) as db:
        (body,) = db.execute("SELECT body FROM events WHERE series_id = 1 AND seq = ?", (seq,)).fetchone()
        db.execute("UPDATE events SET body = ? WHERE series_id = 1 AND seq = ?", (change(body), seq))


def edit_settings(change: Any) -> None:
    with sqlite3.connect(database_path()) as db:
        (body,) = db.execute("SELECT settings FROM series WHERE id = 1").fetchone()
        db.execute("UPDATE series SET settings = ? WHERE id = 1", (change(body),))


def snapshot() -> list[tuple[Any, ...]]:
    """What the journal holds, raw: the series row and every event."""
    with sqlite3.connect(database_path()) as db:
        return [*db.execute("SELECT * FROM series"), *db.execute("SELECT * FROM events ORDER BY series_id, seq")]


def with_field(key: str, value: object) -> Any:
    return lambda body: json.dumps({**json.loads(body), key: value})


EDITS = {
    "a wrong player": lambda: edit_event(1, with_field("player", 2)),
    "a player out of the table": lambda: edit_event(1, with_field("player", 9)),
    "a bad card": lambda: edit_event(1, with_field("card", "ZZ")),
    "a card nobody holds": lambda: edit_event(1, with_field("card", "7Q")),
    "an event that is not JSON": lambda: edit_event(1, lambda body: "{lead 7"),
    "an event that is a list": lambda: edit_event(1, lambda body: "[1, 2]"),
    "a player named, not numbered": lambda: edit_event(1, with_field("player", "Ann")),
    "a seed that is text": lambda: edit_settings(with_field("seed", "three")),
    "settings that are not JSON": lambda: edit_settings(lambda body: "{"),
    "rules of the wrong type": lambda: edit_settings(with_field("rules", ["hoyle"])),
    "a deck nobody knows": lambda: edit_settings(with_field("deck", "tarot")),
    "a deal record without hands": lambda: edit_event(0, lambda body: json.dumps({"event": "deal"})),
}


@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
def test_a_journal_that_does_not_replay_is_one_line_and_left_as_it_was(
    edit: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    played_series(monkeypatch)
    EDITS[edit]()
    before = snapshot()
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO("pass\nquit\n"))
    assert main(["play", "--resume", "--silent", "--no-voice"]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert err.count("\n") == 1, err
    assert err.startswith("voice-earl play: series 1 does not replay to the same game: ")
    assert "`voice-earl history abandon 1`" in err and "`voice-earl history show 1`" in err
    assert snapshot() == before
