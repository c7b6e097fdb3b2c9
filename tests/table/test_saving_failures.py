"""A database that stops taking writes mid-game (a full disk, a read-only file): the players are told,
nothing shown is lost, and the game stops cleanly with the resume command or goes on without saving."""

from __future__ import annotations

import io
import sys

import pytest
from support.silent_script import as_input, human_script
from support.storage_faults import read_only_file, tiny_disk

from voice_earl.commands.cli import main
from voice_earl.game.bots import RandomStrategy
from voice_earl.game.cards import Rank
from voice_earl.game.gamelog import replay
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import database_path
from voice_earl.keep.storage_values import Mode
from voice_earl.table.journal import Journal, SavingStopped, resume_journal, start_journal
from voice_earl.table.saved_series import SeriesSetup, load_saved
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import RulesApplied, Seat, TableEvent, TableSettings, Undone
from voice_earl.table.turns import BotSource, Command, KeyCommand, ScriptedInput

SETTINGS = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy", "Di")), HOYLE, DeckMode.VIRTUAL, deals=2, seed=11)


def bots() -> dict[int, BotSource]:
    return {seat: BotSource(RandomStrategy(), "bots") for seat in range(4)}


def uninterrupted() -> list[dict[str, object]]:
    session = TableSession(SETTINGS, bots())
    session.run()
    return session.records


def resume_and_finish(store: Store, series: int) -> None:
    saved = load_saved(store, series)
    session = TableSession(saved.setup.table, bots(), moves=saved.moves)
    session.listeners = [resume_journal(store, series, session, saved.records, Mode.PLAY)]
    session.run()


def test_a_full_disk_stops_the_game_with_the_resume_command_and_nothing_shown_is_lost() -> None:
    shown: list[dict[str, object]] = []

    def screen(event: TableEvent) -> None:  # stands for the narrator and the screen, after the journal
        if isinstance(event, RulesApplied):
            shown.extend(event.records)

    told: list[str] = []
    with tiny_disk(spare_pages=2), Store.open() as store:
        session = TableSession(SETTINGS, bots())
        journal = start_journal(store, session, SeriesSetup(SETTINGS), go_on_unsaved=lambda m: told.append(m) or False)
        session.listeners = [journal, screen]
        with pytest.raises(SavingStopped) as stopped:
            session.run()
    message = str(stopped.value)
    assert "the disk is full" in message and "Every move before this one is saved; this one is not." in message
    assert "Stopped: resume with `voice-earl play --resume 1` once it can be saved, and make the last move" in message
    assert told and told[0] in message
    with Store.open() as store:
        _, stored = store.load_series(1)
        assert stored == shown  # every record shown was saved, and nothing else
        resume_and_finish(store, 1)
        assert store.load_series(1)[1] == uninterrupted()


def test_going_on_without_saving_saves_what_is_pending_once_there_is_room() -> None:
    with tiny_disk(spare_pages=2), Store.open() as store:
        session = TableSession(SETTINGS, bots())
        journal = start_journal(store, session, SeriesSetup(SETTINGS), go_on_unsaved=lambda problem: True)
        moves_then: list[int] = []

        def room_again(event: TableEvent) -> None:
            if journal.failure is not None and not moves_then:
                moves_then.append(len(session.moves))
            if moves_then and len(session.moves) == moves_then[0] + 10:  # ten moves later the disk has room
                store._db.execute("PRAGMA max_page_count = 1000000")

        session.listeners = [journal, room_again]
        ended = session.run()
        assert ended.finished and moves_then
        assert journal.unsaved == 0 and journal.failure is None
        assert store.load_series(1)[1] == uninterrupted()


def test_going_on_without_saving_to_the_end_leaves_a_series_that_resumes_from_the_last_saved_move() -> None:
    with tiny_disk(spare_pages=2), Store.open() as store:
        session = TableSession(SETTINGS, bots())
        journal = start_journal(store, session, SeriesSetup(SETTINGS), go_on_unsaved=lambda problem: True)
        session.listeners = [journal]
        assert session.run().finished
        assert journal.unsaved > 0 and "disk is full" in str(journal.failure)
        saved = journal.saved
    with Store.open() as store:
        assert store.load_series(1)[1] == session.records[:saved]
        assert [s.id for s in store.unfinished_series()] == [1]
        resume_and_finish(store, 1)
        assert store.load_series(1)[1] == uninterrupted()


def test_practice_on_a_full_disk_stops_in_one_line_with_the_resume_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = as_input(human_script(3000))
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    with tiny_disk(spare_pages=2):
        assert main(["practice", "--seed", "3", "--silent", "--no-voice"]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    (line,) = [line for line in err.splitlines() if line.startswith("voice-earl practice:")]
    assert "Saving failed: cannot save to the database" in line and "the disk is full" in line
    assert "resume with `voice-earl practice --resume 1`" in line
    assert "Saving failed" in out  # shown at the table too
    with Store.open(exclusive=False) as store:
        (summary,) = store.unfinished_series()
        assert summary.events > 1
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    assert main(["practice", "--resume", "--no-voice"]) == 0


def test_resuming_on_a_read_only_database_says_so_and_keeps_the_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("lead 7\nquit\n"))
    assert main(["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--seed", "3", "--silent"]) == 0
    before = database_path().read_bytes()
    capsys.readouterr()
    moves = as_input(human_script(400))
    with read_only_file(database_path()):
        monkeypatch.setattr(sys, "stdin", io.StringIO(moves))
        assert main(["play", "--resume", "--no-voice"]) == 1
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        assert "Saving failed: cannot save to the database" in err and "it is read-only" in err
        assert "resume with `voice-earl play --resume 1`" in err
        assert database_path().read_bytes() == before
    monkeypatch.setattr(sys, "stdin", io.StringIO(moves + "quit\n"))
    assert main(["play", "--resume", "--no-voice"]) == 0
    with Store.open(exclusive=False) as store:
        assert len(store.load_series(1)[1]) > 2


def test_the_journal_asks_only_once_while_the_players_go_on() -> None:
    asked: list[str] = []
    with tiny_disk(spare_pages=1), Store.open() as store:
        session = TableSession(SETTINGS, bots())
        journal: Journal = start_journal(
            store, session, SeriesSetup(SETTINGS), go_on_unsaved=lambda m: asked.append(m) or True
        )
        session.listeners = [journal]
        session.run()
    assert len(asked) == 1


def taken_back_on_a_full_disk(store: Store, free_again: bool) -> tuple[TableSession, Journal, list[str], Rank]:
    """The leader leads; the database stops taking writes; the next move is made and taken back, and so is the
    lead (that cannot be saved either); with ``free_again`` the database takes writes again before another lead."""
    table = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE, DeckMode.VIRTUAL, deals=1, seed=3)
    deal = TableSession(table, {}).records[0]
    leader = (deal["dealer"] + 1) % 3
    first, other = sorted({Rank.parse(card[:-1]) for card in deal["hands"][leader]}, key=lambda r: r.value)[:2]
    answer = Command.PLAY if any(card[:-1] == first.value for card in deal["hands"][(leader + 1) % 3]) else Command.PASS
    keys = ScriptedInput(
        [
            KeyCommand(Command.LEAD, first),
            KeyCommand(answer),
            KeyCommand(Command.UNDO),
            KeyCommand(Command.UNDO),
            KeyCommand(Command.LEAD, other),
        ]
    )
    asked: list[str] = []
    session = TableSession(table, dict.fromkeys(range(3), keys))
    journal = start_journal(store, session, SeriesSetup(table), go_on_unsaved=lambda m: asked.append(m) or True)

    def disk(event: TableEvent) -> None:
        if isinstance(event, RulesApplied) and len(session.moves) == 1 and not asked:
            store._db.execute("PRAGMA query_only = 1")
        if isinstance(event, Undone) and not session.moves and free_again:
            store._db.execute("PRAGMA query_only = 0")

    session.listeners = [journal, disk]
    session.run()
    return session, journal, asked, other


def test_a_saved_move_taken_back_while_nothing_can_be_saved_is_gone_once_something_can() -> None:
    """The journal reads back what the store holds: a lead taken back while the database refused writes
    is taken out of it, and the lead made instead saved, once it takes writes again."""
    with Store.open() as store:
        session, journal, asked, other = taken_back_on_a_full_disk(store, free_again=True)
        assert len(asked) == 2 and "The move taken back is still in the saved series." in asked[1]
        assert journal.failure is None and journal.unsaved == 0 and journal.report() is None
        _, kept = store.load_series(journal.series_id)
    assert kept == session.records and kept[1]["rank"] == other.value
    replay(kept, HOYLE, deck=DeckMode.VIRTUAL, seed=3, deals=1)


def test_a_move_taken_back_that_could_never_be_saved_is_named_when_the_players_leave() -> None:
    with Store.open() as store:
        _, journal, _, _ = taken_back_on_a_full_disk(store, free_again=False)
        report = journal.report()
    assert report is not None and "it still holds moves that were taken back, and 1 moves made since" in report
    assert "resume with voice-earl play --resume 1 and take them back again" in report
