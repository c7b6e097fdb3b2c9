"""The game log's file beside the database, ``series/series-ID.jsonl``, stays equal to the database: after a
time without file descriptors, across an undo (written anew by a rename, never emptied in place), and at
resume (written anew from the database, whatever a killed game left in it)."""

from __future__ import annotations

import io
import json
import os
import resource
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from voice_earl.commands.cli import main
from voice_earl.game.bots import RandomStrategy
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import database_path
from voice_earl.table.journal import Journal, series_log_path, start_journal
from voice_earl.table.saved_series import SeriesSetup
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import RulesApplied, Seat, TableEvent, TableSettings
from voice_earl.table.turns import BotSource, Command, KeyCommand, TurnInput, TurnRequest

SETTINGS = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy", "Di")), HOYLE, DeckMode.VIRTUAL, deals=2, seed=5)


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@contextmanager
def no_file_descriptors_left() -> Iterator[None]:
    """While inside, this process cannot open one more file (``EMFILE``): its soft limit is the lowest free one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    probe = os.dup(0)
    os.close(probe)
    resource.setrlimit(resource.RLIMIT_NOFILE, (probe, hard))
    try:
        with pytest.raises(OSError, match="Too many open files"):
            open(os.devnull).close()
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


class UndoOnce:
    """Bots, but at move ``at`` the player whose turn it is takes back the move before (``before`` is told first)."""

    def __init__(self, at: int, before: Callable[[], None]) -> None:
        self.bot = BotSource(RandomStrategy(), "bots")
        self.at = at
        self.before = before
        self.done = False

    def next_input(self, request: TurnRequest) -> TurnInput:
        if request.move_number == self.at and not self.done:
            self.done = True
            self.before()
            return KeyCommand(Command.UNDO)
        return self.bot.next_input(request)


def bots() -> dict[int, BotSource]:
    return {seat: BotSource(RandomStrategy(), "bots") for seat in range(4)}


def test_the_file_is_written_again_from_the_database_after_moves_it_could_not_take() -> None:
    with Store.open() as store, ExitStack() as starved:
        session = TableSession(SETTINGS, bots())
        journal = start_journal(store, session, SeriesSetup(SETTINGS))

        def descriptors(event: TableEvent) -> None:  # moves 10 to 30 are made with no descriptor to spare
            if isinstance(event, RulesApplied) and len(session.moves) == 10:
                starved.enter_context(no_file_descriptors_left())
            elif isinstance(event, RulesApplied) and len(session.moves) == 30:
                starved.close()

        session.listeners = [journal, descriptors]
        assert session.run().finished
        _, stored = store.load_series(journal.series_id)
        assert stored == session.records
    assert lines(series_log_path(store, journal.series_id)) == stored


def test_an_undo_writes_a_new_file_and_never_empties_the_one_there(tmp_path: Path) -> None:
    """A game killed while the file is written anew leaves the old file or the new one, never an empty one."""
    side = tmp_path / "the file as it was"
    with Store.open() as store:
        journal_box: list[Journal] = []
        before: list[str] = []

        def keep_the_old_file() -> None:
            os.link(journal_box[0].log_path, side)  # the very file the undo finds, by its inode
            before.append(side.read_text(encoding="utf-8"))

        source = UndoOnce(12, keep_the_old_file)
        session = TableSession(SETTINGS, dict.fromkeys(range(4), source))
        journal_box.append(start_journal(store, session, SeriesSetup(SETTINGS)))
        session.listeners = [journal_box[0]]
        session.run()
        assert source.done
        stored = store.load_series(journal_box[0].series_id)[1]
    assert side.read_text(encoding="utf-8") == before[0]  # untouched: the new file was renamed over it
    assert lines(journal_box[0].log_path) == stored


def test_resume_writes_the_file_anew_from_the_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("lead 7\nplay\npass\nquit\n"))
    assert main(["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--seed", "3", "--silent"]) == 0
    log = database_path().parent / "series" / "series-1.jsonl"
    saved = lines(log)
    log.write_text(log.read_text(encoding="utf-8") + '{"event":"lead","deal":1,"player":0,"rank":"K"}\n')
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--resume", "--silent"]) == 0
    assert lines(log) == saved
    log.write_text("")  # as a kill during a write left it
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--resume", "--silent"]) == 0
    assert lines(log) == saved
