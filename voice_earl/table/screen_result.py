"""The deal-over view and the final standings: who won, who paid what, and the totals by name.

It takes the place of the table between two deals (and at the end of the series) until the players
go on; :mod:`voice_earl.table.screen_layout` fits it into the screen like the table.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from voice_earl.i18n import _
from voice_earl.table import blockfont
from voice_earl.table.screen_sections import DealResult, ResultRow, uncut

_WINNER_STYLE = "bold green"


def heading(result: DealResult, width: int, big: bool) -> RenderableType | None:
    """The heading in the block font (None when it does not fit), or in bold capitals."""
    if not big:
        return Text(result.heading.upper(), style=_WINNER_STYLE)
    rows = blockfont.banner(result.heading, width, max_lines=2)
    return None if rows is None else Text("\n".join(rows), style=_WINNER_STYLE, no_wrap=True)


def body(result: DealResult) -> RenderableType:
    """What the deal brought each player, and where the series stands."""
    parts: list[RenderableType] = []
    if result.detail:
        parts += [Text(result.detail), Text()]
    return Group(*parts, _Standings(result))


class _Standings:
    """The players' table, its columns two spaces apart, or one where two leave the names too little room."""

    def __init__(self, result: DealResult) -> None:
        self.result = result

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        roomy = _standings(self.result, gap=2)
        fits = uncut(console, options, roomy).maximum <= options.max_width
        yield roomy if fits else _standings(self.result, gap=1)


def _standings(result: DealResult, gap: int) -> Table:
    table = Table(box=None, padding=(0, gap), pad_edge=False, header_style="dim", show_edge=False)
    # On a narrow screen the name is cut and the note wraps: the places and the figures are kept whole.
    headers = (_("place"), _("deal {deal}").format(deal=result.deal), _("total"))
    cells = [(f"{row.place}.", _signed(row.change), str(row.total)) for row in result.rows]
    widths = [max(len(text) for text in column) for column in zip(headers, *cells, strict=True)]
    table.add_column(headers[0], justify="right", no_wrap=True, min_width=widths[0])
    table.add_column(_("player"), overflow="ellipsis", max_width=20)
    table.add_column(headers[1], justify="right", no_wrap=True, min_width=widths[1])
    table.add_column(headers[2], justify="right", no_wrap=True, min_width=widths[2])
    table.add_column("")
    best = result.rows[0].place if result.rows else 1
    for row, (place, change, total) in zip(result.rows, cells, strict=True):
        table.add_row(place, row.name, change, total, _note(row), style="bold" if row.place == best else None)
    return table


def _signed(amount: int) -> str:
    return f"+{amount}" if amount > 0 else str(amount)


def _note(row: ResultRow) -> Text:
    return Text(_("shared place"), style="italic") if row.shared else Text()
