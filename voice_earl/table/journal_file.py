"""The game log's copy beside the database: ``series/series-ID.jsonl`` (``docs/game-log.md``).

The database is the record; the file follows it. New records are appended to it; anything else (an undo,
a resume, a write to the file that failed, for want of room or of file descriptors) writes it anew from
the database, to a temporary file renamed over the old one, so that the file is never seen empty or half
written, whenever the game is killed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from voice_earl.game.gamelog import to_line

log = logging.getLogger(__name__)

Records = Sequence[Mapping[str, Any]]


class GameLogFile:
    """The JSON Lines file of one series, kept equal to what the database holds."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: int | None = None  # the records the file holds; None: not known to be the database's
        self.problem: str | None = None  # why the last write failed; None once one succeeds

    def forget(self) -> None:
        """The database changed other than at its end (an undo): the file is written anew next time."""
        self.lines = None

    def follow(self, stored: int, new: Records | None, read_stored: Callable[[], Records]) -> None:
        """Bring the file to the database's ``stored`` records.

        ``new`` holds the database's records from the first (at least the ones the file lacks) when they are
        known to be the database's; otherwise, or when the file is not known to hold a beginning of them,
        the file is written anew from ``read_stored()``.
        """
        if self.lines == stored:
            return
        if new is not None and self.lines is not None and self.lines < stored <= len(new):
            self._append(new[self.lines : stored])
        else:
            self.rewrite(read_stored())

    def rewrite(self, records: Records) -> None:
        """Write the file anew, whole or not at all."""
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with temporary.open("w", encoding="utf-8") as out:
                out.writelines(to_line(record) + "\n" for record in records)
            os.replace(temporary, self.path)
            self.lines, self.problem = len(records), None
        except OSError as error:  # the database holds the series; the file is written anew next time
            log.warning("cannot write the game log %s: %s", self.path, error)
            self._failed(error)
            with suppress(OSError):
                temporary.unlink()

    def _append(self, records: Records) -> None:
        assert self.lines is not None
        try:
            with self.path.open("a", encoding="utf-8") as out:
                out.writelines(to_line(record) + "\n" for record in records)
            self.lines += len(records)
        except OSError as error:  # perhaps half written: written anew from the database next time
            log.warning("cannot add to the game log %s: %s", self.path, error)
            self._failed(error)

    def _failed(self, error: OSError) -> None:
        """Not known to hold the database's records any more: written anew next time, and why it was not."""
        self.lines, self.problem = None, f"{self.path}: {error.strerror or error}"
