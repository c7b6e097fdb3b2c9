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
import wave
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any

from voice_earl.errors import VoiceEarlError
from voice_earl.game.cards import Rank
from voice_earl.keep.storage_file import (
    StoreWriteError,
    WriterLock,
    connect_checked,
    database_path,
    describe_error,
)
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
    def open(cls, path: Path | None = None, *, exclusive: bool = True, keep_audio: bool = False) -> Store:
        """Open (creating or migrating) the database.

        ``exclusive`` takes the writer's lock: games, practice and drills need it; ``history``
        and ``stats`` only read and do not. ``keep_audio`` keeps a WAV of each recorded utterance.
        Raises ``StoreBusy``, ``StoreCorrupt`` or ``VoiceEarlError`` with one clear line.
        """
        path = path or database_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise VoiceEarlError(f"cannot create the data folder {path.parent}: {error.strerror}") from None
        lock = WriterLock.acquire(path) if exclusive else None
        try:
            connection = connect_checked(path)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        return cls(connection, path, lock, keep_audio)

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
        body = _dumps(settings)
        players = settings.get("players", [])
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO series (started_at, settings, players) VALUES (?, ?, ?)",
                (_stamp(utc_now()), body, _dumps(_names(players))),
            )
        series_id = cursor.lastrowid
        assert series_id is not None
        self._note_series(series_id)
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
        body = _dumps(event)
        with self._transaction():
            status = self._status(series_id)
            stored = self._db.execute(
                "SELECT body FROM events WHERE series_id = ? AND seq = ?", (series_id, seq)
            ).fetchone()
            if stored is not None:
                if _object(stored[0], f"series {series_id}'s event {seq}") != json.loads(body):
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
                (series_id, seq, kind, body, _stamp(utc_now())),
            )
            self._summarise(series_id, event)
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
                self._summarise(series_id, _object(body, f"series {series_id}'s events"))

    def load_series(self, series_id: int) -> tuple[Event, list[Event]]:
        """The settings and every journalled event, in order, exactly as appended.

        A body that is not a JSON object (the file was edited or damaged) is a ``JournalError`` naming it.
        """
        row = self._db.execute("SELECT settings FROM series WHERE id = ?", (_known_id(series_id),)).fetchone()
        if row is None:
            raise _no_series(series_id)
        settings = _object(row[0], f"series {series_id}'s settings")
        rows = self._db.execute("SELECT seq, body FROM events WHERE series_id = ? ORDER BY seq", (series_id,))
        return settings, [_object(body, f"series {series_id}'s event {seq}") for seq, body in rows]

    def update_settings(self, series_id: int, changes: Mapping[str, Any]) -> None:
        """Merge ``changes`` into a series' settings record (other keys stay as they are)."""
        with self._transaction():
            row = self._db.execute("SELECT settings FROM series WHERE id = ?", (_known_id(series_id),)).fetchone()
            if row is None:
                raise _no_series(series_id)
            settings = {**_object(row[0], f"series {series_id}'s settings"), **changes}
            self._db.execute("UPDATE series SET settings = ? WHERE id = ?", (_dumps(settings), series_id))

    def keep_phones(self, series_id: int, phones: Mapping[str, Any]) -> None:
        """Keep the phones' addresses (tokens, port) with a series, for ``play --resume``."""
        with self._transaction():
            self._status(series_id)
            self._db.execute("UPDATE series SET phones = ? WHERE id = ?", (_dumps(phones), series_id))

    def phones(self, series_id: int) -> dict[str, Any] | None:
        """The phones' addresses kept with a series, or None."""
        row = self._db.execute("SELECT phones FROM series WHERE id = ?", (series_id,)).fetchone()
        if row is None:
            raise _no_series(series_id)
        value = json.loads(row[0]) if row[0] else None
        return value if isinstance(value, dict) else None

    def finish_series(self, series_id: int, *, abandoned: bool = False) -> None:
        """Close a series: finished (played out), or abandoned (given up unfinished)."""
        status = SeriesStatus.ABANDONED if abandoned else SeriesStatus.FINISHED
        with self._transaction():
            self._status(series_id)
            self._db.execute(
                "UPDATE series SET status = ?, finished_at = COALESCE(finished_at, ?) WHERE id = ?",
                (status.value, _stamp(utc_now()), series_id),
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
        audio_path = utterance.audio_path
        if pcm16 is not None and self.keep_audio:
            try:
                audio_path = self._write_wav(utterance, pcm16, sample_rate)
            except OSError as error:  # the line itself is still kept
                log.warning("cannot keep the audio of an utterance: %s", error)
        relative = None if audio_path is None else _relative_to(audio_path, self.path.parent)
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO utterances (at, mode, position, rank, expected, heard, verdict, score,"
                " latency_ms, strictness, session, series_id, audio_path, heard_position)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    _stamp(utterance.at),
                    utterance.mode.value,
                    utterance.position,
                    None if utterance.rank is None else utterance.rank.value,
                    utterance.expected,
                    utterance.heard,
                    utterance.verdict,
                    utterance.score,
                    utterance.latency_ms,
                    utterance.strictness,
                    utterance.session,
                    utterance.series_id,
                    relative,
                    utterance.heard_position,
                ),
            )
        row_id = cursor.lastrowid
        assert row_id is not None
        return row_id

    def utterances(self, *, mode: Mode | None = None) -> list[Utterance]:
        """Recorded utterances, oldest first, optionally of one mode only."""
        query = (
            "SELECT mode, position, rank, expected, heard, verdict, score, latency_ms, strictness, at,"
            " session, series_id, audio_path, heard_position FROM utterances"
        )
        params: tuple[str, ...] = ()
        if mode is not None:
            query += " WHERE mode = ?"
            params = (mode.value,)
        rows = self._db.execute(query + " ORDER BY at, id", params).fetchall()
        return [self._utterance(row) for row in rows]

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
            raise StoreWriteError(f"cannot save to the database {self.path}: {describe_error(error)}") from None

    def _status(self, series_id: int) -> SeriesStatus:
        row = self._db.execute("SELECT status FROM series WHERE id = ?", (_known_id(series_id),)).fetchone()
        if row is None:
            raise _no_series(series_id)
        return SeriesStatus(row[0])

    def _note_series(self, series_id: int) -> None:
        if self._lock is not None:
            self._lock.note_series(series_id)

    def _summarise(self, series_id: int, event: Mapping[str, Any]) -> None:
        """Keep the listing columns current, so ``history`` need not replay every series."""
        kind = event["event"]
        if kind == "deal" and isinstance(event.get("deal"), int):
            self._db.execute("UPDATE series SET deals = MAX(deals, ?) WHERE id = ?", (event["deal"], series_id))
            players = _names(event.get("players"))
            if players:
                self._db.execute(
                    "UPDATE series SET players = ? WHERE id = ? AND players = '[]'",
                    (_dumps(players), series_id),
                )
        elif kind == "win" and isinstance(event.get("player"), int) and event["player"] >= 0:
            (wins_text,) = self._db.execute("SELECT wins FROM series WHERE id = ?", (series_id,)).fetchone()
            wins: list[int] = json.loads(wins_text)
            seat = event["player"]
            wins.extend([0] * (seat + 1 - len(wins)))
            wins[seat] += 1
            self._db.execute("UPDATE series SET wins = ? WHERE id = ?", (_dumps(wins), series_id))
        elif kind in ("settle", "series") and _int_list(event.get("totals")):
            self._db.execute("UPDATE series SET totals = ? WHERE id = ?", (_dumps(event["totals"]), series_id))
            if kind == "series" and _int_list(event.get("places")):
                self._db.execute("UPDATE series SET places = ? WHERE id = ?", (_dumps(event["places"]), series_id))

    def _summaries(self, where: str, params: tuple[int, ...] = ()) -> list[SeriesSummary]:
        rows = self._db.execute(
            "SELECT s.id, s.started_at, s.finished_at, s.status, s.players, s.settings, s.deals, s.totals,"
            " s.places, s.wins, (SELECT COUNT(*) FROM events e WHERE e.series_id = s.id)"
            f" FROM series s {where} ORDER BY s.id DESC",
            params,
        ).fetchall()
        return [_summary(row) for row in rows]

    def _utterance(self, row: sqlite3.Row) -> Utterance:
        return Utterance(
            mode=Mode(row["mode"]),
            position=row["position"],
            rank=None if row["rank"] is None else Rank(row["rank"]),
            expected=row["expected"],
            heard=row["heard"],
            verdict=row["verdict"],
            score=row["score"],
            latency_ms=row["latency_ms"],
            strictness=row["strictness"],
            at=datetime.fromisoformat(row["at"]),
            session=row["session"],
            series_id=row["series_id"],
            audio_path=None if row["audio_path"] is None else self.path.parent / row["audio_path"],
            heard_position=row["heard_position"],
        )

    def _write_wav(self, utterance: Utterance, pcm16: bytes, sample_rate: int) -> Path:
        folder = self.path.parent / "audio" / utterance.at.astimezone().strftime("%Y-%m-%d")
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{utterance.at.strftime('%H%M%S-%f')}-{utterance.mode.value}-p{utterance.position}.wav"
        path = folder / name
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(sample_rate)
            out.writeframes(pcm16)
        return path


# -- small helpers ---------------------------------------------------------------------------------


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"not JSON-able: {error}") from None


def _stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _names(value: object) -> list[str]:
    return [str(name) for name in value] if isinstance(value, list) else []


def _int_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, int) for x in value)


def _relative_to(path: Path, folder: Path) -> str:
    try:
        return str(path.relative_to(folder))
    except ValueError:
        return str(path)


def _no_series(series_id: int) -> VoiceEarlError:
    return VoiceEarlError(f"no series {series_id}: see `voice-earl history` for the list")


def _known_id(series_id: int) -> int:
    """``series_id`` if SQLite can hold it (a 64-bit integer); otherwise no such series."""
    if not MIN_SERIES_ID <= series_id <= MAX_SERIES_ID:
        raise _no_series(series_id)
    return series_id


def _object(text: str, what: str) -> Event:
    """A stored JSON object, or a ``JournalError`` saying which one is damaged."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        raise JournalError(f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise JournalError(f"{what} is not a JSON object")
    return value


def _summary(row: tuple[Any, ...]) -> SeriesSummary:
    series_id, started, finished, status, players, settings, deals, totals, places, wins, events = row
    try:
        record = _object(settings, "settings")
    except JournalError:
        record = {}  # history still lists it; resuming it says what is wrong
    try:
        mode = Mode(record.get("mode", "play"))
    except ValueError:
        mode = Mode.PLAY
    return SeriesSummary(
        id=series_id,
        started_at=datetime.fromisoformat(started),
        finished_at=None if finished is None else datetime.fromisoformat(finished),
        status=SeriesStatus(status),
        players=tuple(json.loads(players)),
        profile=str(record.get("profile", "?")),
        mode=mode,
        deals=deals,
        events=events,
        totals=None if totals is None else tuple(json.loads(totals)),
        places=None if places is None else tuple(json.loads(places)),
        wins=tuple(json.loads(wins)),
    )
