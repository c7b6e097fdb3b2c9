"""The database schema, as the list of steps that build it.

``MIGRATIONS[i]`` takes a database from ``PRAGMA user_version`` ``i`` to ``i + 1``. A new file
runs every step; an older file runs only the steps it lacks. Steps are never edited once
released: a change is a new step at the end.

>>> SCHEMA_VERSION
4
"""

from __future__ import annotations

# Version 1: series with their journalled events, and practice utterances.
_V1 = """
CREATE TABLE series (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'finished', 'abandoned')),
    settings TEXT NOT NULL,
    players TEXT NOT NULL DEFAULT '[]',
    deals INTEGER NOT NULL DEFAULT 0,
    totals TEXT,
    places TEXT,
    wins TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE events (
    series_id INTEGER NOT NULL REFERENCES series(id),
    seq INTEGER NOT NULL CHECK (seq >= 0),
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (series_id, seq)
) WITHOUT ROWID;
CREATE TABLE utterances (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    mode TEXT NOT NULL,
    position INTEGER NOT NULL,
    rank TEXT,
    expected TEXT NOT NULL,
    heard TEXT NOT NULL,
    verdict TEXT NOT NULL,
    score INTEGER NOT NULL,
    latency_ms INTEGER
);
"""

# Version 2: strictness, practice sessions, the series an utterance was played in, kept audio.
_V2 = """
ALTER TABLE utterances ADD COLUMN strictness TEXT;
ALTER TABLE utterances ADD COLUMN session TEXT;
ALTER TABLE utterances ADD COLUMN series_id INTEGER REFERENCES series(id);
ALTER TABLE utterances ADD COLUMN audio_path TEXT;
CREATE INDEX utterances_at ON utterances(at);
CREATE INDEX series_status ON series(status);
"""

# Version 3: the phones' addresses of a series (tokens and port), so that a resumed series serves them again.
_V3 = """
ALTER TABLE series ADD COLUMN phones TEXT;
"""

# Version 4: the formula an utterance came closest to, so that statistics compare like with like.
# (The series' settings record grew too, inside its JSON: see voice_earl.table.saved_series.)
_V4 = """
ALTER TABLE utterances ADD COLUMN heard_position INTEGER CHECK (heard_position BETWEEN 1 AND 4);
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4)
SCHEMA_VERSION = len(MIGRATIONS)
