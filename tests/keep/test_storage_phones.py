"""The phones' addresses kept with a series (schema version 3), and the migration that adds them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from voice_earl.errors import VoiceEarlError
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_schema import MIGRATIONS, SCHEMA_VERSION

SETTINGS = {"players": ["Ann", "Ben", "Cy"], "deck": "virtual", "seed": 3}
PHONES = {"players": ["a" * 22, "b" * 22, "c" * 22], "join": "j" * 22, "port": 8765}


def test_a_series_keeps_its_phones_addresses(tmp_path: Path) -> None:
    with Store.open(tmp_path / "db.sqlite3") as store:
        series = store.open_series(SETTINGS)
        assert store.phones(series) is None
        store.keep_phones(series, PHONES)
    with Store.open(tmp_path / "db.sqlite3") as store:
        assert store.phones(series) == PHONES
        with pytest.raises(VoiceEarlError, match="no series 99"):
            store.phones(99)


def test_a_version_2_file_is_migrated_to_keep_phones(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(MIGRATIONS[0] + MIGRATIONS[1])
    old.execute(
        "INSERT INTO series (id, started_at, settings) VALUES (4, '2026-01-02T10:00:00+00:00', ?)",
        (json.dumps(SETTINGS),),
    )
    old.execute("PRAGMA user_version = 2")
    old.commit()
    old.close()
    with Store.open(path) as store:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
        assert store.load_series(4)[0] == SETTINGS
        assert store.phones(4) is None
        store.keep_phones(4, PHONES)
        assert store.phones(4) == PHONES
