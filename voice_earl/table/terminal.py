"""Reading single keys from a terminal without waiting for Enter."""

from __future__ import annotations

import contextlib
import os
import select
import sys
from collections.abc import Iterator
from typing import TextIO


@contextlib.contextmanager
def cbreak(stream: TextIO) -> Iterator[None]:
    """Keys arrive one by one while inside; the terminal is restored on the way out, even on errors."""
    if not stream.isatty() or sys.platform == "win32":
        yield
        return
    import termios
    import tty

    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def read_key(stream: TextIO, timeout: float | None = None) -> str | None:
    """One key (``None`` at end of input or when ``timeout`` seconds pass without a key)."""
    with cbreak(stream):
        if timeout is not None and not key_waiting(stream, timeout):
            return None
        data = os.read(stream.fileno(), 1) if stream.isatty() else stream.read(1).encode()
    return data.decode(errors="replace") if data else None


def read_waiting_key(stream: TextIO) -> str | None:
    """One key that :func:`key_waiting` found, read inside an outer :func:`cbreak` (entering cbreak
    again would flush it). ``None`` at end of input."""
    data = os.read(stream.fileno(), 1) if stream.isatty() else stream.read(1).encode()
    return data.decode(errors="replace") if data else None


def key_waiting(stream: TextIO, timeout: float = 0.0) -> bool:
    """Whether a key can be read now (or within ``timeout`` seconds)."""
    try:
        ready, _, _ = select.select([stream], [], [], timeout)
    except (ValueError, OSError):
        return False
    return bool(ready)
