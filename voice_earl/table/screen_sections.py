"""What the table screen shows: the snapshot values and the sections of the frame, one pure builder each.

:mod:`voice_earl.table.screen_layout` fits these sections into the space given; :func:`plain_parts`
gives the same content as short plain texts for pipes and files.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from voice_earl.game.cards import Rank
from voice_earl.i18n import N_, _, ngettext, rank_plural
from voice_earl.table import blockfont

DEFAULT_KEYS = N_("space pass · enter play · u undo · r repeat · p pause · x quit")
KEY_SEPARATOR = " · "

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
_DUE_LINES = 3  # the line due takes at most this many lines of big text
_WIDEST_PROGRESS = "10 10 10 10"
_RED_SUITS = ("♥", "♦", "H", "D")


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
class ResultRow:
    """One player in the deal-over view or the final standings."""

    place: int
    name: str
    change: int  # taken (+) or paid (-) in the deal just played
    total: int
    shared: bool = False  # another player has the same place


@dataclass(frozen=True)
class DealResult:
    """The deal-over view: who won, who paid what, the running totals; ``final``: the final standings."""

    heading: str  # "Ben wins deal 1" or "Final standings"
    detail: str  # "Ben takes 3: Ann pays 2, Cy pays 1"
    rows: tuple[ResultRow, ...]  # best first
    deal: int
    final: bool = False


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
    heard_from: str | None = None  # whose it was: it stays on the screen while others tap or pass
    verdict: str | None = None  # "correct" | "wrong_line" | "wrong_rank" | "pass" | "unclear" | "silent"
    feedback: str = ""  # "you said 'as good as me', the line ends 'as good as he'"
    message: str = ""  # the narrator's last printed line
    status: str = ""  # "listening…", "paused", "loading model…"
    keys: str = DEFAULT_KEYS  # in English: the screen translates it
    more_keys: tuple[str, ...] = ()  # keys this table adds after them (the phones' join code), in English too
    recent: tuple[str, ...] = ()  # the deal's moves so far, oldest first ("Ann Q♠", "Ben pass")
    result: DealResult | None = None  # a deal is over: the deal-over view instead of the table
    deal_line: str = ""  # "Deal 2. Ben deals: Cy 18, Ann 17, Ben 17.": in the moves line until the first card
    # Every line that may be due at this table: the big text takes the size and the rows that fit them
    # all, so that the layout does not jump from one turn to the next.
    due_samples: tuple[str, ...] = ()
    listening: bool = True  # something is heard (not Silent Earl): the heard and feedback lines keep their rows


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


def header(snapshot: TableSnapshot) -> RenderableType:
    grid = Table.grid(expand=True)
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column(justify="right", no_wrap=True)
    grid.add_row(Text(snapshot.title, style="bold underline"), Text(snapshot.status, style="italic"))
    return grid


def rank_small(snapshot: TableSnapshot) -> RenderableType:
    return Text.assemble(
        (_rank_label(snapshot), ""), "   ", (quartet_progress(snapshot), "bold"), "   ", (_finished_label(snapshot), "")
    )


def rank_big(snapshot: TableSnapshot, width: int, scale: int) -> RenderableType | None:
    """The quartet's progress in the block font; None if a quartet of the widest rank would not fit beside
    the widest labels (the size would change when Tens are led, or as more ranks are finished)."""
    side = Text("\n".join((_rank_label(snapshot), _finished_label(snapshot))))
    room = width - _widest_labels() - 3
    if blockfont.banner(_WIDEST_PROGRESS, room, max_lines=1, scale=scale) is None:
        return None
    rows = blockfont.banner(quartet_progress(snapshot), room, max_lines=1, scale=scale)
    if rows is None:
        return None
    grid = Table.grid(padding=(0, 3))
    grid.add_column(no_wrap=True)
    grid.add_column(vertical="middle")
    grid.add_row(Text("\n".join(rows), style="bold"), side)
    return grid


def _widest_labels() -> int:
    """Columns of the labels beside the quartet's progress at their widest: any rank, every rank finished."""
    every = TableSnapshot(title="", players=(), finished_ranks=tuple(rank.value for rank in Rank))
    ranks = [_rank_label(TableSnapshot(title="", players=(), rank=rank.value)) for rank in Rank]
    return max(Text(label).cell_len for label in (*ranks, _rank_label(every), _finished_label(every)))


def due_header(snapshot: TableSnapshot) -> RenderableType | None:
    if snapshot.due_player is None and not snapshot.due_hint:
        return None
    text = Text()
    if snapshot.due_player is not None:
        text.append(f" ▶ {snapshot.due_player} ", style=_TO_MOVE_STYLE)
        text.append("  ")
    text.append(snapshot.due_hint, style="dim")
    return text


def due_big(snapshot: TableSnapshot, width: int, scale: int, gap: bool) -> RenderableType | None:
    """The line due in the block font, as tall as the tallest line that may be due; None if one does not fit.

    A line that may be due but that the font cannot draw at all (a name in a script it has no letters for,
    or too long for the screen) is written small on its own turn, in the rows the others take, and takes no
    part in choosing the size: one such name does not shrink every other player's turn."""
    if snapshot.due_line is None:
        return None
    drawable = [line for line in snapshot.due_samples if _due_rows(line, width, 1) is not None]
    own = _due_rows(snapshot.due_line, width, 1) is not None
    lines = 1
    for line in ([snapshot.due_line] if own else []) + drawable:
        wrapped = _due_rows(line, width, scale)
        if wrapped is None:
            return None
        lines = max(lines, len(wrapped))
    tallest = lines * blockfont.line_rows(scale) + (lines - 1) * int(gap)
    if not own:  # in capitals, in the rows the others' turns take: the table below stays where it was
        return Text(snapshot.due_line.upper() + "\n" * (tallest - 1), style="bold")
    # Every line due in as many lines of big text, so that the layout keeps still from turn to turn.
    rows = blockfont.banner(snapshot.due_line, width, lines, int(gap), scale, min_lines=lines)
    if rows is None:
        return None
    return Text("\n".join(rows + ("",) * max(tallest - len(rows), 0)), style="bold", no_wrap=True)


def _due_rows(line: str, width: int, scale: int) -> list[str] | None:
    """``line`` split into the lines of big text it takes at ``scale``; None if the font cannot draw it there."""
    normalized = blockfont.normalize(line)
    return None if normalized is None else blockfont.wrap(normalized, width, scale, _DUE_LINES)


def due_text(snapshot: TableSnapshot) -> RenderableType | None:
    return None if snapshot.due_line is None else Text(snapshot.due_line.upper(), style="bold")


def heard(snapshot: TableSnapshot) -> Text:
    text = Text()
    text.append(_("heard") + "  ", style="dim")
    if snapshot.heard_from is not None:
        text.append(f"{snapshot.heard_from}: ", style="bold")
    text.append(f"“{snapshot.heard}”" if snapshot.heard else "—")
    if snapshot.verdict is not None:
        text.append("   ")
        text.append(verdict_label(snapshot.verdict), style=VERDICT_STYLES.get(snapshot.verdict, "bold"))
    return text


def feedback(snapshot: TableSnapshot) -> Text:
    return Text(snapshot.feedback, style="italic")


def message(snapshot: TableSnapshot) -> Text:
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


def players_table(players: tuple[PlayerRow, ...], compact: bool = False) -> RenderableType:
    """One row per player; ``compact`` folds the turn marker into the name and shortens the dealer marker."""
    if any(player.hand is not None for player in players):
        return _PlayersAndHands(players, compact)
    return _players_rows(players, compact, hands=False)


def uncut(console: Console, options: ConsoleOptions, renderable: RenderableType) -> Measurement:
    """What ``renderable`` needs, not cut to the width at hand (rich cuts a measurement to the width it is given)."""
    return Measurement.get(console, options.update_width(10_000), renderable)


# The narrowest hand column worth having: three cards a row ("10♠ 10♥ 10♦"). Where the table leaves less,
# rich would squeeze the column to nothing and the hand would vanish, so the hands go under the table.
_HAND_MIN_WIDTH = 11


class _PlayersAndHands:
    """The players' table with a column of hands where it fits, else the table and each hand under it."""

    def __init__(self, players: tuple[PlayerRow, ...], compact: bool) -> None:
        self.players = players
        self.compact = compact

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        without = _players_rows(self.players, self.compact, hands=False)
        gap = 1  # the padding before the hand column
        if uncut(console, options, without).maximum + gap + _HAND_MIN_WIDTH <= options.max_width:
            yield _players_rows(self.players, self.compact, hands=True)
            return
        yield without
        for player in self.players:
            if player.hand is not None:
                yield Text(f"{player.name}: ").append_text(_hand(player.hand))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, _players_rows(self.players, self.compact, hands=True))


def _players_rows(players: tuple[PlayerRow, ...], compact: bool, hands: bool) -> Table:
    table = Table(box=None, padding=(0, 1), pad_edge=False, header_style="dim", show_edge=False)
    if not compact:
        table.add_column("", width=1, no_wrap=True)
    table.add_column(_("player"), no_wrap=True, overflow="ellipsis", max_width=14)
    table.add_column(_("cards"), justify="right", no_wrap=True)
    table.add_column(_("total"), justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    if hands:
        table.add_column(_("hand"), overflow="fold")
    for player in players:
        marker = "▶" if player.to_move else ""
        cells: list[RenderableType] = [marker + player.name] if compact else [marker, player.name]
        cells += [str(player.cards), str(player.total), _info(player, compact)]
        if hands:
            cells.append(_hand(player.hand) if player.hand is not None else "")
        table.add_row(*cells, style=_TO_MOVE_STYLE if player.to_move else None)
    return table


def players_columns(players: tuple[PlayerRow, ...]) -> RenderableType:
    half = (len(players) + 1) // 2
    grid = Table.grid(padding=(0, 2))
    grid.add_column()
    grid.add_column()
    grid.add_row(players_table(players[:half], compact=True), players_table(players[half:], compact=True))
    return grid


def players_inline(players: tuple[PlayerRow, ...]) -> Text:
    """The last resort on a crowded small screen: ``cards/total  Ann(D):4/0  ▶Ben:3/3 …``, no space in an entry."""
    text = Text(_("cards/total"), style="dim")
    for player in players:
        marker = "▶" if player.to_move else ""
        dealer = "({mark})".format(mark=_("D")) if player.dealer else ""
        style = _TO_MOVE_STYLE if player.to_move else ""
        text.append("  ")
        text.append(f"{marker}{player.name}{dealer}:{player.cards}/{player.total}", style=style)
    return text


def recent_moves(snapshot: TableSnapshot, width: int) -> Text | None:
    """``moves  … Ann Q♠ · Ben pass · Cy Q♦``: the newest moves that fit the width, newest last.

    Before the deal's first card, who dealt and how many cards each player got.
    """
    if not snapshot.recent:
        return Text(snapshot.deal_line, style="bold") if snapshot.deal_line else None
    label = _("moves") + "  "
    shown: list[str] = []
    room = width - len(label) - 2
    for move in reversed(snapshot.recent):
        if sum(len(m) + len(KEY_SEPARATOR) for m in shown) + len(move) > room:
            break
        shown.insert(0, move)
    more = "… " if len(shown) < len(snapshot.recent) else ""
    return Text.assemble((label, "dim"), (more + KEY_SEPARATOR.join(shown), ""), no_wrap=True, overflow="ellipsis")


def keys(snapshot: TableSnapshot, width: int) -> Text:
    """Every key, on as many lines as the width needs; a key and what it does are never split."""
    entries = _(snapshot.keys).split(KEY_SEPARATOR) + [_(key) for key in snapshot.more_keys]
    return Text("\n".join(pack(entries, width)), style="dim", overflow="fold")


def pack(entries: list[str], width: int) -> list[str]:
    """Entries joined by `` · `` into lines no wider than ``width`` (an entry wider than that gets a line)."""
    lines: list[str] = []
    for entry in entries:
        if lines and len(lines[-1]) + len(KEY_SEPARATOR) + len(entry) <= width:
            lines[-1] += KEY_SEPARATOR + entry
        else:
            lines.append(entry)
    return lines


# ---------------------------------------------------------------------------------------------------------
# Plain lines for pipes and files.


def _heard_plain(snapshot: TableSnapshot) -> str:
    """ "heard Ben: “there is a queen as good as he”", or "heard nothing" when nothing clear was."""
    if not snapshot.heard:
        return _("heard nothing")
    if snapshot.heard_from is None:
        return _("heard “{heard}”").format(heard=snapshot.heard)
    return _("heard {player}: “{heard}”").format(player=snapshot.heard_from, heard=snapshot.heard)


def plain_parts(snapshot: TableSnapshot) -> dict[str, str]:
    """The snapshot as short plain texts, one per part of the screen (what plain mode compares and prints)."""
    due = ""
    if snapshot.due_player is not None or snapshot.due_line is not None:
        line = snapshot.due_line or _("to play")
        # Silent Earl's line is the turn, which names the player ("Ben: Queens, card 2 of 4", "apre Ben"): say
        # it once. Where in the line the name stands is up to the language.
        named = not snapshot.listening and snapshot.due_line is not None
        who = f"{snapshot.due_player}: " if snapshot.due_player is not None and not named else ""
        hint = f" ({snapshot.due_hint})" if snapshot.due_hint and snapshot.due_hint != line else ""
        due = f"{who}{line}{hint}"
    heard = ""
    if snapshot.heard is not None or snapshot.verdict is not None:
        heard = _heard_plain(snapshot)
        if snapshot.verdict is not None:
            heard += f" → {verdict_label(snapshot.verdict)}"
        if snapshot.feedback:
            heard += f": {snapshot.feedback}"
    if snapshot.result is not None:  # the narrator's printed lines already say who won, paid and leads
        return {"title": snapshot.title, "message": snapshot.message}
    return {
        "title": snapshot.title,
        "rank": f"{_rank_label(snapshot)} {quartet_progress(snapshot)}, {_finished_label(snapshot)}",
        "players": "; ".join(_plain_player(player) for player in snapshot.players),
        "due": due,
        "heard": heard,
        "moves": snapshot.recent[-1] if snapshot.recent else "",
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
