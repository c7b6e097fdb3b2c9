"""voice-earl run at a real pseudo-terminal of 80x24, as a player meets it: keys typed in, the screen read.

The screen's text is read with its escape sequences taken out and without any white space, since the
table screen wraps and pads its lines: ``seen("Go on without saving?")`` finds the question wherever
it was wrapped. Waiting is always for something to appear, never for a length of time.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import voice_earl
from support.patience import WAIT_S

REPOSITORY = Path(voice_earl.__file__).resolve().parent.parent
_ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
_SPACE = re.compile(r"\s+")


def squeezed(text: str) -> str:
    return _SPACE.sub("", text)


class TerminalGame:
    """``python -m voice_earl ARGV`` with a pseudo-terminal as its keyboard and screen."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str]) -> None:
        main, side = pty.openpty()
        fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        environment = {
            **os.environ,
            **env,
            "TERM": "xterm-256color",
            "COLUMNS": "80",
            "LINES": "24",
            "PYTHONPATH": str(REPOSITORY),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "voice_earl", *argv],
            stdin=side,
            stdout=side,
            stderr=side,
            env=environment,
            start_new_session=True,
        )
        os.close(side)
        self._main = main
        self._output = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._main, 65536)
            except OSError:  # the game closed the terminal: it has ended
                return
            if not chunk:
                return
            with self._lock:
                self._output += chunk

    def screen_text(self) -> str:
        """Everything written so far, without escape sequences or white space."""
        with self._lock:
            raw = bytes(self._output)
        return squeezed(_ESCAPES.sub(b"", raw).decode("utf-8", "replace"))

    def mark(self) -> int:
        """A place in the output: :meth:`wait_for` can look only at what comes after it."""
        return len(self.screen_text())

    def seen(self, text: str, since: int = 0) -> bool:
        return squeezed(text) in self.screen_text()[since:]

    def press(self, keys: str) -> None:
        os.write(self._main, keys.encode())

    def wait_for(self, what: str | Callable[[], bool], since: int = 0, timeout: float = WAIT_S) -> None:
        check = (lambda: self.seen(what, since)) if isinstance(what, str) else what
        deadline = time.monotonic() + timeout
        while not check():
            if self.process.poll() is not None and not check():
                raise AssertionError(f"the game ended ({self.process.returncode}) before {what!r}:\n{self.tail()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{what!r} did not come in {timeout:.0f} s:\n{self.tail()}")
            time.sleep(0.05)

    def play_out(self, keys: str, timeout: float = WAIT_S) -> int:
        """Type ``keys`` over and over until the game ends (a key that does nothing is only refused)."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"the game did not end in {timeout:.0f} s:\n{self.tail()}")
            try:
                self.press(keys)
            except OSError:
                break
            time.sleep(0.1)  # the game reads keys as it goes: no need to fill its input
        return self.process.wait(timeout=WAIT_S)

    def tail(self, characters: int = 1500) -> str:
        return self.screen_text()[-characters:]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT_S)
        os.close(self._main)
        self._reader.join(timeout=WAIT_S)
