"""`voice-earl history`: past series, one series' deals, and a series' game log as JSON Lines."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from voice_earl.commands.series_args import HELP as SERIES_HELP
from voice_earl.commands.series_args import series_id
from voice_earl.errors import VoiceEarlError
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_values import SeriesStatus, SeriesSummary

if TYPE_CHECKING:
    from rich.console import Console


EMPTY = "no series yet - play one with `voice-earl play`"


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.add_parser("list", help="past series, newest first (the default)")
    show = actions.add_parser("show", help="one series' deals and settlements")
    show.add_argument("series_id", metavar="ID", type=series_id, help=SERIES_HELP)
    export = actions.add_parser("export", help="a series' game log as JSON Lines")
    export.add_argument("series_id", metavar="ID", type=series_id, help=SERIES_HELP)
    export.add_argument("--out", type=Path, metavar="FILE", help="write to FILE instead of standard output")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console(highlight=False)
    with Store.open(exclusive=False) as store:
        if args.action == "show":
            _show(console, store, args.series_id)
        elif args.action == "export":
            _export(store, args.series_id, args.out)
        else:
            _list(console, store)
    return 0


def _list(console: Console, store: Store) -> None:
    from rich import box
    from rich.table import Table

    summaries = store.list_series()
    if not summaries:
        console.print(EMPTY)
        return
    table = Table(title="Series", box=box.SIMPLE_HEAD)
    for column in ("ID", "Date", "Players", "Profile", "Deals", "Winner", "Totals"):
        justify: Literal["left", "right"] = "right" if column in ("ID", "Deals") else "left"
        table.add_column(column, justify=justify, no_wrap=column not in ("Players", "Totals"))
    for summary in summaries:
        table.add_row(
            str(summary.id),
            summary.started_at.astimezone().strftime("%Y-%m-%d"),
            ", ".join(summary.players) or "-",
            summary.profile,
            str(summary.deals),
            _winner_text(summary),
            _totals_text(summary),
        )
    console.print(table)


def _winner_text(summary: SeriesSummary) -> str:
    """The winner, or why there is none: the series is unfinished or was abandoned."""
    if summary.status is SeriesStatus.OPEN:
        return "unfinished"
    if summary.status is SeriesStatus.ABANDONED:
        return "abandoned"
    return ", ".join(summary.winners) or "-"


def _totals_text(summary: SeriesSummary) -> str:
    """Totals in seat order (as the players are listed); the count of wins where nothing is scored."""
    if summary.totals is not None:
        return " ".join(str(total) for total in summary.totals)
    if any(summary.wins):
        return "wins " + " ".join(str(wins) for wins in summary.wins)
    return "-"


def _per_player(players: Sequence[str], values: Sequence[object]) -> str:
    return ", ".join(f"{_seat_name(players, seat)} {value}" for seat, value in enumerate(values))


def _seat_name(players: Sequence[str], seat: object) -> str:
    if isinstance(seat, int) and 0 <= seat < len(players):
        return players[seat]
    return f"seat {seat}"


@dataclass
class _Deal:
    """One deal as ``history show`` tells it, gathered from the deal's events."""

    number: int
    dealer: str = "-"
    winner: str = "-"
    cards_left: str = "-"
    payments: str = "-"
    totals: str = "-"
    plays: int = 0


def deals_of(players: Sequence[str], events: Sequence[dict[str, Any]]) -> list[_Deal]:
    """Walk a game log and sum up each deal: dealer, winner, cards left, payments, totals."""
    names = list(players)
    deals: dict[int, _Deal] = {}
    for event in events:
        number = event.get("deal")
        if not isinstance(number, int):
            continue
        deal = deals.setdefault(number, _Deal(number))
        kind = event.get("event")
        if kind == "deal":
            if isinstance(event.get("players"), list):
                names = [str(name) for name in event["players"]]
            deal.dealer = _seat_name(names, event.get("dealer"))
        elif kind in ("lead", "play"):
            deal.plays += 1
        elif kind == "win":
            deal.winner = _seat_name(names, event.get("player"))
            deal.cards_left = _counts(event.get("cards_left"))
        elif kind == "settle":
            deal.payments = " ".join(f"{p:+d}" for p in event.get("payments", []))
            deal.totals = " ".join(str(t) for t in event.get("totals", []))
    return [deals[n] for n in sorted(deals)]


def _counts(cards_left: object) -> str:
    if not isinstance(cards_left, list):
        return "-"
    return " ".join(str(len(hand)) if isinstance(hand, list) else str(hand) for hand in cards_left)


def _show(console: Console, store: Store, series_id: int) -> None:
    from rich.table import Table

    summary = store.series_summary(series_id)
    settings, events = store.load_series(series_id)
    status = "unfinished" if summary.status is SeriesStatus.OPEN else summary.status.value
    console.print(
        f"Series {summary.id}: {summary.profile}, started "
        f"{summary.started_at.astimezone():%Y-%m-%d %H:%M}, {status}, {summary.events} events"
    )
    players = list(summary.players)
    console.print("Players: " + (", ".join(f"{seat} {name}" for seat, name in enumerate(players)) or "-"))
    # "rules" holds every ruling of the profile: too long for one line, and named by "profile"
    others = {key: value for key, value in settings.items() if key not in ("players", "profile", "rules")}
    if others:
        console.print("Settings: " + ", ".join(f"{key} {value}" for key, value in others.items()))
    deals = deals_of(players, events)
    if not deals:
        console.print("no deals yet")
        return
    table = Table(title=f"Series {summary.id}: deals")
    for column in ("Deal", "Dealer", "Cards played", "Winner", "Cards left", "Payments", "Totals"):
        table.add_column(column, justify="right" if column in ("Deal", "Cards played") else "left")
    for deal in deals:
        table.add_row(
            str(deal.number),
            deal.dealer,
            str(deal.plays),
            deal.winner,
            deal.cards_left,
            deal.payments,
            deal.totals,
        )
    console.print(table)
    if summary.winners:
        console.print(f"Winner: {', '.join(summary.winners)}; places {_per_player(players, summary.places or ())}")


def _export(store: Store, series_id: int, out: Path | None) -> None:
    _, events = store.load_series(series_id)
    text = "".join(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n" for event in events)
    if out is None:
        print(text, end="")
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as error:
        raise VoiceEarlError(f"cannot write {out}: {error.strerror}") from None
    print(f"wrote {len(events)} events of series {series_id} to {out}")
