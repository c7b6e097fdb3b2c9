"""A series' listing columns (deals, players, wins, totals, places), kept current event by event so that
``history`` need not replay every series; and a series put back whole from the files kept beside the
database, when the database was found damaged. Each works inside the caller's transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from voice_earl.keep.series_files import KeptSeries
from voice_earl.keep.storage_rows import whole_numbers
from voice_earl.keep.storage_utterances import stamp
from voice_earl.keep.storage_values import SeriesStatus


def summarise(db: sqlite3.Connection, series_id: int, event: Mapping[str, Any]) -> None:
    """Bring the listing columns up to date with one more event."""
    kind = event["event"]
    if kind == "deal" and isinstance(event.get("deal"), int):
        db.execute("UPDATE series SET deals = MAX(deals, ?) WHERE id = ?", (event["deal"], series_id))
        players = names_in(event.get("players"))
        if players:
            db.execute("UPDATE series SET players = ? WHERE id = ? AND players = '[]'", (dumps(players), series_id))
    elif kind == "win" and isinstance(event.get("player"), int) and event["player"] >= 0:
        (wins_text,) = db.execute("SELECT wins FROM series WHERE id = ?", (series_id,)).fetchone()
        try:
            wins = list(whole_numbers(wins_text))
        except ValueError:  # a listing column, damaged: counted again from this win on
            wins = []
        seat = event["player"]
        wins.extend([0] * (seat + 1 - len(wins)))
        wins[seat] += 1
        db.execute("UPDATE series SET wins = ? WHERE id = ?", (dumps(wins), series_id))
    elif kind in ("settle", "series") and _int_list(event.get("totals")):
        db.execute("UPDATE series SET totals = ? WHERE id = ?", (dumps(event["totals"]), series_id))
        if kind == "series" and _int_list(event.get("places")):
            db.execute("UPDATE series SET places = ? WHERE id = ?", (dumps(event["places"]), series_id))


def restore_series(db: sqlite3.Connection, kept: KeptSeries) -> bool:
    """Put ``kept`` back in the database with its own id, events and status (False: the id is taken)."""
    if db.execute("SELECT 1 FROM series WHERE id = ?", (kept.id,)).fetchone() is not None:
        return False
    deal = next((event for event in kept.events if event["event"] == "deal"), {})
    players = names_in((kept.settings or {}).get("players")) or names_in(deal.get("players"))
    started = stamp(kept.started_at)
    db.execute(
        "INSERT INTO series (id, started_at, settings, players) VALUES (?, ?, ?, ?)",
        (kept.id, started, dumps(kept.settings or {}), dumps(players)),
    )
    for seq, event in enumerate(kept.events):
        db.execute(
            "INSERT INTO events (series_id, seq, kind, body, at) VALUES (?, ?, ?, ?, ?)",
            (kept.id, seq, event["event"], dumps(event), started),
        )
        summarise(db, kept.id, event)
    if kept.status is not SeriesStatus.OPEN:
        db.execute("UPDATE series SET status = ?, finished_at = ? WHERE id = ?", (kept.status.value, started, kept.id))
    return True


def dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"not JSON-able: {error}") from None


def names_in(value: object) -> list[str]:
    return [str(name) for name in value] if isinstance(value, list) else []


def _int_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, int) for x in value)
