"""The journal: one SQLite file holding every series' game log and every practice utterance.

Each game event is committed in its own transaction (WAL, ``synchronous=FULL``) as soon as it
happens, so a series killed at any moment - ``kill -9`` or a power cut - resumes by replaying
exactly the events that were acknowledged. A game writer holds an exclusive lock beside the
database (it dies with the process), so a second instance is told the database is busy and
with which series. A damaged database is moved aside, never overwritten.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "db.sqlite3") as store:
...     sid = store.open_series({"players": ["Ann", "Ben", "Cy"], "profile": "hoyle"})
...     store.append_event(sid, 0, {"event": "deal", "deal": 1, "dealer": 2})
...     store.load_series(sid)
({'players': ['Ann', 'Ben', 'Cy'], 'profile': 'hoyle'}, [{'event': 'deal', 'deal': 1, 'dealer': 2}])
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import Any

from voice_earl.errors import VoiceEarlError
from voice_earl.keep.series_files import FOLDER, KeptSeries, keep_record, kept_series
from voice_earl.keep.storage_file import (
    StoreCorrupt,
    StoreWriteError,
    connect_checked,
    connect_read_only,
    database_path,
    describe_error,
    is_damage,
    keep_store_private,
)
from voice_earl.keep.storage_listing import dumps, names_in, restore_series, summarise
from voice_earl.keep.storage_lock import WriterLock
from voice_earl.keep.storage_rows import SUMMARY_COLUMNS, json_object, summary_of
from voice_earl.keep.storage_schema import SCHEMA_VERSION
from voice_earl.keep.storage_utterances import insert_utterance, keep_wav, select_utterances, stamp
from voice_earl.keep.storage_values import (
    MAX_SERIES_ID,
    MIN_SERIES_ID,
    Event,
    JournalError,
    Mode,
    SeriesStatus,
    SeriesSummary,
    Utterance,
    utc_now,
)

log = logging.getLogger(__name__)


class Store:
    """An open database. Use ``Store.open(...)`` as a context manager."""

    def __init__(self, connection: sqlite3.Connection, path: Path, lock: WriterLock | None, keep_audio: bool) -> None:
        self._db = connection
        self.path = path
        self._lock = lock
        self.keep_audio = keep_audio

    @classmethod
    def open(
        cls, path: Path | None = None, *, exclusive: bool = True, keep_audio: bool = False, told: Told | None = None
    ) -> Store:
        """Open (creating or migrating) the database.

        ``exclusive`` takes the writer's lock: games, practice and drills need it; ``history``
        and ``stats`` only read and do not. ``keep_audio`` keeps a WAV of each recorded utterance.
        A damaged (or empty) file is moved aside and a new one rebuilt from the series kept beside it: with
        ``told``, that is told in one line and the new one opened; without, it is a ``StoreCorrupt``.
        Raises ``StoreBusy``, ``StoreCorrupt`` or ``VoiceEarlError`` with one clear line.
        """
        path = path or database_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise VoiceEarlError(f"cannot create the data folder {path.parent}: {error.strerror}") from None
        keep_store_private(path)
        lock = WriterLock.acquire(path) if exclusive else None
        try:
            try:
                connection = connect_checked(path)
            except StoreCorrupt as damaged:
                _tell_rebuilt(cls._rebuild(path, damaged), told)
                connection = connect_checked(path)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        keep_store_private(path)  # a new file, its log and its lock too
        return cls(connection, path, lock, keep_audio)

    @classmethod
    def read(cls, path: Path | None = None, *, told: Told | None = None) -> Store:
        """Open for reading only (``history``, ``stats``): nothing is written, so a read-only folder or file
        is read all the same. A file of an older voice-earl is brought up to date first, where it can be, and
        a damaged one is moved aside and rebuilt where the folder allows it (``told`` as for :meth:`open`)."""
        path = path or database_path()
        try:
            connection = connect_read_only(path)
        except StoreCorrupt as damaged:
            _tell_rebuilt(cls._rebuild(path, damaged), told)
            connection = connect_read_only(path)
        (version,) = connection.execute("PRAGMA user_version").fetchone()
        if version < SCHEMA_VERSION:
            connection.close()
            connect_checked(path).close()
            connection = connect_read_only(path)
        keep_store_private(path)
        return cls(connection, path, None, keep_audio=False)

    @classmethod
    def _rebuild(cls, path: Path, damaged: StoreCorrupt) -> StoreCorrupt:
        """A new database at ``path`` (moved aside as ``damaged`` says) holding every series kept beside it."""
        kept = kept_series(path, damaged.moved_to)
        if not kept:
            return StoreCorrupt(
                f"{damaged}; no series is kept beside it to rebuild it from: a new one is begun", damaged.moved_to
            )
        with cls(connect_checked(path), path, None, keep_audio=False) as store:
            restored = [series for series in kept if store.restore(series)]
        unfinished = sum(series.status is SeriesStatus.OPEN for series in restored)
        log.warning("rebuilt %s from %d series kept beside it", path, len(restored))
        return StoreCorrupt(
            f"{damaged}; a new one was rebuilt from the series kept beside it in {path.parent / FOLDER}:"
            f" {len(restored)} series, {unfinished} of them unfinished (the lines said, which `voice-earl stats`"
            " counts, are not kept beside it: they stay in the file moved aside)",
            damaged.moved_to,
        )

    def restore(self, kept: KeptSeries) -> bool:
        """Put back a series from the files kept beside the database (False: the database holds it already)."""
        with self._transaction():
            return restore_series(self._db, kept)

    def close(self) -> None:
        self._db.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # -- series ------------------------------------------------------------------------------

    def open_series(self, settings: Mapping[str, Any]) -> int:
        """Start a series with its settings (players, profile, deck mode, seed, deals, chant...)."""
        body = dumps(settings)
        players = settings.get("players", [])
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO series (started_at, settings, players) VALUES (?, ?, ?)",
                (stamp(utc_now()), body, dumps(names_in(players))),
            )
        series_id = cursor.lastrowid
        assert series_id is not None
        self._note_series(series_id)
        self._keep_record(series_id)
        log.info("opened series %d", series_id)
        return series_id

    def append_event(self, series_id: int, seq: int, event: Mapping[str, Any]) -> None:
        """Journal event number ``seq`` (0-based) of a series, in its own committed transaction.

        Re-appending an event already stored identically does nothing, so a writer that
        crashed between commit and acknowledgement can safely retry. A different event at a
        stored ``seq``, a gap, or a closed series raise ``JournalError``.
        """
        kind = event.get("event")
        if not isinstance(kind, str):
            raise ValueError(f"a game-log event needs an 'event' name, got {event!r}")
        body = dumps(event)
        with self._transaction():
            status = self._status(series_id)
            stored = self._db.execute(
                "SELECT body FROM events WHERE series_id = ? AND seq = ?", (series_id, seq)
            ).fetchone()
            if stored is not None:
                if json_object(stored[0], f"series {series_id}'s event {seq}") != json.loads(body):
                    raise JournalError(f"series {series_id} already holds a different event {seq}")
                return
            if status is not SeriesStatus.OPEN:
                raise JournalError(f"series {series_id} is {status.value}; it takes no more events")
            (next_seq,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM events WHERE series_id = ?", (series_id,)
            ).fetchone()
            if seq != next_seq:
                raise JournalError(f"series {series_id} expects event {next_seq} next, not {seq}")
            self._db.execute(
                "INSERT INTO events (series_id, seq, kind, body, at) VALUES (?, ?, ?, ?, ?)",
                (series_id, seq, kind, body, stamp(utc_now())),
            )
            summarise(self._db, series_id, event)
        self._note_series(series_id)

    def truncate_events(self, series_id: int, keep: int) -> None:
        """Drop every event from number ``keep`` on (an undo at the table), in one transaction."""
        if keep < 0:
            raise ValueError(f"cannot keep {keep} events")
        with self._transaction():
            if self._status(series_id) is not SeriesStatus.OPEN:
                raise JournalError(f"series {series_id} is closed; its events cannot be taken back")
            self._db.execute("DELETE FROM events WHERE series_id = ? AND seq >= ?", (series_id, keep))
            # The listing columns were built event by event: build them again from what is left.
            self._db.execute(
                "UPDATE series SET deals = 0, totals = NULL, places = NULL, wins = '[]' WHERE id = ?", (series_id,)
            )
            rows = self._db.execute("SELECT body FROM events WHERE series_id = ? ORDER BY seq", (series_id,))
            for (body,) in rows.fetchall():
                summarise(self._db, series_id, json_object(body, f"series {series_id}'s events"))

    def load_series(self, series_id: int) -> tuple[Event, list[Event]]:
        """The settings and every journalled event, in order, exactly as appended.

        A body that is not a JSON object (the file was edited or damaged) is a ``JournalError`` naming it.
        """
        settings = self.settings(series_id)
        rows = self._db.execute("SELECT seq, body FROM events WHERE series_id = ? ORDER BY seq", (series_id,))
        return settings, [json_object(body, f"series {series_id}'s event {seq}") for seq, body in rows]

    def settings(self, series_id: int) -> Event:
        """A series' settings record (a ``JournalError`` when it cannot be read)."""
        (value,) = self._status_row(series_id, "settings")
        return json_object(value, f"series {series_id}'s settings")

    def readable_events(self, series_id: int) -> tuple[list[Event], str | None]:
        """A series' events as far as they read, and what stopped the reading (None: every one read)."""
        self._status_row(series_id)
        events: list[Event] = []
        rows = self._db.execute("SELECT seq, body FROM events WHERE series_id = ? ORDER BY seq", (series_id,))
        for seq, body in rows:
            if seq != len(events):
                return events, f"event {len(events)} is missing"
            try:
                events.append(json_object(body, f"event {seq}"))
            except JournalError as error:
                return events, str(error)
        return events, None

    def event_count(self, series_id: int) -> int:
        """How many events of a series are stored (numbered from 0, without gaps)."""
        try:
            (count,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM events WHERE series_id = ?", (_known_id(series_id),)
            ).fetchone()
        except sqlite3.OperationalError as error:  # the disk failed: nothing can be saved either
            raise StoreWriteError(f"cannot read the database {self.path}: {describe_error(error, self.path)}") from None
        return int(count)

    def update_settings(self, series_id: int, changes: Mapping[str, Any]) -> None:
        """Merge ``changes`` into a series' settings record (other keys stay as they are)."""
        with self._transaction():
            row = self._db.execute("SELECT settings FROM series WHERE id = ?", (_known_id(series_id),)).fetchone()
            if row is None:
                raise _no_series(series_id)
            settings = {**json_object(row[0], f"series {series_id}'s settings"), **changes}
            self._db.execute("UPDATE series SET settings = ? WHERE id = ?", (dumps(settings), series_id))
        self._keep_record(series_id)

    def keep_phones(self, series_id: int, phones: Mapping[str, Any]) -> None:
        """Keep the phones' addresses (tokens, port) with a series, for ``play --resume``."""
        with self._transaction():
            self._status(series_id)
            self._db.execute("UPDATE series SET phones = ? WHERE id = ?", (dumps(phones), series_id))

    def phones(self, series_id: int) -> dict[str, Any] | None:
        """The phones' addresses kept with a series, or None; a record that is not a JSON object is a
        ``JournalError`` naming it (what is inside is for the phones to judge)."""
        (value,) = self._status_row(series_id, "phones")
        if value is None:
            return None
        return json_object(value, f"series {series_id}'s phones record")

    def finish_series(self, series_id: int, *, abandoned: bool = False) -> None:
        """Close a series: finished (played out), or abandoned (given up unfinished).

        A status damaged inside its row no longer matches its entry in the status index, and SQLite refuses
        to change it: the index is built again from the rows, and the series closed (and so repaired)."""
        status = SeriesStatus.ABANDONED if abandoned else SeriesStatus.FINISHED
        try:
            self._close(series_id, status)
            self._keep_record(series_id)
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
            log.warning("series %d cannot be closed (%s): rebuilding the status index", series_id, error)
            try:
                with self._transaction():
                    self._db.execute("REINDEX series_status")
                self._close(series_id, status)
            except sqlite3.DatabaseError as again:
                raise VoiceEarlError(
                    f"cannot close series {series_id}: the database {self.path} is damaged ({again})"
                ) from None

    def _close(self, series_id: int, status: SeriesStatus) -> None:
        with self._transaction():
            self._status(series_id)
            self._db.execute(
                "UPDATE series SET status = ?, finished_at = COALESCE(finished_at, ?) WHERE id = ?",
                (status.value, stamp(utc_now()), series_id),
            )

    def unfinished_series(self) -> list[SeriesSummary]:
        """Open series, newest first: candidates to resume."""
        return self._summaries("WHERE s.status = 'open'")

    def list_series(self) -> list[SeriesSummary]:
        """Every series, newest first."""
        return self._summaries("")

    def series_summary(self, series_id: int) -> SeriesSummary:
        found = self._summaries("WHERE s.id = ?", (_known_id(series_id),))
        if not found:
            raise _no_series(series_id)
        return found[0]

    # -- utterances ----------------------------------------------------------------------------

    def record_utterance(self, utterance: Utterance, *, pcm16: bytes | None = None, sample_rate: int = 16000) -> int:
        """Store one utterance; its audio (16-bit mono PCM) is kept as a WAV only with ``keep_audio``."""
        audio = utterance.audio_path
        if pcm16 is not None and self.keep_audio:
            audio = keep_wav(self.path.parent, utterance, pcm16, sample_rate) or audio
        with self._transaction():
            return insert_utterance(self._db, utterance, audio, self.path.parent)

    def utterances(self, *, mode: Mode | None = None) -> list[Utterance]:
        """Recorded utterances, oldest first, optionally of one mode only (a damaged row is left out)."""
        return select_utterances(self._db, self.path.parent, mode)

    # -- internals -------------------------------------------------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One committed transaction, or none of it: a write that fails is rolled back whole.

        A database that cannot be written (read-only, disk full, disk failing) raises ``StoreWriteError``.
        """
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    with suppress(sqlite3.Error):  # SQLite may have rolled back already
                        self._db.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as error:
            log.warning("cannot write to %s: %s", self.path, error)
            why = describe_error(error, self.path)
            raise StoreWriteError(f"cannot save to the database {self.path}: {why}") from None

    def _status(self, series_id: int) -> SeriesStatus:
        """A series' status; one that cannot be read is taken as open (nothing says it ended)."""
        (status,) = self._status_row(series_id)
        try:
            return SeriesStatus(status)
        except ValueError:
            return SeriesStatus.OPEN

    def _status_row(self, series_id: int, column: str = "status") -> tuple[Any, ...]:
        row = self._db.execute(f"SELECT {column} FROM series WHERE id = ?", (_known_id(series_id),)).fetchone()
        if row is None:
            raise _no_series(series_id)
        return tuple(row)

    def _keep_record(self, series_id: int) -> None:
        """The series' record beside the database, as the database now holds it (what a rebuild starts from)."""
        row = self._db.execute("SELECT started_at, status, settings FROM series WHERE id = ?", (series_id,)).fetchone()
        try:
            settings = json_object(row[2], f"series {series_id}'s settings")
        except JournalError as error:
            log.warning("the record of series %d is not kept: %s", series_id, error)
            return
        keep_record(self.path, series_id, {"started_at": row[0], "status": row[1], "settings": settings})

    def _note_series(self, series_id: int) -> None:
        if self._lock is not None:
            self._lock.note_series(series_id)

    def _summaries(self, where: str, params: tuple[int, ...] = ()) -> list[SeriesSummary]:
        rows = self._db.execute(f"SELECT {SUMMARY_COLUMNS} FROM series s {where} ORDER BY s.id DESC", params)
        return [summary_of(tuple(row)) for row in rows.fetchall()]


# -- small helpers ---------------------------------------------------------------------------------


Told = Callable[[str], None]
"""Told, in one line, that a damaged database was moved aside and a new one rebuilt."""


def _tell_rebuilt(rebuilt: StoreCorrupt, told: Told | None) -> None:
    if told is None:
        raise rebuilt
    told(str(rebuilt))


def _no_series(series_id: int) -> VoiceEarlError:
    return VoiceEarlError(f"no series {series_id}: see `voice-earl history` for the list")


def _known_id(series_id: int) -> int:
    """``series_id`` if SQLite can hold it (a 64-bit integer); otherwise no such series."""
    if not MIN_SERIES_ID <= series_id <= MAX_SERIES_ID:
        raise _no_series(series_id)
    return series_id
