"""Reading the database's rows defensively: a damaged value is named, never raised raw.

Damage inside a row passes ``PRAGMA quick_check``: a flipped byte makes a TEXT value invalid UTF-8, or
a column holds garbage. SQLite would stop a whole query at the first such value, so every TEXT value is
read through :func:`decode_text`, which marks undecodable bytes instead of failing; each column is then
parsed on its own. A series whose row cannot be read whole is still listed, as damaged, with its id and
what could not be read; the other series are untouched.

>>> decode_text(b"Ann"), isinstance(decode_text(b"A\\xffn"), Undecodable)
('Ann', True)
>>> json_object('{"a": 1}', "x")
{'a': 1}
>>> json_object(decode_text(b'{"a": "\\xff"}'), "series 3's settings")
Traceback (most recent call last):
...
voice_earl.keep.storage_values.JournalError: series 3's settings is damaged (not UTF-8 text)
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from voice_earl.game.cards import Rank
from voice_earl.keep.storage_values import (
    Event,
    JournalError,
    Mode,
    SeriesStatus,
    SeriesSummary,
    Utterance,
)

log = logging.getLogger(__name__)

T = TypeVar("T")


class Undecodable(str):
    """TEXT that SQLite held as bytes that are not UTF-8 (shown with replacement characters)."""


def decode_text(raw: bytes) -> str:
    """The connection's ``text_factory``: a TEXT value, or an :class:`Undecodable` one."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return Undecodable(raw.decode("utf-8", "replace"))


def text(value: object) -> str:
    """A TEXT value that was stored as text, whole."""
    if isinstance(value, Undecodable):
        raise ValueError("not UTF-8 text")
    if not isinstance(value, str):
        raise ValueError(f"not text but {type(value).__name__}")
    return value


def loads(value: object) -> Any:
    """JSON from a TEXT value; any damage (bytes, nesting too deep, not JSON) is a ``ValueError``."""
    try:
        return json.loads(text(value))
    except RecursionError:
        raise ValueError("not JSON (nested too deep)") from None
    except json.JSONDecodeError:
        raise ValueError("not JSON") from None


def json_object(value: object, what: str) -> Event:
    """A stored JSON object, or a ``JournalError`` saying which one is damaged and how."""
    if isinstance(value, Undecodable):
        raise JournalError(f"{what} is damaged (not UTF-8 text)")
    try:
        found = loads(value)
    except ValueError as error:
        raise JournalError(f"{what} is {error}") from None
    if not isinstance(found, dict):
        raise JournalError(f"{what} is not a JSON object")
    return found


def date(value: object) -> datetime:
    return datetime.fromisoformat(text(value))


def whole(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{value!r} is not a whole number")
    return value


def whole_numbers(value: object) -> tuple[int, ...]:
    found = loads(value)
    if not isinstance(found, list):
        raise ValueError("not a list")
    return tuple(whole(item) for item in found)


def names(value: object) -> tuple[str, ...]:
    found = loads(value)
    if not isinstance(found, list) or not all(isinstance(name, str) for name in found):
        raise ValueError("not a list of names")
    return tuple(found)


class _Row:
    """Reads a row's columns one by one, noting the ones that cannot be read."""

    def __init__(self) -> None:
        self.damaged: list[str] = []

    def read(self, what: str, parse: Callable[[Any], T], value: object, fallback: T) -> T:
        try:
            return parse(value)
        except (ValueError, TypeError, JournalError):
            self.damaged.append(what)
            return fallback


SUMMARY_COLUMNS = (
    "s.id, s.started_at, s.finished_at, s.status, s.players, s.settings, s.deals, s.totals, s.places, s.wins,"
    " (SELECT COUNT(*) FROM events e WHERE e.series_id = s.id)"
)
_EPOCH = datetime.fromtimestamp(0).astimezone()


def summary_of(row: Sequence[Any]) -> SeriesSummary:
    """One series for the listing, as far as its row reads (``damage`` says what does not)."""
    series_id, started, finished, status, players, settings, deals, totals, places, wins, events = row
    cells = _Row()
    no_record: Event = {}
    record = cells.read("settings", lambda v: json_object(v, "settings"), settings, no_record)
    return SeriesSummary(
        id=series_id,
        started_at=cells.read("start date", date, started, _EPOCH),
        finished_at=cells.read("end date", lambda v: None if v is None else date(v), finished, None),
        # An unreadable status is taken as open: nothing says the series ended, and it can still be abandoned.
        status=cells.read("status", lambda v: SeriesStatus(text(v)), status, SeriesStatus.OPEN),
        players=cells.read("players", names, players, ()),
        profile=str(record.get("profile", "?")),
        mode=cells.read("kind (play or practice)", lambda v: Mode(v), record.get("mode", "play"), Mode.PLAY),
        deals=cells.read("deals", whole, deals, 0),
        events=events,
        totals=cells.read("totals", lambda v: None if v is None else whole_numbers(v), totals, None),
        places=cells.read("places", lambda v: None if v is None else whole_numbers(v), places, None),
        wins=cells.read("wins", whole_numbers, wins, ()),
        damaged=tuple(cells.damaged),
        planned=planned if isinstance(planned := record.get("deals"), int) and planned > 0 else None,
    )


UTTERANCE_COLUMNS = (
    "mode, position, rank, expected, heard, verdict, score, latency_ms, strictness, at,"
    " session, series_id, audio_path, heard_position"
)


def utterance_from_row(row: Sequence[Any], folder: Path) -> Utterance | None:
    """One utterance, or None (logged) when its row cannot be read."""
    mode, position, rank, expected, heard, verdict, score, latency, strictness, at, session, series, audio, near = row
    try:
        return Utterance(
            mode=Mode(text(mode)),
            position=whole(position),
            rank=None if rank is None else Rank(text(rank)),
            expected=text(expected),
            heard=text(heard),
            verdict=text(verdict),
            score=whole(score),
            latency_ms=None if latency is None else whole(latency),
            strictness=None if strictness is None else text(strictness),
            at=date(at),
            session=None if session is None else text(session),
            series_id=None if series is None else whole(series),
            audio_path=None if audio is None else folder / text(audio),
            heard_position=None if near is None else whole(near),
        )
    except (ValueError, TypeError) as error:
        log.warning("an utterance's row cannot be read (%s): left out", error)
        return None
