"""The deal-over view and the final standings: who won, who paid what, and the totals by name.

It takes the place of the table between two deals (and at the end of the series) until the players
go on; :mod:`voice_earl.table.screen_layout` fits it into the screen like the table.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from voice_earl.i18n import _
from voice_earl.table import blockfont
from voice_earl.table.screen_sections import DealResult, ResultRow

_WINNER_STYLE = "bold green"


def heading(result: DealResult, width: int, big: bool) -> RenderableType | None:
    """The heading in the block font (None when it does not fit), or in bold capitals."""
    if not big:
        return Text(result.heading.upper(), style=_WINNER_STYLE)
    rows = blockfont.banner(result.heading, width, max_lines=2)
    return None if rows is None else Text("\n".join(rows), style=_WINNER_STYLE, no_wrap=True)


def body(result: DealResult) -> RenderableType:
    """What the deal brought each player, and where the series stands."""
    table = Table(box=None, padding=(0, 2), pad_edge=False, header_style="dim", show_edge=False)
    table.add_column(_("place"), justify="right", no_wrap=True)
    table.add_column(_("player"), no_wrap=True, overflow="ellipsis", max_width=20)
    table.add_column(_("deal {deal}").format(deal=result.deal), justify="right", no_wrap=True)
    table.add_column(_("total"), justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    best = result.rows[0].place if result.rows else 1
    for row in result.rows:
        table.add_row(
            f"{row.place}.",
            row.name,
            _signed(row.change),
            str(row.total),
            _note(row),
            style="bold" if row.place == best else None,
        )
    parts: list[RenderableType] = []
    if result.detail:
        parts += [Text(result.detail), Text()]
    return Group(*parts, table)


def _signed(amount: int) -> str:
    return f"+{amount}" if amount > 0 else str(amount)


def _note(row: ResultRow) -> Text:
    return Text(_("shared place"), style="italic") if row.shared else Text()
