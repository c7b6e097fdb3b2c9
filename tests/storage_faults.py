"""A database that cannot be written, made for real: a read-only file, or a disk that fills up.

``read_only_file`` takes the write bits away; as root (who ignores them) it also marks the file immutable
with ``chattr +i``. ``tiny_disk`` caps every database the game opens at a few more pages than it holds
(SQLite's ``max_page_count``), so writing fails with SQLite's own "database or disk is full".
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from voice_earl.keep import storage


@contextmanager
def read_only_file(path: Path) -> Iterator[None]:
    path.chmod(0o444)
    immutable = False
    try:
        if os.geteuid() == 0:
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
            if done.returncode != 0:
                pytest.skip(f"running as root, and chattr +i does not work here: {done.stderr.decode().strip()}")
            immutable = True
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o644)


@contextmanager
def tiny_disk(spare_pages: int) -> Iterator[None]:
    """While inside, each database opened may grow by ``spare_pages`` pages only."""
    connect = storage.connect_checked

    def capped(path: Path) -> sqlite3.Connection:
        connection = connect(path)
        (pages,) = connection.execute("PRAGMA page_count").fetchone()
        connection.execute(f"PRAGMA max_page_count = {pages + spare_pages}")
        return connection

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(storage, "connect_checked", capped)
        yield
