"""The table screen's frame, fitted to the space it is given.

:func:`render` builds the frame. It fits the frame to the space it is given: the line due goes in a big block
font when it fits, and the layout gives up spacing, big rank digits, one-row-per-player and finally the block
font until everything fits (80x24 holds 6 players with everything big, 13 players in two columns).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

from voice_earl.table import screen_result
from voice_earl.table import screen_sections as sections
from voice_earl.table.screen_sections import PlayerRow, TableSnapshot


def render(snapshot: TableSnapshot) -> RenderableType:
    """The table as a renderable that fits the width and height it is rendered into. Pure."""
    return TableView(snapshot)


# ---------------------------------------------------------------------------------------------------------
# Fitting: try layouts from the most readable down until one fits the height.

PlayersLayout = Literal["rows", "columns", "inline"]


@dataclass(frozen=True)
class _Plan:
    due_scale: int  # block font scale for the line due; 0 writes it as bold text
    due_gap: bool  # a blank row between lines of big text
    rank_scale: int  # block font scale for the quartet's progress; 0 writes it on one line
    players: PlayersLayout
    spacers: bool  # blank lines between sections
    keep_empty: bool  # keep empty heard / feedback / message lines so the layout does not jump


_PLANS: tuple[_Plan, ...] = (
    _Plan(2, True, 2, "rows", True, True),
    _Plan(2, False, 1, "rows", True, True),
    _Plan(1, True, 1, "rows", True, True),
    _Plan(1, False, 1, "rows", True, True),
    _Plan(1, False, 1, "rows", False, True),
    _Plan(1, False, 0, "rows", False, True),
    _Plan(1, False, 1, "columns", False, True),
    _Plan(1, False, 0, "columns", False, True),
    _Plan(1, False, 0, "columns", False, False),
    _Plan(0, False, 0, "rows", False, False),
    _Plan(0, False, 0, "columns", False, False),
    _Plan(0, False, 0, "inline", False, False),
)

# The deal-over view: a big heading with room around it, then the same without room, then small.
_RESULT_PLANS: tuple[_Plan, ...] = (
    _Plan(1, False, 0, "rows", True, False),
    _Plan(1, False, 0, "rows", False, False),
    _Plan(0, False, 0, "rows", False, False),
)

_Lines = list[list[Segment]]
_MESSAGE_ROWS = 2  # kept for the last announcement where there is room


class TableView:
    """The frame: a snapshot (if any), recent notices and a progress display, fitted to the space given."""

    def __init__(
        self,
        snapshot: TableSnapshot | None,
        notices: tuple[str, ...] = (),
        progress: RenderableType | None = None,
        over: RenderableType | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.notices = notices
        self.progress = progress
        self.over = over  # shown in place of the table, from the top (the phones' join code)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        height = options.height if options.height is not None else options.size.height
        if self.over is not None:
            lines = console.render_lines(self.over, options.reset_height(), pad=False)[:height]
        else:
            lines = _Fitter(self, console, options.reset_height()).fit(height)
        for line in lines:
            yield from line
            yield Segment.line()


class _Fitter:
    def __init__(self, view: TableView, console: Console, options: ConsoleOptions) -> None:
        self.view = view
        self.console = console
        self.options = options
        self.width = options.max_width
        self._cache: dict[object, _Lines] = {}

    def lines_of(self, key: object, build: Callable[[], RenderableType | None]) -> _Lines:
        """Rendered lines of one section variant, built once per frame."""
        if key not in self._cache:
            renderable = build()
            self._cache[key] = (
                [] if renderable is None else self.console.render_lines(renderable, self.options, pad=False)
            )
        return self._cache[key]

    def fit(self, height: int) -> _Lines:
        tail = self.tail()
        snapshot = self.view.snapshot
        if snapshot is None:
            return (self.notice_lines(max(height - len(tail), 0)) + tail)[-height:]
        body: _Lines = []
        plans = _RESULT_PLANS if snapshot.result is not None else _PLANS
        for plan in plans:
            candidate = self.result_body(snapshot, plan) if snapshot.result is not None else self.body(snapshot, plan)
            if candidate is None:  # the plan's big text cannot be drawn at this width
                continue
            body = candidate
            if len(body) + len(tail) <= height:
                break
        room = height - len(body) - len(tail)
        if room < 0:  # nothing fits: keep the top of the table and the key help
            return body[: max(height - len(tail), 0)] + tail[-height:]
        return body + self.notice_lines(room) + tail

    def body(self, snapshot: TableSnapshot, plan: _Plan) -> _Lines | None:
        """The table above the tail as ``plan`` lays it out; None if the plan's big text does not fit."""
        rank = self.rank_lines(snapshot, plan.rank_scale)
        due = self.due_lines(snapshot, plan)
        if rank is None or due is None:
            return None
        blank: _Lines = [[]]
        spacer = blank if plan.spacers else []
        lines = self.lines_of("header", lambda: sections.header(snapshot)) + rank + spacer
        lines = lines + self.lines_of("due_header", lambda: sections.due_header(snapshot)) + due
        optional: tuple[tuple[str, Callable[[], RenderableType | None]], ...] = (
            ("recent", lambda: sections.recent_moves(snapshot, self.width)),
            ("heard", functools.partial(sections.heard, snapshot)),
            ("feedback", functools.partial(sections.feedback, snapshot)),
            ("message", functools.partial(sections.message, snapshot)),
        )
        for name, build in optional:
            if name in _HEARD_SECTIONS and not snapshot.listening:
                continue  # Silent Earl hears nothing: no rows kept for it
            empty = not _has_content(snapshot, name)
            if empty and not plan.keep_empty:
                continue
            shown = blank if empty else self.lines_of(name, build)
            if plan.keep_empty and name == "message":  # room for an announcement of two lines
                shown = shown + blank * (_MESSAGE_ROWS - len(shown))
            lines = lines + shown
        players = self.players_lines(snapshot.players, plan.players)
        return None if players is None else lines + spacer + players

    def result_body(self, snapshot: TableSnapshot, plan: _Plan) -> _Lines | None:
        """The deal-over view (or the final standings) in place of the table; None if its big heading does not fit."""
        result = snapshot.result
        assert result is not None
        big = plan.due_scale > 0
        if big and not self.can_draw_blocks:
            return None
        heading = self.lines_of(("result-heading", big), lambda: screen_result.heading(result, self.width, big))
        if not heading:
            return None
        blank: _Lines = [[]]
        spacer = blank if plan.spacers else []
        lines = self.lines_of("header", lambda: sections.header(snapshot)) + spacer + heading + spacer
        lines = lines + self.lines_of("result", lambda: screen_result.body(result))
        if snapshot.message:  # said since the deal was won: a question ("Quit? ..."), a notice
            lines = lines + blank + self.lines_of("message", functools.partial(sections.message, snapshot))
        return lines

    def rank_lines(self, snapshot: TableSnapshot, scale: int) -> _Lines | None:
        if not scale:
            return self.lines_of(("rank", 0), lambda: sections.rank_small(snapshot))
        if not self.can_draw_blocks:
            return None
        return self.lines_of(("rank", scale), lambda: sections.rank_big(snapshot, self.width, scale)) or None

    def due_lines(self, snapshot: TableSnapshot, plan: _Plan) -> _Lines | None:
        if not plan.due_scale or snapshot.due_line is None:
            return self.lines_of(("due", 0), lambda: sections.due_text(snapshot))
        if not self.can_draw_blocks:
            return None
        key = ("due", plan.due_scale, plan.due_gap)
        return self.lines_of(key, lambda: sections.due_big(snapshot, self.width, plan.due_scale, plan.due_gap)) or None

    @property
    def can_draw_blocks(self) -> bool:
        """Half-block characters need a Unicode console."""
        return self.options.encoding.lower().startswith("utf")

    def players_lines(self, players: tuple[PlayerRow, ...], layout: PlayersLayout) -> _Lines | None:
        """The players as ``layout`` shows them; None for two columns too narrow to show each player whole."""
        if layout == "columns":
            columns = sections.players_columns(players)
            if sections.uncut(self.console, self.options, columns).minimum > self.width:
                return None
            return self.lines_of(("players", layout), lambda: columns)
        builders: dict[PlayersLayout, Callable[[], RenderableType]] = {
            "rows": lambda: sections.players_table(players),
            "inline": lambda: sections.players_inline(players),
        }
        return self.lines_of(("players", layout), builders[layout])

    def tail(self) -> _Lines:
        """What the bottom always keeps: the latest notice, the progress display and the key help."""
        lines: _Lines = []
        notices = self.fresh_notices()
        if notices:
            lines += self.lines_of(("notice", len(notices) - 1), functools.partial(Text, notices[-1], style="dim"))
        if self.view.progress is not None:
            lines += self.lines_of("progress", lambda: self.view.progress)
        if self.view.snapshot is not None and self.view.snapshot.keys:
            snapshot = self.view.snapshot
            lines += self.lines_of("keys", lambda: sections.keys(snapshot, self.width))
        return lines

    def fresh_notices(self) -> tuple[str, ...]:
        message = self.view.snapshot.message if self.view.snapshot is not None else None
        return tuple(notice for notice in self.view.notices if notice != message)

    def notice_lines(self, room: int) -> _Lines:
        """Older notices, newest last, in whatever room the layout leaves."""
        older = self.fresh_notices()[:-1]
        lines: _Lines = []
        for index in range(len(older) - 1, -1, -1):
            rendered = self.lines_of(("notice", index), functools.partial(Text, older[index], style="dim"))
            if len(lines) + len(rendered) > room:
                break
            lines = rendered + lines
        return lines


_HEARD_SECTIONS = ("heard", "feedback")


def _has_content(snapshot: TableSnapshot, section: str) -> bool:
    if section == "heard":
        return snapshot.heard is not None or snapshot.verdict is not None
    if section == "recent":
        return bool(snapshot.recent or snapshot.deal_line)
    return bool(getattr(snapshot, section))
