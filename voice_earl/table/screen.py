"""The table screen: the game as the players read it from across the table.

The game loop builds a :class:`TableSnapshot` after every change and hands it to a :class:`TableScreen`.
On a terminal the screen redraws one frame in place (rich ``Live`` on the alternate screen, refreshed only on
an update, each frame overwriting the last without clearing); anywhere else (a pipe, a file) it prints one
plain line per update holding only what changed.

:func:`render` builds the frame. It fits the frame to the space it is given: the line due goes in a big block
font when it fits, and the layout gives up spacing, big rank digits, one-row-per-player and finally the block
font until everything fits (80x24 holds 6 players with everything big, 13 players in two columns).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Literal

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.live import Live
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from voice_earl.game.cards import Rank
from voice_earl.i18n import N_, _, ngettext, rank_plural
from voice_earl.table import blockfont

logger = logging.getLogger(__name__)

DEFAULT_KEYS = N_("space pass · enter play · u undo · r repeat · p pause · q quit")

VERDICT_STYLES: dict[str, str] = {
    "correct": "bold green",
    "wrong_line": "bold yellow",
    "wrong_rank": "bold yellow",
    "unclear": "bold red",
    "silent": "dim",
    "pass": "dim",
}
# In English; verdict_label() translates.
VERDICT_LABELS: dict[str, str] = {
    "correct": N_("✓ correct"),
    "wrong_line": N_("✗ wrong line"),
    "wrong_rank": N_("✗ wrong rank"),
    "unclear": N_("? unclear"),
    "silent": N_("… silent"),
    "pass": N_("pass"),
}
_TO_MOVE_STYLE = "bold reverse"
_RED_SUITS = ("♥", "♦", "H", "D")
_NOTICE_MEMORY = 20
_REFRESH_INTERVAL = 0.1  # seconds between spinner frames while long work runs


@dataclass(frozen=True)
class PlayerRow:
    """One player as the screen shows them."""

    name: str
    cards: int  # cards left in hand
    total: int  # running total of the series
    dealer: bool = False
    to_move: bool = False  # whose turn it is (highlighted)
    hand: tuple[str, ...] | None = None  # shown cards ("Q♠", "7♦"): open-hands play, or the human in practice
    note: str = ""  # "bot", "you", "won"


@dataclass(frozen=True)
class TableSnapshot:
    """Everything on the screen at one moment; the game loop builds a new one after every change."""

    title: str  # "Deal 2 of 6 · hoyle · physical deck"
    players: tuple[PlayerRow, ...]
    rank: str | None = None  # open rank's short form ("Q", "10"); None at a lead
    in_quartet: int = 0  # cards of the open rank on the table: progress "Q Q Q _"
    finished_ranks: tuple[str, ...] = ()
    due_player: str | None = None
    due_line: str | None = None  # the line due, shown in large text
    due_hint: str = ""  # "Ben: queens, second card"
    heard: str | None = None  # the last thing heard
    verdict: str | None = None  # "correct" | "wrong_line" | "wrong_rank" | "pass" | "unclear" | "silent"
    feedback: str = ""  # "you said 'as good as me', the line ends 'as good as he'"
    message: str = ""  # the narrator's last printed line
    status: str = ""  # "listening…", "paused", "loading model…"
    keys: str = DEFAULT_KEYS  # in English: the screen translates it


def render(snapshot: TableSnapshot) -> RenderableType:
    """The table as a renderable that fits the width and height it is rendered into. Pure."""
    return _TableView(snapshot)


# ---------------------------------------------------------------------------------------------------------
# Sections: small pure builders, one renderable each.


def quartet_progress(snapshot: TableSnapshot) -> str:
    """``Q Q Q _``: the open rank once per card on the table, ``_`` for each card still to come.

    >>> quartet_progress(TableSnapshot(title="", players=(), rank="Q", in_quartet=3))
    'Q Q Q _'
    >>> quartet_progress(TableSnapshot(title="", players=()))
    '_ _ _ _'
    """
    played = min(max(snapshot.in_quartet, 0), 4) if snapshot.rank else 0
    return " ".join([snapshot.rank or "_"] * played + ["_"] * (4 - played))


def verdict_label(verdict: str) -> str:
    """``✓ correct`` in the current language (an unknown verdict as it is)."""
    label = VERDICT_LABELS.get(verdict)
    return _(label) if label is not None else verdict


def _rank_name(rank: str) -> str:
    try:
        return rank_plural(Rank.parse(rank))
    except ValueError:
        return rank


def _rank_label(snapshot: TableSnapshot) -> str:
    return _("rank: {ranks}").format(ranks=_rank_name(snapshot.rank)) if snapshot.rank else _("lead: any rank")


def _finished_label(snapshot: TableSnapshot) -> str:
    finished = " ".join(snapshot.finished_ranks) if snapshot.finished_ranks else "—"
    return _("finished: {ranks}").format(ranks=finished)


def _header(snapshot: TableSnapshot) -> RenderableType:
    grid = Table.grid(expand=True)
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column(justify="right", no_wrap=True)
    grid.add_row(Text(snapshot.title, style="bold underline"), Text(snapshot.status, style="italic"))
    return grid


def _rank_small(snapshot: TableSnapshot) -> RenderableType:
    return Text.assemble(
        (_rank_label(snapshot), ""), "   ", (quartet_progress(snapshot), "bold"), "   ", (_finished_label(snapshot), "")
    )


def _rank_big(snapshot: TableSnapshot, width: int, scale: int) -> RenderableType | None:
    side = Text("\n".join((_rank_label(snapshot), _finished_label(snapshot))))
    rows = blockfont.banner(quartet_progress(snapshot), width - side.cell_len - 3, max_lines=1, scale=scale)
    if rows is None:
        return None
    grid = Table.grid(padding=(0, 3))
    grid.add_column(no_wrap=True)
    grid.add_column(vertical="middle")
    grid.add_row(Text("\n".join(rows), style="bold"), side)
    return grid


def _due_header(snapshot: TableSnapshot) -> RenderableType | None:
    if snapshot.due_player is None and not snapshot.due_hint:
        return None
    text = Text()
    if snapshot.due_player is not None:
        text.append(f" ▶ {snapshot.due_player} ", style=_TO_MOVE_STYLE)
        text.append("  ")
    text.append(snapshot.due_hint, style="dim")
    return text


def _due_big(snapshot: TableSnapshot, width: int, scale: int, gap: bool) -> RenderableType | None:
    if snapshot.due_line is None:
        return None
    rows = blockfont.banner(snapshot.due_line, width, max_lines=3, line_gap=int(gap), scale=scale)
    return None if rows is None else Text("\n".join(rows), style="bold", no_wrap=True)


def _due_text(snapshot: TableSnapshot) -> RenderableType | None:
    return None if snapshot.due_line is None else Text(snapshot.due_line.upper(), style="bold")


def _heard(snapshot: TableSnapshot) -> Text:
    text = Text()
    text.append(_("heard") + "  ", style="dim")
    text.append(f"“{snapshot.heard}”" if snapshot.heard is not None else "—")
    if snapshot.verdict is not None:
        text.append("   ")
        text.append(verdict_label(snapshot.verdict), style=VERDICT_STYLES.get(snapshot.verdict, "bold"))
    return text


def _feedback(snapshot: TableSnapshot) -> Text:
    return Text(snapshot.feedback, style="italic")


def _message(snapshot: TableSnapshot) -> Text:
    return Text(snapshot.message)


def _hand(cards: tuple[str, ...]) -> Text:
    text = Text()
    for index, card in enumerate(cards):
        if index:
            text.append(" ")
        text.append(card, style="red" if card.endswith(_RED_SUITS) else "")
    return text


def _info(player: PlayerRow, compact: bool) -> Text:
    text = Text()
    if player.dealer:
        text.append(_("D") if compact else _("dealer"), style="bold cyan")
    if player.note:
        text.append((" " if compact else " · ") if player.dealer else "", style="dim")
        text.append(player.note, style="italic")
    return text


def _players_table(players: tuple[PlayerRow, ...], compact: bool = False) -> Table:
    """One row per player; ``compact`` folds the turn marker into the name and shortens the dealer marker."""
    table = Table(box=None, padding=(0, 1), pad_edge=False, header_style="dim", show_edge=False)
    if not compact:
        table.add_column("", width=1, no_wrap=True)
    table.add_column(_("player"), no_wrap=True, overflow="ellipsis", max_width=14)
    table.add_column(_("cards"), justify="right", no_wrap=True)
    table.add_column(_("total"), justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    show_hands = any(player.hand is not None for player in players)
    if show_hands:
        table.add_column(_("hand"), overflow="fold")
    for player in players:
        marker = "▶" if player.to_move else ""
        cells: list[RenderableType] = [marker + player.name] if compact else [marker, player.name]
        cells += [str(player.cards), str(player.total), _info(player, compact)]
        if show_hands:
            cells.append(_hand(player.hand) if player.hand is not None else "")
        table.add_row(*cells, style=_TO_MOVE_STYLE if player.to_move else None)
    return table


def _players_columns(players: tuple[PlayerRow, ...]) -> RenderableType:
    half = (len(players) + 1) // 2
    grid = Table.grid(padding=(0, 2))
    grid.add_column()
    grid.add_column()
    grid.add_row(_players_table(players[:half], compact=True), _players_table(players[half:], compact=True))
    return grid


def _players_inline(players: tuple[PlayerRow, ...]) -> Text:
    """The last resort on a crowded small screen: ``cards/total  Ann(D):4/0  ▶Ben:3/3 …``, no space in an entry."""
    text = Text(_("cards/total"), style="dim")
    for player in players:
        marker = "▶" if player.to_move else ""
        dealer = "({mark})".format(mark=_("D")) if player.dealer else ""
        style = _TO_MOVE_STYLE if player.to_move else ""
        text.append("  ")
        text.append(f"{marker}{player.name}{dealer}:{player.cards}/{player.total}", style=style)
    return text


def _keys(snapshot: TableSnapshot) -> Text:
    return Text(_(snapshot.keys), style="dim", no_wrap=True, overflow="ellipsis")


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

_Lines = list[list[Segment]]


class _TableView:
    """The frame: a snapshot (if any), recent notices and a progress display, fitted to the space given."""

    def __init__(
        self,
        snapshot: TableSnapshot | None,
        notices: tuple[str, ...] = (),
        progress: RenderableType | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.notices = notices
        self.progress = progress

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        height = options.height if options.height is not None else options.size.height
        lines = _Fitter(self, console, options.reset_height()).fit(height)
        for line in lines:
            yield from line
            yield Segment.line()


class _Fitter:
    def __init__(self, view: _TableView, console: Console, options: ConsoleOptions) -> None:
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
        for plan in _PLANS:
            candidate = self.body(snapshot, plan)
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
        lines = self.lines_of("header", lambda: _header(snapshot)) + rank + spacer
        lines = lines + self.lines_of("due_header", lambda: _due_header(snapshot)) + due
        for name, build in (("heard", _heard), ("feedback", _feedback), ("message", _message)):
            empty = not _has_content(snapshot, name)
            if empty and not plan.keep_empty:
                continue
            lines = lines + (blank if empty else self.lines_of(name, functools.partial(build, snapshot)))
        return lines + spacer + self.players_lines(snapshot.players, plan.players)

    def rank_lines(self, snapshot: TableSnapshot, scale: int) -> _Lines | None:
        if not scale:
            return self.lines_of(("rank", 0), lambda: _rank_small(snapshot))
        if not self.can_draw_blocks:
            return None
        return self.lines_of(("rank", scale), lambda: _rank_big(snapshot, self.width, scale)) or None

    def due_lines(self, snapshot: TableSnapshot, plan: _Plan) -> _Lines | None:
        if not plan.due_scale or snapshot.due_line is None:
            return self.lines_of(("due", 0), lambda: _due_text(snapshot))
        if not self.can_draw_blocks:
            return None
        key = ("due", plan.due_scale, plan.due_gap)
        return self.lines_of(key, lambda: _due_big(snapshot, self.width, plan.due_scale, plan.due_gap)) or None

    @property
    def can_draw_blocks(self) -> bool:
        """Half-block characters need a Unicode console."""
        return self.options.encoding.lower().startswith("utf")

    def players_lines(self, players: tuple[PlayerRow, ...], layout: PlayersLayout) -> _Lines:
        builders: dict[PlayersLayout, Callable[[], RenderableType]] = {
            "rows": lambda: _players_table(players),
            "columns": lambda: _players_columns(players),
            "inline": lambda: _players_inline(players),
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
        if self.view.snapshot is not None:
            snapshot = self.view.snapshot
            lines += self.lines_of("keys", lambda: _keys(snapshot))
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


def _has_content(snapshot: TableSnapshot, section: str) -> bool:
    if section == "heard":
        return snapshot.heard is not None or snapshot.verdict is not None
    return bool(getattr(snapshot, section))


# ---------------------------------------------------------------------------------------------------------
# Plain lines for pipes and files.


def plain_parts(snapshot: TableSnapshot) -> dict[str, str]:
    """The snapshot as short plain texts, one per part of the screen (what plain mode compares and prints)."""
    due = ""
    if snapshot.due_player is not None or snapshot.due_line is not None:
        who = f"{snapshot.due_player}: " if snapshot.due_player is not None else ""
        hint = f" ({snapshot.due_hint})" if snapshot.due_hint else ""
        due = f"{who}{snapshot.due_line or _('to play')}{hint}"
    heard = ""
    if snapshot.heard is not None or snapshot.verdict is not None:
        heard = _("heard “{heard}”").format(heard=snapshot.heard) if snapshot.heard is not None else _("heard nothing")
        if snapshot.verdict is not None:
            heard += f" → {verdict_label(snapshot.verdict)}"
        if snapshot.feedback:
            heard += f": {snapshot.feedback}"
    return {
        "title": snapshot.title,
        "rank": f"{_rank_label(snapshot)} {quartet_progress(snapshot)}, {_finished_label(snapshot)}",
        "players": "; ".join(_plain_player(player) for player in snapshot.players),
        "due": due,
        "heard": heard,
        "message": snapshot.message,
        "status": f"[{snapshot.status}]" if snapshot.status else "",
    }


def _plain_player(player: PlayerRow) -> str:
    dealer = " ({dealer})".format(dealer=_("dealer")) if player.dealer else ""
    text = f"{'▶' if player.to_move else ''}{player.name}{dealer} "
    text += ngettext("{count} card, total {total}", "{count} cards, total {total}", player.cards).format(
        count=player.cards, total=player.total
    )
    if player.note:
        text += f", {player.note}"
    if player.hand is not None:
        text += f" [{' '.join(player.hand)}]"
    return text


# ---------------------------------------------------------------------------------------------------------
# The screen.


class TableScreen:
    """Shows snapshots: a live frame on a terminal, plain lines of what changed elsewhere.

    ``live=None`` picks the live frame when the console is an interactive terminal.
    """

    def __init__(self, console: Console | None = None, *, live: bool | None = None) -> None:
        self.console = console if console is not None else Console()
        self.is_live = self.console.is_interactive if live is None else live
        self._live: Live | None = None
        self._alt_screen = False
        self._snapshot: TableSnapshot | None = None
        self._notices: deque[str] = deque(maxlen=_NOTICE_MEMORY)
        self._progress: Progress | None = None
        self._printed: dict[str, str] = {}
        self._lock = threading.RLock()
        self._closed = False

    def __enter__(self) -> TableScreen:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def update(self, snapshot: TableSnapshot) -> None:
        with self._lock:
            self._snapshot = snapshot
            if self.is_live:
                self._redraw()
            else:
                self._print_changes(snapshot)

    def print_line(self, text: str) -> None:
        """A narrator line or notice: above the frame's key help when live, a printed line otherwise."""
        with self._lock:
            if self.is_live:
                logger.debug("screen notice: %s", text)  # the frame keeps only the latest few
                self._notices.append(text)
                self._redraw()
            else:
                self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def progress(self, description: str, total: float | None = None) -> AbstractContextManager[Callable[[float], None]]:
        """Show long work (loading a model, synthesizing voices) while the block runs; yields ``advance(amount)``.

        ``total=None`` shows a spinner without a bar's end.
        """
        if self.is_live:
            return self._live_progress(description, total)
        if self.console.is_terminal:
            return self._terminal_progress(description, total)
        return self._plain_progress(description)

    def close(self) -> None:
        """Leave the live frame; the last frame stays printed on the normal screen."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._live is not None:
                self._live.stop()
                if self._alt_screen and self._snapshot is not None:
                    # One row fewer than the terminal so that the prompt after it does not scroll the title away.
                    self.console.print(render(self._snapshot), height=max(self.console.height - 1, 1))

    # -- live mode --------------------------------------------------------------------------------------

    def _view(self) -> _TableView:
        return _TableView(self._snapshot, tuple(self._notices), self._progress)

    def _redraw(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._live is None:
                self._live = Live(self._view(), console=self.console, auto_refresh=False, transient=False, screen=True)
                self._live.start()
                self._alt_screen = self.console.is_alt_screen
            self._live.update(self._view(), refresh=True)

    @contextlib.contextmanager
    def _live_progress(self, description: str, total: float | None) -> Iterator[Callable[[float], None]]:
        with self._lock:
            if self._progress is None:
                self._progress = _progress_display(self.console, auto_refresh=False)
            display = self._progress
            task = display.add_task(description, total=total)
        stop = threading.Event()
        ticker = threading.Thread(target=self._tick, args=(stop,), name="screen-progress", daemon=True)
        ticker.start()
        last_refresh = 0.0

        def advance(amount: float) -> None:
            nonlocal last_refresh
            display.advance(task, amount)
            if time.monotonic() - last_refresh >= _REFRESH_INTERVAL / 2:
                last_refresh = time.monotonic()
                self._redraw()

        try:
            self._redraw()
            yield advance
        finally:
            stop.set()
            ticker.join()
            with self._lock:
                display.remove_task(task)
                if not display.tasks:
                    self._progress = None
                self._redraw()

    def _tick(self, stop: threading.Event) -> None:
        while not stop.wait(_REFRESH_INTERVAL):
            self._redraw()

    # -- terminal without live frame, and plain mode ---------------------------------------------------------

    @contextlib.contextmanager
    def _terminal_progress(self, description: str, total: float | None) -> Iterator[Callable[[float], None]]:
        with _progress_display(self.console, auto_refresh=True, transient=True) as display:
            task = display.add_task(description, total=total)
            yield lambda amount: display.advance(task, amount)

    @contextlib.contextmanager
    def _plain_progress(self, description: str) -> Iterator[Callable[[float], None]]:
        self.console.print(f"{description}…", markup=False, highlight=False, soft_wrap=True)
        started = time.monotonic()
        yield lambda amount: None
        elapsed = time.monotonic() - started
        done = _("{task}: done ({seconds} s)").format(task=description, seconds=f"{elapsed:.1f}")
        self.console.print(done, markup=False, highlight=False, soft_wrap=True)

    def _print_changes(self, snapshot: TableSnapshot) -> None:
        parts = plain_parts(snapshot)
        changed = [text for name, text in parts.items() if text and self._printed.get(name) != text]
        self._printed = parts
        if changed:
            self.console.print(" | ".join(changed), markup=False, highlight=False, soft_wrap=True)


def _progress_display(console: Console, *, auto_refresh: bool, transient: bool = False) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=console,
        auto_refresh=auto_refresh,
        transient=transient,
    )
