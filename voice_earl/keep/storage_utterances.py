"""The utterances table: each line said in practice, a drill or a game, and its audio when it is kept."""

from __future__ import annotations

import logging
import sqlite3
import wave
from datetime import datetime, timezone
from pathlib import Path

from voice_earl.keep.storage_rows import UTTERANCE_COLUMNS, utterance_from_row
from voice_earl.keep.storage_values import Mode, Utterance

log = logging.getLogger(__name__)


def stamp(moment: datetime) -> str:
    """A moment as the database keeps it: ISO 8601 in UTC, to the microsecond."""
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def insert_utterance(db: sqlite3.Connection, utterance: Utterance, audio: Path | None, folder: Path) -> int:
    """Insert one utterance (inside the caller's transaction); ``audio`` is kept relative to ``folder``."""
    cursor = db.execute(
        "INSERT INTO utterances (at, mode, position, rank, expected, heard, verdict, score,"
        " latency_ms, strictness, session, series_id, audio_path, heard_position)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            stamp(utterance.at),
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
            None if audio is None else _relative_to(audio, folder),
            utterance.heard_position,
        ),
    )
    row_id = cursor.lastrowid
    assert row_id is not None
    return row_id


def select_utterances(db: sqlite3.Connection, folder: Path, mode: Mode | None) -> list[Utterance]:
    """Recorded utterances, oldest first, optionally of one mode only; a row that cannot be read is left out."""
    query = f"SELECT {UTTERANCE_COLUMNS} FROM utterances"
    params: tuple[str, ...] = ()
    if mode is not None:
        query += " WHERE mode = ?"
        params = (mode.value,)
    rows = db.execute(query + " ORDER BY at, id", params).fetchall()
    read = (utterance_from_row(tuple(row), folder) for row in rows)
    return [utterance for utterance in read if utterance is not None]


def keep_wav(folder: Path, utterance: Utterance, pcm16: bytes, sample_rate: int) -> Path | None:
    """The utterance's audio as a WAV under ``folder/audio/DATE``; None (logged) when it cannot be written."""
    day = folder / "audio" / utterance.at.astimezone().strftime("%Y-%m-%d")
    path = day / f"{utterance.at.strftime('%H%M%S-%f')}-{utterance.mode.value}-p{utterance.position}.wav"
    try:
        day.mkdir(parents=True, exist_ok=True)
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(sample_rate)
            out.writeframes(pcm16)
    except OSError as error:  # the line itself is still kept
        log.warning("cannot keep the audio of an utterance: %s", error)
        return None
    return path


def _relative_to(path: Path, folder: Path) -> str:
    try:
        return str(path.relative_to(folder))
    except ValueError:
        return str(path)
