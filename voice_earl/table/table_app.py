"""Wiring a table: the session with its narrator, screen, inputs and game log.

The commands (play, practice, demo) describe the table; this module puts the adapters
around the session, runs it, and always closes what it opened.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

from voice_earl.table.narrator import Narrator, Verbosity
from voice_earl.table.presenters import JsonlLog, Narration, ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Listener, Move, SessionEnded, TableSettings
from voice_earl.table.turns import LINE_KEYS, SILENT_KEYS, InputSource, KeyHelp, KeyPresses, LineCommands

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NarratorOptions:
    speak: bool = True
    voice: str | None = None
    rate: int | None = None
    verbosity: Verbosity = Verbosity.NORMAL


def keyboard_input(stream: TextIO, complain: Callable[[str], None]) -> tuple[InputSource, KeyHelp]:
    """Silent Earl's input: single keys at a terminal, one command per line otherwise."""
    if stream.isatty():
        return KeyPresses(stream, complain), SILENT_KEYS
    return LineCommands(stream, complain), LINE_KEYS


@dataclass
class Table:
    """A session with its presenters, ready to run."""

    session: TableSession
    screen: TableScreen
    narrator: Narrator
    view: ScreenView

    def run(self) -> SessionEnded:
        try:
            ended = self.session.run()
        finally:
            self.view.finish()
        self.narrator.wait(timeout=30)  # the last words (not after Ctrl-C)
        return ended


@contextlib.contextmanager
def open_table(
    settings: TableSettings,
    inputs: Mapping[int, InputSource],
    *,
    narration: NarratorOptions,
    show_hands: Callable[[int], bool],
    keys: KeyHelp,
    hold: Callable[[bool], bool] | None = None,
    moves: Sequence[Move] = (),
    jsonl: TextIO | None = None,
    extra_listeners: Callable[[TableSession], Sequence[Listener]] = lambda session: (),
    screen: TableScreen | None = None,
    saved: Callable[[], bool] = lambda: True,
) -> Iterator[Table]:
    """Build the session and its adapters; close the narrator and the screen on the way out.

    ``hold`` keeps the deal-over view (and the final standings) up until the players go on;
    without it the table goes straight on (bots, scripts). ``saved`` tells whether every move so
    far is kept, for the last word when the players stop.
    """
    screen = screen or TableScreen(live=False if jsonl is sys.stdout else None)
    session = TableSession(settings, inputs, moves=moves)
    if hold is not None:
        session.hold = hold
    view = ScreenView(session, screen, show_hands=show_hands)
    view.keys = keys
    narrator = Narrator(
        voice=narration.voice,
        rate=narration.rate,
        verbosity=narration.verbosity,
        speak=narration.speak,
        printer=view.narrate,
    )
    # The journal (among the extras) comes first: a record is safe before it is announced. The screen shows the
    # move before the narrator's lines about it: printed to a file, the last state comes before the final standings.
    listeners: list[Listener] = [*extra_listeners(session), view, Narration(session, narrator, saved)]
    if jsonl is not None:
        listeners.append(JsonlLog(jsonl))
    session.listeners = listeners
    try:
        with screen:
            view.refresh()
            yield Table(session, screen, narrator, view)
    finally:
        narrator.close()
