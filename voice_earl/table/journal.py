"""Keeping a series safe: every game-log record journalled as it happens.

The journal is a session listener, and the first one: each record the engine produces is appended
to the database in its own transaction before anything announces it, an undo truncates the journal,
and a finished series is closed. Resuming (:mod:`voice_earl.table.saved_series`) replays the records.

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
from voice_earl.game.gamelog import actions_of, to_line
from voice_earl.i18n import _
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import StoreWriteError
from voice_earl.keep.storage_values import Mode, utterance_of
from voice_earl.listening.verdicts import Verdict
from voice_earl.table.saved_series import SeriesSetup, check_replay, resume_command, settings_record
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import (
    FormulaJudged,
    RulesApplied,
    SeatKind,
    SessionEnded,
    TableEvent,
    Undone,
)

log = logging.getLogger(__name__)

GoOnUnsaved = Callable[[str], bool]
"""Told what could not be saved; True to go on without saving, False to stop."""


class SavingStopped(VoiceEarlError):
    """Saving failed and the players stopped: the series resumes from the last move saved."""


def series_log_path(store: Store, series_id: int) -> Path:
    """The game log written beside each saved series (``docs/game-log.md``)."""
    return store.path.parent / "series" / f"series-{series_id}.jsonl"


def _stop(problem: str) -> bool:
    return False


class Journal:
    """Appends each record to the store as it happens; truncates on undo; closes at the end.

    A copy of the game log is kept as JSON Lines beside the database; the database is the
    record, and the file is rewritten from it whenever they could differ (resume, undo).
    """

    def __init__(
        self, store: Store, series_id: int, session: TableSession, mode: Mode, go_on_unsaved: GoOnUnsaved = _stop
    ) -> None:
        self.store = store
        self.series_id = series_id
        self.session = session
        self.mode = mode
        self.go_on_unsaved = go_on_unsaved
        self.saved = 0  # records stored, from the first
        self.failure: str | None = None  # set while the players go on without saving
        self.log_path = series_log_path(store, series_id)

    @property
    def unsaved(self) -> int:
        """Records the session holds that the store does not."""
        return len(self.session.records) - self.saved

    @property
    def unsaved_moves(self) -> int:
        """Moves among the records not saved (the rest of a move's records are rebuilt on resume)."""
        return len(actions_of(self.session.records[self.saved :]))

    def catch_up(self) -> None:
        """Journal the records the session holds that the store does not have yet."""
        start = self.saved
        try:
            while self.saved < len(self.session.records):
                self.store.append_event(self.series_id, self.saved, self.session.records[self.saved])
                self.saved += 1
        finally:
            if self.saved > start:
                self._write_log(self.session.records[start : self.saved], append=start > 0)
        if self.failure is not None:
            log.info("series %d is saved again, up to record %d", self.series_id, self.saved)
            self.failure = None

    def rewrite_log(self) -> None:
        """The log file, written anew from what the store holds."""
        self._write_log(self.session.records[: self.saved], append=False)

    def _write_log(self, records: Sequence[Mapping[str, Any]], *, append: bool) -> None:
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with self.log_path.open("a" if append else "w", encoding="utf-8") as out:
                out.writelines(to_line(record) + "\n" for record in records)
        except OSError as error:  # the database holds the series; the file is a convenience
            log.warning("cannot write the game log %s: %s", self.log_path, error)

    def __call__(self, event: TableEvent) -> None:
        try:
            self._keep(event)
        except StoreWriteError as error:
            self.cannot_save(str(error))

    def _keep(self, event: TableEvent) -> None:
        if isinstance(event, RulesApplied):
            self.catch_up()
        elif isinstance(event, Undone):
            if event.records_kept < self.saved:
                self.store.truncate_events(self.series_id, event.records_kept)
                self.saved = event.records_kept
                self.rewrite_log()
            self.catch_up()
        elif isinstance(event, FormulaJudged):
            self._utterance(event)
        elif isinstance(event, SessionEnded):
            self.catch_up()
            if event.finished:
                self.store.finish_series(self.series_id)

    def cannot_save(self, problem: str) -> None:
        """Saving failed: tell the players and stop (``SavingStopped``), or go on if they say so."""
        if self.failure is not None:  # the players chose to go on; each move tries again
            log.warning("series %d: still cannot save (%s)", self.series_id, problem)
            self.failure = problem
            return
        told = _("Saving failed: {problem}. Every move before this one is saved; this one is not.")
        message = told.format(problem=problem)
        if self.go_on_unsaved(message):
            log.warning("series %d: going on without saving (%s)", self.series_id, problem)
            self.failure = problem
            return
        stop = _("Stopped: resume with `{command}` once it can be saved, and make the last move again.")
        raise SavingStopped(f"{message} {stop.format(command=resume_command(self.mode, self.series_id))}")

    def _utterance(self, event: FormulaJudged) -> None:
        if self.session.settings.seats[event.seat].kind is SeatKind.BOT:
            return
        judgement = event.heard.judgement
        if judgement.verdict is Verdict.PASS:
            return
        latency = event.heard.latency_ms
        utterance = utterance_of(judgement, self.mode, None if latency is None else round(latency), self.series_id)
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
    """The journal of a resumed series, checked against the replay and brought up to date."""
    check_replay(series_id, session, records)
    journal = Journal(store, series_id, session, mode, go_on_unsaved)
    journal.saved = len(records)
    journal.rewrite_log()
    try:
        journal.catch_up()  # what a crash cut off between two records of one move
    except StoreWriteError as error:
        journal.cannot_save(str(error))
    return journal
