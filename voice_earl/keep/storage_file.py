"""The journal's SQLite file: opening it with checks and migrations (or for reading only), and moving a
damaged or empty file aside. The writer's lock beside it is :mod:`voice_earl.keep.storage_lock`.
"""

from __future__ import annotations

import logging
import os
import secrets
import sqlite3
import time
import urllib.parse
from contextlib import suppress
from datetime import datetime
from pathlib import Path

from voice_earl.errors import VoiceEarlError
from voice_earl.keep.storage_rows import decode_text
from voice_earl.keep.storage_schema import MIGRATIONS, SCHEMA_VERSION
from voice_earl.paths import data_dir, keep_private

log = logging.getLogger(__name__)

DATABASE_NAME = "voice-earl.sqlite3"
BUSY_TIMEOUT_S = 10.0

# sqlite3 error names that mean the file itself is damaged (rather than busy or unopenable).
_DAMAGE_ERRORS = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}
_DAMAGE_WORDS = ("malformed", "not a database", "corrupt")


class StoreWriteError(VoiceEarlError):
    """Something could not be saved: the database is read-only, the disk is full, or the disk failed.

    What was saved before is intact: every write is one transaction, rolled back when it fails.
    """


class StoreCorrupt(VoiceEarlError):
    """The database could not be read (or was empty); it has been moved to ``moved_to``, and the store opens a
    new one in its place, rebuilt from the series kept beside it (:mod:`voice_earl.keep.series_files`)."""

    def __init__(self, message: str, moved_to: Path) -> None:
        super().__init__(message)
        self.moved_to = moved_to


def database_path() -> Path:
    return data_dir() / DATABASE_NAME


def keep_store_private(path: Path) -> None:
    """The database, its write-ahead log, shared memory and lock, and their folder, the user's alone (0600 and
    0700, however loose they were): they hold every player's name and every phone's address."""
    keep_private(path.parent)
    for suffix in ("", "-wal", "-shm", ".lock"):
        keep_private(path.with_name(path.name + suffix))


# -- opening, checking, migrating ------------------------------------------------------------------

# Marks a file voice-earl made (``PRAGMA application_id``); files made before it say 0.
APPLICATION_ID = 0x56456172  # "VEar"
OUR_TABLES = frozenset({"series", "events", "utterances"})


class NotOurs(VoiceEarlError):
    """The file at the database's place belongs to another program: it is never changed."""


def connect_checked(path: Path) -> sqlite3.Connection:
    """Connect, check the file is ours and whole, then switch it to WAL and migrate it.

    Nothing is written before the checks: a file that is not voice-earl's is refused as it is
    (``NotOurs``), and a damaged file is moved aside (``StoreCorrupt``), as is an empty one.
    """
    _set_aside_if_empty(path)
    if not path.exists():
        _create(path)
    connection: sqlite3.Connection | None = None
    try:
        connection = _connect(str(path))
        _check_ours(connection, path)
        _quick_check(connection)
        _use_wal(connection)
        connection.execute("PRAGMA synchronous = FULL")
        connection.execute("PRAGMA foreign_keys = ON")
        _migrate(connection, path)
        return connection
    except sqlite3.DatabaseError as error:
        if connection is not None:
            connection.close()
        if not is_damage(error):
            log.warning("cannot open the database %s", path, exc_info=True)
            raise VoiceEarlError(f"cannot open the database {path}: {describe_error(error, path)}") from None
        moved = _move_aside(path)
        raise StoreCorrupt(f"the database {path} is damaged ({error}); it was moved to {moved}", moved) from None
    except BaseException:
        if connection is not None:
            connection.close()
        raise


def connect_read_only(path: Path) -> sqlite3.Connection:
    """For commands that only read: nothing is written, not even WAL's shared-memory file where the folder
    cannot take one (then the file is read as ``immutable``). No file yet reads as an empty database."""
    if not path.exists():
        return _empty_in_memory()
    try:
        _set_aside_if_empty(path)
    except OSError as failed:  # a read-only folder: left as it is
        raise VoiceEarlError(
            f"the database {path} is empty (0 bytes); it could not be moved aside ({failed.strerror or failed})"
        ) from None
    uri = "file:" + urllib.parse.quote(str(path.resolve()))
    for mode in ("mode=ro", "immutable=1"):
        connection: sqlite3.Connection | None = None
        try:
            connection = _connect(f"{uri}?{mode}", uri=True)
            _check_ours(connection, path)
            _quick_check(connection)
            _schema_version(connection, path)
            return connection
        except sqlite3.DatabaseError as error:
            if connection is not None:
                connection.close()
            if mode == "mode=ro" and _cannot_open(error):
                log.info("reading %s as immutable: %s", path, error)
                continue
            if not is_damage(error):
                raise VoiceEarlError(f"cannot read the database {path}: {describe_error(error, path)}") from None
            raise _damaged_reading(path, error) from None
        except BaseException:
            if connection is not None:
                connection.close()
            raise
    raise AssertionError("unreachable: immutable is the last way to read")


def _connect(target: str, *, uri: bool = False) -> sqlite3.Connection:
    connection = sqlite3.connect(target, timeout=BUSY_TIMEOUT_S, isolation_level=None, uri=uri)
    connection.row_factory = sqlite3.Row
    connection.text_factory = decode_text  # a damaged value is marked, never stops a query
    return connection


def _check_ours(connection: sqlite3.Connection, path: Path) -> None:
    """Refuse another program's SQLite file before anything writes to it (the switch to WAL would)."""
    (application,) = connection.execute("PRAGMA application_id").fetchone()
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if version > SCHEMA_VERSION:
        _schema_version(connection, path)  # a newer voice-earl's: refused as it is
    if application not in (0, APPLICATION_ID):
        why = f"it is marked as another program's (application id {application:#x})"
    elif version == 0 and tables:
        why = "it holds tables of its own: " + ", ".join(sorted(tables)[:5])
    elif version > 0 and not tables >= OUR_TABLES:
        why = f"it has no {', '.join(sorted(OUR_TABLES - tables))} table"
    else:
        return
    raise NotOurs(
        f"the file {path} is not a voice-earl database ({why}); it was left as it is. Move it"
        " elsewhere, or keep voice-earl's files in another folder with VOICE_EARL_DATA_DIR"
    )


# quick_check's words for a value that breaks its column's constraint: damage inside one row, which the
# rows' readers name (storage_rows), not damage to the file.
_ROW_DAMAGE = ("CHECK constraint failed in ", "NULL value in ")


def _quick_check(connection: sqlite3.Connection) -> None:
    problems = [str(row[0]) for row in connection.execute("PRAGMA quick_check") if row[0] != "ok"]
    in_rows = [problem for problem in problems if problem.startswith(_ROW_DAMAGE)]
    if in_rows:
        log.warning("damage inside rows, left for their readers to name: %s", "; ".join(in_rows))
    if len(in_rows) < len(problems):
        first = next(problem for problem in problems if problem not in in_rows)
        raise sqlite3.DatabaseError(f"database disk image is malformed ({first})")


def _create(path: Path) -> None:
    """A new database, built whole beside its place and then linked there: no other voice-earl ever sees
    it half made (an empty file at the database's place is a file that lost its contents)."""
    temporary = path.with_name(f"{path.name}.new-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        connection = sqlite3.connect(temporary, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
            for target in range(1, SCHEMA_VERSION + 1):
                for statement in statements(MIGRATIONS[target - 1]):
                    connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            connection.execute("COMMIT")
            connection.execute("PRAGMA journal_mode = WAL")
        finally:
            connection.close()
        _link(temporary, path)
        log.info("created the database %s", path)
    except sqlite3.Error as error:
        raise VoiceEarlError(f"cannot create the database {path}: {describe_error(error, path)}") from None
    except OSError as error:
        raise VoiceEarlError(f"cannot create the database {path}: {error.strerror or error}") from None
    finally:
        for leftover in (temporary, *(temporary.with_name(temporary.name + s) for s in ("-wal", "-shm", "-journal"))):
            with suppress(OSError):
                leftover.unlink()


def _link(made: Path, path: Path) -> None:
    """Put ``made`` at ``path`` unless another voice-earl has just put its own there."""
    try:
        os.link(made, path)
    except FileExistsError:
        pass
    except OSError:  # a file system without hard links: a rename, if the place is still free
        if not path.exists():
            os.rename(made, path)


def _empty_in_memory() -> sqlite3.Connection:
    connection = _connect(":memory:")
    for script in MIGRATIONS:
        for statement in statements(script):
            connection.execute(statement)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return connection


def _is_empty(path: Path) -> bool:
    """A database file of 0 bytes, with no write-ahead log that could still hold its pages."""
    try:
        if path.stat().st_size != 0:
            return False
        wal = path.with_name(path.name + "-wal")
        return not wal.exists() or wal.stat().st_size == 0
    except OSError:
        return False


def _set_aside_if_empty(path: Path) -> None:
    if not _is_empty(path):
        return
    moved = _move_aside(path, "empty")
    raise StoreCorrupt(f"the database {path} was empty (0 bytes); it was moved to {moved}", moved)


def _cannot_open(error: sqlite3.DatabaseError) -> bool:
    name = str(getattr(error, "sqlite_errorname", ""))
    return name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")) or "unable to open" in str(error).lower()


def _damaged_reading(path: Path, error: sqlite3.DatabaseError) -> VoiceEarlError:
    """A damaged file found by a command that only reads: moved aside where the folder allows it."""
    try:
        moved = _move_aside(path)
    except OSError as failed:
        return VoiceEarlError(
            f"the database {path} is damaged ({error}); it could not be moved aside"
            f" ({failed.strerror or failed}), and is left as it is"
        )
    return StoreCorrupt(f"the database {path} is damaged ({error}); it was moved to {moved}", moved)


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


def is_damage(error: sqlite3.DatabaseError) -> bool:
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


def describe_error(error: sqlite3.Error, path: Path | None = None) -> str:
    """What went wrong with the database at ``path``, in plain words: "the disk is full", "it is read-only"...

    A disk with no room left can fail as an I/O error (the shared-memory file cannot grow): the room left
    on the database's disk tells it apart from a disk that is failing."""
    name = str(getattr(error, "sqlite_errorname", ""))
    text = str(error).lower()
    if name.startswith("SQLITE_READONLY") or "readonly" in text or "read-only" in text:
        return "it is read-only (check the permissions of the file and its folder)"
    if name == "SQLITE_FULL" or "disk is full" in text or (name.startswith("SQLITE_IOERR") and _no_room(path)):
        return "the disk is full"
    if name.startswith("SQLITE_IOERR") or "disk i/o error" in text:
        return f"the disk failed to read or write ({error})"
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return "it is busy: another voice-earl is writing to it"
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")) or "unable to open" in text:
        return f"{error} (check the permissions of the file and its folder)"
    return str(error)


def _no_room(path: Path | None) -> bool:
    if path is None:
        return False
    try:
        return os.statvfs(path.parent).f_bavail == 0
    except OSError:
        return False


def _move_aside(path: Path, why: str = "corrupt") -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{why}-{stamp}")
    counter = 1
    while target.exists():
        target = path.with_name(f"{path.name}.{why}-{stamp}-{counter}")
        counter += 1
    # The WAL and shared-memory files travel with it, so the pair can still be opened for rescue.
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            companion.rename(target.with_name(target.name + suffix))
    path.rename(target)
    log.warning("moved the %s database %s to %s", "empty" if why == "empty" else "damaged", path, target)
    return target
