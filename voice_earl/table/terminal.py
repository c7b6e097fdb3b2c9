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
        tty.setcbreak(fd, termios.TCSADRAIN)  # not the default TCSAFLUSH: that throws away keys typed ahead
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


# The bytes of one escape sequence (an arrow or function key) arrive together; a lone Esc does not.
_SEQUENCE_GAP_S = 0.03


def read_key(stream: TextIO, timeout: float | None = None) -> str | None:
    """One key (``None`` at end of input or when ``timeout`` seconds pass without a key).

    An arrow or function key is one key: its whole escape sequence (``"\\x1b[A"``) comes back
    together, so that its letters are never taken for keys of their own.
    """
    with cbreak(stream):
        if timeout is not None and not key_waiting(stream, timeout):
            return None
        return read_waiting_key(stream)


def read_waiting_key(stream: TextIO) -> str | None:
    """One key that :func:`key_waiting` found, read inside an outer :func:`cbreak` (an escape sequence
    whole, as :func:`read_key` reads it). ``None`` at end of input."""
    data = _read_byte(stream)
    if data == b"\x1b":
        while key_waiting(stream, _SEQUENCE_GAP_S) and (more := _read_byte(stream)):
            data += more
    return data.decode(errors="replace") if data else None


def _read_byte(stream: TextIO) -> bytes:
    return os.read(stream.fileno(), 1) if stream.isatty() else stream.read(1).encode()


def key_waiting(stream: TextIO, timeout: float = 0.0) -> bool:
    """Whether a key can be read now (or within ``timeout`` seconds)."""
    try:
        ready, _, _ = select.select([stream], [], [], timeout)
    except (ValueError, OSError):
        return False
    return bool(ready)


def drop_waiting_keys(stream: TextIO) -> list[str]:
    """Take the keys typed so far and not read (typed out of turn) off the input: what was dropped."""
    dropped: list[str] = []
    with cbreak(stream):
        while key_waiting(stream) and (key := read_waiting_key(stream)) is not None:
            dropped.append(key)
    return dropped
