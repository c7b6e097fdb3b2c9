"""Helpers for the table's tests: a series of bots, and the screen as text at a terminal's size."""

from __future__ import annotations

import io

from rich.console import Console

from voice_earl.game.bots import MostStrategy
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.table.console import text_console
from voice_earl.table.screen_layout import render
from voice_earl.table.screen_sections import TableSnapshot
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, TableSettings
from voice_earl.table.turns import BotSource


def bot_session(deals: int = 1, seed: int = 3, names: tuple[str, ...] = ("Ann", "Ben", "Cy")) -> TableSession:
    """A virtual-deck series in which every seat is a bot playing "most"."""
    settings = TableSettings(tuple(Seat(n) for n in names), HOYLE, DeckMode.VIRTUAL, deals=deals, seed=seed)
    return TableSession(settings, dict.fromkeys(range(len(names)), BotSource(MostStrategy(), "t")))


def table_console(width: int = 80, height: int = 24) -> Console:
    """A terminal of ``width`` x ``height`` that keeps what it shows, made as the game makes its consoles."""
    return text_console(
        record=True,
        width=width,
        height=height,
        force_terminal=True,
        color_system="truecolor",
        file=io.StringIO(),
    )


def screen_text(snap: TableSnapshot, width: int = 80, height: int = 24) -> str:
    console = table_console(width, height)
    console.print(render(snap))
    return console.export_text()
