"""A database that cannot be written, made for real: a read-only file, or a disk that fills up.

``read_only_file`` takes the write bits away; as root (who ignores them) it also marks the file immutable
with ``chattr +i``. ``tiny_disk`` caps every database the game opens at a few more pages than it holds
(SQLite's ``max_page_count``), so writing fails with SQLite's own "database or disk is full".
``small_disk`` mounts a real tmpfs of a few megabytes, which ``fill_disk`` fills to the last byte and
``read_only_mount`` makes read-only; ``flip_bytes`` damages a file in place, and ``damage_page`` writes garbage
over one page of an SQLite file (``root_page`` and ``leaf_pages`` find a table's pages).
"""

from __future__ import annotations

import os
import random
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


@contextmanager
def small_disk(folder: Path, size: str = "4m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``folder`` while inside (root only; skipped with the reason elsewhere)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@contextmanager
def read_only_mount(folder: Path) -> Iterator[None]:
    """``folder``, a mount point, remounted read-only while inside: even root cannot write to it."""
    done = subprocess.run(["mount", "-o", "remount,ro", str(folder)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot remount {folder} read-only: {done.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(folder)], check=True)


def fill_disk(folder: Path) -> Path:
    """Fill the file system ``folder`` is on, to the last byte; returns the file to delete to free it."""
    filler = folder / "filler"
    block = b"\0" * 65536
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(block)
        except OSError:
            pass
        try:
            while True:  # the last few bytes, one at a time
                out.write(b"\0")
        except OSError:
            pass
    return filler


def flip_bytes(path: Path, find: bytes, replace: bytes) -> int:
    """Write ``replace`` over every place ``find`` is in the file, as a failing disk or a stray program would;
    returns how many places. The two are the same length, so the file's structure is whole."""
    assert len(find) == len(replace) and find != replace
    data = bytearray(path.read_bytes())
    places = 0
    start = data.find(find)
    while start >= 0:
        data[start : start + len(find)] = replace
        places += 1
        start = data.find(find, start + 1)
    path.write_bytes(bytes(data))
    return places


def page_size(path: Path) -> int:
    size = int.from_bytes(path.read_bytes()[16:18], "big")
    return 65536 if size == 1 else size


def root_page(path: Path, table: str) -> int:
    """The first page of a table's b-tree, as the (whole) file's schema says."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        (page,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    return int(page)


def leaf_pages(path: Path, root: int) -> list[int]:
    """The leaf pages of the b-tree at page ``root``, left to right (read from the file's bytes)."""
    data, size = path.read_bytes(), page_size(path)
    leaves: list[int] = []

    def walk(page: int) -> None:
        body = data[(page - 1) * size : page * size]
        header = 100 if page == 1 else 0
        if body[header] in (0x0A, 0x0D):  # an index or a table leaf
            leaves.append(page)
            return
        cells = int.from_bytes(body[header + 3 : header + 5], "big")
        for cell in range(cells):
            at = int.from_bytes(body[header + 12 + 2 * cell : header + 14 + 2 * cell], "big")
            walk(int.from_bytes(body[at : at + 4], "big"))  # the child left of the cell's key
        walk(int.from_bytes(body[header + 8 : header + 12], "big"))  # the right-most child

    walk(root)
    return leaves


def damage_page(path: Path, page: int, start: int = 0) -> None:
    """Write random bytes over page ``page`` of an SQLite file from byte ``start`` of the page to its end."""
    size = page_size(path)
    with path.open("r+b") as file:
        file.seek((page - 1) * size + start)
        file.write(random.Random(page).randbytes(size - start))
