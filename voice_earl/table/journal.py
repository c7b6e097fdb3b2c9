"""Keeping a series safe: every game-log record journalled as it happens.

The journal is a session listener, and the first one: each record the engine produces is appended
to the database in its own transaction before anything announces it, an undo truncates the journal,
and a finished series is closed. Resuming (:mod:`voice_earl.table.saved_series`) replays the records.

What is saved is always read from the database, never counted beside it: after each move the journal
asks the store how many records it holds, and once a write has failed it reads them all back, takes
back what the session no longer holds (a move undone while the disk was full) and appends the rest.
The stored log is then replayed by the engine (``gamelog.replay``), as it is again before the series is
closed: a log that cannot be shown to be the game played, and a legal one, is never called finished.

When the database cannot be written (read-only, disk full), nothing announced is lost: the move that
could not be saved has not been shown or said yet. The players are told, and choose: stop here (the
series resumes from the last saved move) or go on without saving, in which case every later move
tries again to save what is pending.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from voice_earl.errors import VoiceEarlError
from voice_earl.game.gamelog import ReplayError, actions_of, replay
from voice_earl.i18n import _
from voice_earl.keep.series_files import log_path
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import StoreWriteError
from voice_earl.keep.storage_values import Mode, utterance_of
from voice_earl.table.journal_file import GameLogFile
from voice_earl.table.saved_series import SeriesSetup, check_replay, game_of, resume_command, settings_record
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import (
    FormulaGraded,
    RulesApplied,
    SeatKind,
    SessionEnded,
    TableEvent,
    Undone,
)
from voice_earl.words.verdicts import Verdict

log = logging.getLogger(__name__)

GoOnUnsaved = Callable[[str], bool]
"""Told what could not be saved; True to go on without saving, False to stop."""


class SavingStopped(VoiceEarlError):
    """Saving failed and the players stopped: the series resumes from the last move saved."""


class LogUnproven(Exception):
    """The stored log is not the game played, or not a legal one; the text says how."""


def series_log_path(store: Store, series_id: int) -> Path:
    """The game log written beside each saved series (``docs/game-log.md``)."""
    return log_path(store.path, series_id)


def _stop(problem: str) -> bool:
    return False


def agreeing(stored: Sequence[Mapping[str, Any]], records: Sequence[Mapping[str, Any]]) -> int:
    """How many records, from the first, the store holds as the session does (the wording of lines aside)."""
    count = 0
    for kept, record in zip(stored, records, strict=False):
        if game_of(kept) != game_of(record):
            break
        count += 1
    return count


class Journal:
    """Makes the store hold the session's records after each move and undo; closes the series at the end.

    ``failure`` is set while the players go on without saving: the store is then not known to hold a
    beginning of the session's records, and the next save reads it back before writing.
    """

    def __init__(
        self, store: Store, series_id: int, session: TableSession, mode: Mode, go_on_unsaved: GoOnUnsaved = _stop
    ) -> None:
        self.store = store
        self.series_id = series_id
        self.session = session
        self.mode = mode
        self.go_on_unsaved = go_on_unsaved
        self.failure: str | None = None  # set while the players go on without saving
        self.log_file = GameLogFile(series_log_path(store, series_id))

    @property
    def log_path(self) -> Path:
        return self.log_file.path

    @property
    def saved(self) -> int:
        """How many of the session's records the store holds, from the first: read from the store."""
        stored, _damage = self.store.readable_events(self.series_id)
        return agreeing(stored, self.session.records)

    @property
    def unsaved(self) -> int:
        """Records the session holds that the store does not."""
        return len(self.session.records) - self.saved

    @property
    def unsaved_moves(self) -> int:
        """Moves among the records not saved (the rest of a move's records are rebuilt on resume)."""
        return len(actions_of(self.session.records[self.saved :]))

    def catch_up(self) -> None:
        """Make the store hold the session's records: take back what it holds beyond them, append the rest.

        Raises ``StoreWriteError`` when a write fails (what was written stays), and ``LogUnproven`` when the
        store, read back after a failure, does not hold the game played.
        """
        records = self.session.records
        doubtful = self.failure is not None
        try:
            if doubtful:  # a write failed since the store was last known: read it back
                stored = self.store.event_count(self.series_id)
                keep = agreeing(self.store.readable_events(self.series_id)[0], records)
            else:  # the store held a beginning of the records, and an undo only shortens them
                stored = self.store.event_count(self.series_id)
                keep = min(stored, len(records))
            if stored > keep:
                self.store.truncate_events(self.series_id, keep)
                self.log_file.forget()
            for seq in range(keep, len(records)):
                self.store.append_event(self.series_id, seq, records[seq])
        finally:
            self._follow(trusted=not doubtful)
        if doubtful:
            self.prove()
            log.info("series %d is saved again, up to record %d", self.series_id, len(records))
            self.failure = None

    def prove(self) -> None:
        """The stored log must be a beginning of the session's records and a game the engine replays."""
        stored, damage = self.store.readable_events(self.series_id)
        if damage is not None:
            raise LogUnproven(_("the saved series cannot be read back ({damage})").format(damage=damage))
        if agreeing(stored, self.session.records) != len(stored):
            raise LogUnproven(_("the saved series still holds a move that was taken back"))
        if not stored:
            return
        table = self.session.settings
        try:
            replay(stored, table.profile, deck=table.deck, seed=table.seed, deals=table.deals)
        except ReplayError as error:
            log.warning("series %d: the stored log does not replay: %s", self.series_id, error)
            raise LogUnproven(_("the saved series is not a legal game ({error})").format(error=error)) from None

    def rewrite_log(self) -> None:
        """The log file, written anew from what the store holds."""
        self.log_file.rewrite(self._stored())

    def _stored(self) -> list[dict[str, Any]]:
        return self.store.readable_events(self.series_id)[0]

    def _follow(self, *, trusted: bool) -> None:
        """The log file follows the store (from the session's records, when they are the store's)."""
        try:
            stored = self.store.event_count(self.series_id)
        except StoreWriteError:
            return
        self.log_file.follow(stored, self.session.records if trusted else None, self._stored)

    def __call__(self, event: TableEvent) -> None:
        undoing = isinstance(event, Undone)
        try:
            self._keep(event)
        except StoreWriteError as error:
            self.cannot_save(str(error), undoing=undoing)
        except LogUnproven as error:  # nothing the players can do: the series stays open, and the end says so
            log.warning("series %d: %s", self.series_id, error)
            self.failure = str(error)

    def _keep(self, event: TableEvent) -> None:
        if isinstance(event, RulesApplied | Undone):
            self.catch_up()
        elif isinstance(event, FormulaGraded):
            self._utterance(event)
        elif isinstance(event, SessionEnded):
            self.catch_up()
            if event.finished:
                self.prove()  # a finished series is one the engine replays
                self.store.finish_series(self.series_id)

    def cannot_save(self, problem: str, *, undoing: bool = False) -> None:
        """Saving failed: tell the players and stop (``SavingStopped``), or go on if they say so."""
        if self.failure is not None:  # the players chose to go on; each move tries again
            log.warning("series %d: still cannot save (%s)", self.series_id, problem)
            self.failure = problem
            return
        if undoing:
            told = _("Saving failed: {problem}. The move taken back is still in the saved series.")
            stop = _("Stopped: resume with `{command}` once it can be saved, and take the move back again.")
        else:
            told = _("Saving failed: {problem}. Every move before this one is saved; this one is not.")
            stop = _("Stopped: resume with `{command}` once it can be saved, and make the last move again.")
        message = told.format(problem=problem)
        if self.go_on_unsaved(message):
            log.warning("series %d: going on without saving (%s)", self.series_id, problem)
            self.failure = problem
            return
        raise SavingStopped(f"{message} {stop.format(command=resume_command(self.mode, self.series_id))}")

    def report(self) -> str | None:
        """What is not saved, and how to go on, for the players leaving the table; None when all is saved."""
        stored, _damage = self.store.readable_events(self.series_id)
        records = self.session.records
        kept = agreeing(stored, records)
        if self.failure is None and kept == len(stored) == len(records):
            return None
        problem = self.failure or _("the saved series is not the game played")
        command = resume_command(self.mode, self.series_id)
        missing = len(actions_of(records[kept:]))
        if kept < len(stored):  # an undo that could not be saved: resuming brings the move back
            text = _(
                "voice-earl: series {series} is not saved completely ({problem}): it still holds moves that"
                " were taken back, and {count} moves made since are missing; resume with {command} and take"
                " them back again"
            )
            return text.format(series=self.series_id, problem=problem, count=missing, command=command)
        if kept == len(records):
            text = _(
                "voice-earl: series {series} is not closed, since its saved log cannot be shown to be the game"
                " played ({problem}); it is kept as it is: {command}"
            )
            return text.format(series=self.series_id, problem=problem, command=command)
        text = _(
            "voice-earl: series {series} is not saved completely ({problem}): {count} moves are missing; it"
            " resumes from the last move saved: {command}"
        )
        return text.format(series=self.series_id, problem=problem, count=missing, command=command)

    def _utterance(self, event: FormulaGraded) -> None:
        if self.session.settings.seats[event.seat].kind is SeatKind.BOT:
            return
        grade = event.heard.grade
        if grade.verdict is Verdict.PASS:
            return
        latency = event.heard.latency_ms
        utterance = utterance_of(grade, self.mode, None if latency is None else round(latency), self.series_id)
        self.store.record_utterance(utterance, pcm16=event.heard.audio)


def start_journal(
    store: Store, session: TableSession, setup: SeriesSetup, go_on_unsaved: GoOnUnsaved = _stop
) -> Journal:
    """A new saved series for ``session``, played as ``setup`` says."""
    series_id = store.open_series(settings_record(setup))
    return Journal(store, series_id, session, setup.mode, go_on_unsaved)


def resume_journal(
    store: Store,
    series_id: int,
    session: TableSession,
    records: Sequence[Mapping[str, Any]],
    mode: Mode,
    go_on_unsaved: GoOnUnsaved = _stop,
) -> Journal:
    """The journal of a resumed series, checked against the replay and brought up to date; its log file
    is written anew from the database (a game killed during an undo may have left it behind)."""
    check_replay(series_id, session, records)
    journal = Journal(store, series_id, session, mode, go_on_unsaved)
    journal.rewrite_log()
    try:
        journal.catch_up()  # what a crash cut off between two records of one move
    except StoreWriteError as error:
        journal.cannot_save(str(error))
    return journal
