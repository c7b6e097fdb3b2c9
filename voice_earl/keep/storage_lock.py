"""The writer's lock beside the database: it dies with the process, however it dies, so a second voice-earl
is told the database is busy, and by which series."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from voice_earl.errors import VoiceEarlError
from voice_earl.keep.file_lock import open_lock_file, try_lock

log = logging.getLogger(__name__)


class StoreBusy(VoiceEarlError):
    """Another running voice-earl holds the database."""


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
