"""The files kept beside the database for each series, in ``series/``: its game log (``series-ID.jsonl``, which
:mod:`voice_earl.table.journal_file` keeps equal to the database) and its record (``series-ID.record.json``:
when it began, its settings and whether it is open, finished or abandoned).

They are what a database found damaged is rebuilt from: every series they hold can still be listed and
resumed. Each file is written anew whole or not at all, and a failure to write one is only logged, since
the database holds the series.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     database = Path(folder) / "voice-earl.sqlite3"
...     keep_record(database, 4, {"started_at": "2026-01-02T10:00:00+00:00", "status": "open", "settings": {}})
...     _ = log_path(database, 4).write_text('{"event":"deal","deal":1}\\n{"event":"pa', encoding="utf-8")
...     [(kept.id, kept.status.value, kept.events) for kept in kept_series(database)]
[(4, 'open', [{'event': 'deal', 'deal': 1}])]
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import urllib.parse
from collections.abc import Mapping
from contextlib import closing, suppress
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from voice_earl.keep.storage_values import Event, SeriesStatus

log = logging.getLogger(__name__)

FOLDER = "series"
_LOG = re.compile(r"series-([1-9][0-9]{0,17})\.jsonl")


def log_path(database: Path, series_id: int) -> Path:
    """The game log beside the database (``docs/game-log.md``)."""
    return database.parent / FOLDER / f"series-{series_id}.jsonl"


def record_path(database: Path, series_id: int) -> Path:
    return database.parent / FOLDER / f"series-{series_id}.record.json"


def keep_record(database: Path, series_id: int, record: Mapping[str, Any]) -> None:
    """Write a series' record anew: ``started_at``, ``status`` and ``settings``."""
    path = record_path(database, series_id)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(dict(record), ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)
    except (OSError, TypeError, ValueError) as error:
        log.warning("cannot write the record of series %d (%s): %s", series_id, path, error)
        with suppress(OSError):
            temporary.unlink()


@dataclass(frozen=True)
class KeptSeries:
    """A series as the files beside the database hold it."""

    id: int
    started_at: datetime
    status: SeriesStatus
    settings: Event | None  # None: no record says how it was played
    events: list[Event]


def kept_series(database: Path, damaged: Path | None = None) -> list[KeptSeries]:
    """Every series with a game log beside ``database``, by id. A series without a record of its own (one begun
    by an older voice-earl) takes what the ``damaged`` database still reads of its row."""
    folder = database.parent / FOLDER
    try:
        logs = sorted((int(found[1]), entry) for entry in folder.iterdir() if (found := _LOG.fullmatch(entry.name)))
    except OSError:
        return []
    return [_kept(database, series_id, path, damaged) for series_id, path in logs]


def _kept(database: Path, series_id: int, path: Path, damaged: Path | None) -> KeptSeries:
    events = _events(path)
    record = _record(record_path(database, series_id)) or _salvaged(damaged, series_id)
    started = _moment(record.get("started_at")) or _modified(path)
    status = _status(record.get("status"))
    if status is SeriesStatus.OPEN and events and events[-1].get("event") == "series":
        status = SeriesStatus.FINISHED
    settings = record.get("settings")
    return KeptSeries(series_id, started, status, settings if isinstance(settings, dict) else None, events)


def _events(path: Path) -> list[Event]:
    """The log's records up to the first that does not read (a line cut short by a crash ends it)."""
    events: list[Event] = []
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                try:
                    event = json.loads(line, parse_constant=_no_constant)
                except (ValueError, RecursionError):
                    break
                if not isinstance(event, dict) or not isinstance(event.get("event"), str):
                    break
                events.append(event)
    except OSError as error:
        log.warning("cannot read the game log %s: %s", path, error)
    return events


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def _record(path: Path) -> dict[str, Any]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as error:
        log.warning("cannot read the series record %s: %s", path, error)
        return {}
    return found if isinstance(found, dict) else {}


def _salvaged(damaged: Path | None, series_id: int) -> dict[str, Any]:
    """What the damaged database still reads of one series' row (nothing, where its page is the damage)."""
    if damaged is None:
        return {}
    uri = "file:" + urllib.parse.quote(str(damaged.resolve())) + "?mode=ro"
    try:
        with closing(sqlite3.connect(uri, uri=True)) as db:
            row = db.execute("SELECT started_at, status, settings FROM series WHERE id = ?", (series_id,)).fetchone()
    except (sqlite3.Error, UnicodeDecodeError) as error:
        log.info("series %d cannot be read from %s: %s", series_id, damaged, error)
        return {}
    if row is None:
        return {}
    try:
        settings = json.loads(row[2])
    except (TypeError, ValueError, RecursionError):
        settings = None
    return {"started_at": row[0], "status": row[1], "settings": settings}


def _moment(value: object) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _modified(path: Path) -> datetime:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    except OSError:
        return datetime.now(timezone.utc)


def _status(value: object) -> SeriesStatus:
    try:
        return SeriesStatus(value)
    except ValueError:
        return SeriesStatus.OPEN
