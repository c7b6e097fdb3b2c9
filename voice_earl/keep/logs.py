"""Logging to a rotating file under the user data directory, never over the game screen.

The log is a convenience: a disk that fills up, or a folder that cannot be written, must neither stop the
game nor print Python's "--- Logging error ---" tracebacks over it. The file's handler never raises: the
first record it cannot write is told on stderr in one line, and the later ones are dropped quietly.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys

from voice_earl.paths import log_file


class QuietFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log file whose failures are told once, in one line, and never raised."""

    failed = False

    def handleError(self, record: logging.LogRecord) -> None:
        if self.failed:
            return
        self.failed = True
        error = sys.exc_info()[1]
        reason = getattr(error, "strerror", None) or error or "unknown error"
        try:
            sys.stderr.write(f"voice-earl: cannot write the log {self.baseFilename} ({reason}); going on without it\n")
            sys.stderr.flush()
        except (OSError, ValueError):  # no stderr either: nothing left to tell
            pass


def configure_logging(verbose: bool = False) -> None:
    """Send the package's log records, and every library's warnings, to the log file (and to stderr with
    ``-v``)."""
    root = logging.getLogger("voice_earl")
    root.setLevel(logging.DEBUG)
    root.propagate = False
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        path = log_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        file_handler: logging.Handler = QuietFileHandler(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
    except OSError:
        file_handler = logging.NullHandler()  # an unwritable data dir must not stop the game
    file_handler.setFormatter(formatter)
    root.addHandler(file_handler)
    if verbose:
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(formatter)
        root.addHandler(stream)
    route_libraries(list(root.handlers))


_routed: list[logging.Handler] = []  # the handlers route_libraries put on the root logger


def route_libraries(handlers: list[logging.Handler]) -> None:
    """Send the warnings of every other library (aiohttp, asyncio, ...) where the game's own log
    goes. With no handler of its own, the root logger would pass them to Python's last resort,
    which prints them over the game's screen. Handlers others put there (pytest's) stay."""
    top = logging.getLogger()
    for handler in _routed:
        top.removeHandler(handler)
    _routed[:] = handlers
    for handler in handlers:
        top.addHandler(handler)
    top.setLevel(logging.WARNING)
