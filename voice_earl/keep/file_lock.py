"""Exclusive locks on a file beside what they guard (the database, the config file).

The operating system drops a lock when its process dies, however it dies, so a crash never leaves one held.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from voice_earl.errors import VoiceEarlError

WAIT_S = 10.0  # how long a short write (``config set``) waits for another one


@contextmanager
def held(path: Path, timeout: float = WAIT_S) -> Iterator[None]:
    """Hold the lock on ``path`` (created if need be) while inside, waiting up to ``timeout`` seconds for it."""
    fd = open_lock_file(path)
    try:
        deadline = time.monotonic() + timeout
        while not try_lock(fd):
            if time.monotonic() > deadline:
                raise VoiceEarlError(f"{path} has been locked by another voice-earl for {timeout:.0f} s; try again")
            time.sleep(0.01)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def open_lock_file(path: Path) -> int:
    """A descriptor of the lock file ``path``, created if need be (not locked yet: see :func:`try_lock`)."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # it names who holds it, and nothing else
    except OSError as error:
        raise VoiceEarlError(f"cannot open the lock file {path}: {error.strerror}") from None


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def try_lock(fd: int) -> bool:
        """Take the lock on the open file ``fd`` if nobody holds it; False if someone does."""
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

else:
    import fcntl

    def try_lock(fd: int) -> bool:
        """Take the lock on the open file ``fd`` if nobody holds it; False if someone does."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
