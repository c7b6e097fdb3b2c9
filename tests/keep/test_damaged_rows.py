"""One damaged row does not hide the history: a series whose row cannot be read is listed as damaged, with
its id; it can be shown and exported as far as it reads, and abandoned; the other series are untouched.

The damage is done to the file itself, as a failing disk would: bytes flipped so that a TEXT value is not
UTF-8, and garbage in the players, totals, dates and status columns. Only the status fails ``quick_check``, which
checks that column's constraint: that too is damage inside one row, not to the file.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.silent_script import as_input, human_script
from support.storage_faults import flip_bytes

from voice_earl.commands.cli import main
from voice_earl.game.bots import RandomStrategy
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import database_path
from voice_earl.keep.storage_values import SeriesStatus
from voice_earl.table.journal import start_journal
from voice_earl.table.saved_series import SeriesSetup
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, TableSettings
from voice_earl.table.turns import BotSource, Command, KeyCommand, TurnInput, TurnRequest

PLAYERS = b'["Dora","Ben","Cy"]'
TARGET = TableSettings(tuple(map(Seat, ("Dora", "Ben", "Cy"))), HOYLE, DeckMode.VIRTUAL, deals=2, seed=9)


class FirstDealOnly:
    """Bots for the first deal; then the table stops, leaving a series with totals that is not finished."""

    def __init__(self, session: list[TableSession]) -> None:
        self.session = session
        self.bot = BotSource(RandomStrategy(), "bots")

    def next_input(self, request: TurnRequest) -> TurnInput:
        if self.session[0].deal.number > 1:
            return KeyCommand(Command.QUIT)
        return self.bot.next_input(request)


def three_series(monkeypatch: pytest.MonkeyPatch) -> None:
    """1: a finished game; 2: an unfinished one; 3: Dora's, one deal played of two (the one damaged)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(as_input(human_script(3000))))
    game = ["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--silent", "--no-voice"]
    assert main([*game, "--deals", "1", "--seed", "3"]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO("lead 7\nplay\npass\nquit\n"))
    assert main([*game, "--seed", "4"]) == 0
    with Store.open() as store:
        box: list[TableSession] = []
        source = FirstDealOnly(box)
        box.append(TableSession(TARGET, dict.fromkeys(range(3), source)))
        box[0].listeners = [start_journal(store, box[0], SeriesSetup(TARGET))]
        box[0].run()
        assert store.series_summary(3).totals is not None


def started_at() -> bytes:
    with sqlite3.connect(database_path()) as db:
        (started,) = db.execute("SELECT started_at FROM series WHERE id = 3").fetchone()
        return str(started).encode()


def flip(find: bytes, replace: bytes) -> None:
    assert flip_bytes(database_path(), find, replace) > 0


def flip_totals() -> None:
    """The totals column follows the players' and the deals' (a small integer): its opening bracket becomes a brace."""
    data = database_path().read_bytes()
    damaged, count = re.subn(rb'(\["Dora","Ben","Cy"\][^\[]{0,8})\[(?=-?\d)', rb"\1{", data)
    assert count == 1
    database_path().write_bytes(damaged)


@dataclass(frozen=True)
class Damage:
    do: Callable[[], None]
    row: bool = True  # the series' row is damaged (not one of its events)
    checked: str = "ok"  # what SQLite's quick_check says of it


DAMAGE = {
    "settings not UTF-8": Damage(lambda: flip(b'"play","players":["Dora"', b'"play","players":["D\xffra"')),
    "players not UTF-8": Damage(lambda: flip(b"}" + PLAYERS, b'}["D\xffra","Ben","Cy"]')),
    "an event not UTF-8": Damage(lambda: flip(b'"event":"deal","deal":2,', b'"event":"d\xfeal","deal":2,'), row=False),
    "start date not UTF-8": Damage(lambda: flip(started_at(), started_at()[:5] + b"\xff" + started_at()[6:])),
    "players garbage": Damage(lambda: flip(b"}" + PLAYERS, b'}{"Dora","Ben","Cy"]')),
    "totals garbage": Damage(flip_totals),
    "start date garbage": Damage(lambda: flip(started_at(), started_at()[:5] + b"1X" + started_at()[7:])),
    "status garbage": Damage(
        lambda: flip(
            b'open{"record":2,"mode":"play","players":["Dora"', b'oXen{"record":2,"mode":"play","players":["Dora"'
        ),
        checked="CHECK constraint failed in series",
    ),
}


def raw_rows(series: tuple[int, ...]) -> list[tuple[Any, ...]]:
    """Rows as bytes, whatever they hold."""
    db = sqlite3.connect(database_path())
    db.text_factory = bytes
    marks = ",".join("?" * len(series))
    try:
        return [
            *db.execute(f"SELECT * FROM series WHERE id IN ({marks})", series),
            *db.execute(f"SELECT * FROM events WHERE series_id IN ({marks}) ORDER BY series_id, seq", series),
        ]
    finally:
        db.close()


def quick_check() -> list[str]:
    with sqlite3.connect(database_path()) as db:
        return [row[0] for row in db.execute("PRAGMA quick_check")]


def command(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run voice-earl (a game gets "quit" to type); never a traceback."""
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdin", io.StringIO("quit\n"))
        code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, out + err
    return code, out, err


@pytest.mark.parametrize("kind", list(DAMAGE), ids=list(DAMAGE))
def test_a_damaged_series_is_listed_shown_exported_and_abandoned_and_the_others_untouched(
    kind: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    three_series(monkeypatch)
    _, before_show_1, _ = command(["history", "show", "1"], capsys)
    with Store.open(exclusive=False) as store:
        _, events = store.load_series(3)
    DAMAGE[kind].do()
    assert quick_check() == [DAMAGE[kind].checked]  # inside a row: the file's structure is whole
    finished = raw_rows((1,))

    code, out, _ = command(["history"], capsys)
    assert code == 0 and "Ann, Ben, Cy" in out
    with Store.open(exclusive=False) as store:
        assert [summary.id for summary in store.list_series()] == [3, 2, 1]
    if DAMAGE[kind].row:
        assert "Series 3 is damaged: its " in out and "`voice-earl history abandon 3` gives it up" in out
    assert command(["history", "--unfinished"], capsys)[0] == 0

    code, shown, _ = command(["history", "show", "3"], capsys)
    assert code == 0 and "Series 3:" in shown and "Damaged: " in shown
    assert command(["history", "show", "1"], capsys)[1] == before_show_1

    exported = tmp_path / "3.jsonl"
    code, _, err = command(["history", "export", "3", "--out", str(exported)], capsys)
    kept = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    if DAMAGE[kind].row:
        assert code == 0 and kept == events
    else:  # as far as it reads: up to the second deal's record
        second = next(i for i, e in enumerate(events) if e["event"] == "deal" and e["deal"] == 2)
        assert code == 1 and kept == events[:second] and "series 3 is damaged: its event" in err

    code, _, err = command(["play", "--resume"], capsys)  # the newest: the damaged one, or one line why not
    assert code in (0, 1) and err.count("voice-earl play:") <= 1
    assert command(["play", "--resume", "2", "--silent"], capsys)[0] == 0
    assert command(["history", "abandon", "3"], capsys)[0] == 0
    with Store.open(exclusive=False) as store:
        assert store.series_summary(3).status is SeriesStatus.ABANDONED
    assert raw_rows((1,)) == finished
