"""The journal's SQLite file: opening it with checks and migrations, moving a damaged file aside, and the
writer's lock beside it (it dies with the process, so a second instance is told the database is busy).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from datetime import datetime
from pathlib import Path

from voice_earl.errors import VoiceEarlError
from voice_earl.keep.file_lock import open_lock_file, try_lock
from voice_earl.keep.storage_schema import MIGRATIONS, SCHEMA_VERSION
from voice_earl.paths import data_dir

log = logging.getLogger(__name__)

DATABASE_NAME = "voice-earl.sqlite3"
BUSY_TIMEOUT_S = 10.0

# sqlite3 error names that mean the file itself is damaged (rather than busy or unopenable).
_DAMAGE_ERRORS = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}
_DAMAGE_WORDS = ("malformed", "not a database", "corrupt")


class StoreBusy(VoiceEarlError):
    """Another running voice-earl holds the database."""


class StoreWriteError(VoiceEarlError):
    """Something could not be saved: the database is read-only, the disk is full, or the disk failed.

    What was saved before is intact: every write is one transaction, rolled back when it fails.
    """


class StoreCorrupt(VoiceEarlError):
    """The database could not be read; it has been moved to ``moved_to``."""

    def __init__(self, message: str, moved_to: Path) -> None:
        super().__init__(message)
        self.moved_to = moved_to


def database_path() -> Path:
    return data_dir() / DATABASE_NAME


# -- opening, checking, migrating ------------------------------------------------------------------


def connect_checked(path: Path) -> sqlite3.Connection:
    """Connect, check integrity and migrate; a damaged file is moved aside (``StoreCorrupt``)."""
    connection: sqlite3.Connection | None = None
    try:
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        connection.row_factory = sqlite3.Row
        _use_wal(connection)
        connection.execute("PRAGMA synchronous = FULL")
        connection.execute("PRAGMA foreign_keys = ON")
        problems = [row[0] for row in connection.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise sqlite3.DatabaseError(f"database disk image is malformed ({problems[0]})")
        _migrate(connection, path)
        return connection
    except sqlite3.DatabaseError as error:
        if connection is not None:
            connection.close()
        if not _is_damage(error):
            log.warning("cannot open the database %s", path, exc_info=True)
            raise VoiceEarlError(f"cannot open the database {path}: {describe_error(error)}") from None
        moved = _move_aside(path)
        raise StoreCorrupt(
            f"the database {path} is damaged ({error}); it was moved to {moved} and a new one will be"
            " started the next time you run voice-earl",
            moved,
        ) from None


def _use_wal(connection: sqlite3.Connection) -> None:
    """Switch to write-ahead logging, once per file.

    On a new file several voice-earls may try at once; the switch then reports "locked" without
    waiting for the busy timeout, so it is tried again until the timeout has passed.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            (mode,) = connection.execute("PRAGMA journal_mode").fetchone()
            if str(mode).lower() != "wal":
                connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _is_damage(error: sqlite3.DatabaseError) -> bool:
    if getattr(error, "sqlite_errorname", None) in _DAMAGE_ERRORS:
        return True
    text = str(error).lower()
    return any(word in text for word in _DAMAGE_WORDS)


def _migrate(connection: sqlite3.Connection, path: Path) -> None:
    """Bring the file to :data:`SCHEMA_VERSION`, one step at a time, under the database's write lock.

    The version is read again inside ``BEGIN IMMEDIATE``: several voice-earls starting at once on a new
    file wait for each other, and only the first one builds the tables.
    """
    version = _schema_version(connection, path)
    if version == SCHEMA_VERSION:
        return
    connection.execute("BEGIN IMMEDIATE")
    try:
        version = _schema_version(connection, path)
        for target in range(version + 1, SCHEMA_VERSION + 1):
            for statement in statements(MIGRATIONS[target - 1]):
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {target}")
            log.info("migrated %s to schema %d", path, target)
        connection.execute("COMMIT")  # one transaction: a crash leaves the old version
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def _schema_version(connection: sqlite3.Connection, path: Path) -> int:
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    if version > SCHEMA_VERSION:
        raise VoiceEarlError(
            f"the database {path} was written by a newer voice-earl (schema {version}, this one knows"
            f" {SCHEMA_VERSION}); upgrade voice-earl"
        )
    return int(version)


def statements(script: str) -> list[str]:
    r"""The SQL statements of a script, one by one (``executescript`` would commit the migration's transaction).

    >>> statements("CREATE TABLE a (x);\nCREATE TABLE b (\n  y\n);\n")
    ['CREATE TABLE a (x);', 'CREATE TABLE b (\n  y\n);']
    """
    found: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    if pending.strip():
        found.append(pending.strip())
    return found


def describe_error(error: sqlite3.Error) -> str:
    """What went wrong with the database, in plain words: "the disk is full", "it is read-only"..."""
    name = str(getattr(error, "sqlite_errorname", ""))
    text = str(error).lower()
    if name.startswith("SQLITE_READONLY") or "readonly" in text or "read-only" in text:
        return "it is read-only (check the permissions of the file and its folder)"
    if name == "SQLITE_FULL" or "disk is full" in text:
        return "the disk is full"
    if name.startswith("SQLITE_IOERR") or "disk i/o error" in text:
        return f"the disk failed to read or write ({error})"
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return "it is busy: another voice-earl is writing to it"
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")) or "unable to open" in text:
        return f"{error} (check the permissions of the file and its folder)"
    return str(error)


def _move_aside(path: Path) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    counter = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
        counter += 1
    # The WAL and shared-memory files travel with it, so the pair can still be opened for rescue.
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            companion.rename(target.with_name(target.name + suffix))
    path.rename(target)
    log.warning("moved the damaged database %s to %s", path, target)
    return target


# -- the writer's lock -------------------------------------------------------------------------------


class WriterLock:
    """An exclusive ``flock`` on ``<database>.lock``, noting the holder's pid and series.

    The operating system drops the lock when the process dies, however it dies.
    """

    def __init__(self, fd: int, path: Path) -> None:
        self._fd = fd
        self.path = path

    @classmethod
    def acquire(cls, database: Path) -> WriterLock:
        path = database.with_name(database.name + ".lock")
        fd = open_lock_file(path)
        if not try_lock(fd):
            holder = os.read(fd, 200).decode("utf-8", "replace").strip()
            os.close(fd)
            raise StoreBusy(f"busy: the database {database} is in use by {_describe_holder(holder)}; finish it first")
        lock = cls(fd, path)
        lock._write(f"pid {os.getpid()}")
        return lock

    def note_series(self, series_id: int) -> None:
        self._write(f"pid {os.getpid()} series {series_id}")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = -1

    def _write(self, text: str) -> None:
        try:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, text.encode(), 0)
        except OSError as error:  # only a note for the busy message: the lock itself holds
            log.warning("cannot note the lock's holder in %s: %s", self.path, error)


def _describe_holder(note: str) -> str:
    """``pid 41 series 7`` -> ``another voice-earl (pid 41) playing series 7``."""
    words = note.split()
    fields = dict(zip(words[::2], words[1::2], strict=False))
    who = f"another voice-earl (pid {fields['pid']})" if "pid" in fields else "another voice-earl"
    return f"{who} playing series {fields['series']}" if "series" in fields else who

