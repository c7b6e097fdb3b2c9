"""`voice-earl history`: past series (or the unfinished ones), one series' deals, a series' game log as
JSON Lines, and giving up an unfinished series."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from voice_earl.commands.arguments import SERIES_ID, output_file
from voice_earl.errors import VoiceEarlError, tell
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_values import JournalError, Mode, SeriesStatus, SeriesSummary

if TYPE_CHECKING:
    from rich.console import Console


EMPTY = "no series yet - play one with `voice-earl play`"


EXAMPLES = """examples:
  voice-earl history                   every series, newest first
  voice-earl history --unfinished      the series that can be resumed, and how
  voice-earl history show 12           series 12's deals and settlements
  voice-earl history export 12 --out game.jsonl
  voice-earl history abandon 12        give up series 12 (it stays listed; --resume no longer offers it)"""

SERIES_HELP = "the series number, as `voice-earl history` lists it"
UNFINISHED_HELP = "only the unfinished series, each with the command that resumes it"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--unfinished", action="store_true", help=UNFINISHED_HELP)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser("list", help="past series, newest first (the default)")
    listing.add_argument("--unfinished", action="store_true", default=argparse.SUPPRESS, help=UNFINISHED_HELP)
    show = actions.add_parser("show", help="one series' deals and settlements")
    show.add_argument("series_id", metavar="ID", type=SERIES_ID, help=SERIES_HELP)
    export = actions.add_parser("export", help="a series' game log as JSON Lines")
    export.add_argument("series_id", metavar="ID", type=SERIES_ID, help=SERIES_HELP)
    export.add_argument("--out", type=output_file, metavar="FILE", help="write to FILE instead of standard output")
    abandon = actions.add_parser("abandon", help="give up an unfinished series: it is kept, but no longer resumed")
    abandon.add_argument("series_id", metavar="ID", type=SERIES_ID, help=SERIES_HELP)


def run(args: argparse.Namespace) -> int:
    from voice_earl.table.console import text_console

    console = text_console(highlight=False)
    if args.action == "abandon":
        _abandon(args.series_id)
        return 0
    with Store.read(told=tell) as store:  # only reads: a read-only folder or file is read all the same
        if args.action == "show":
            _show(console, store, args.series_id)
        elif args.action == "export":
            return _export(store, args.series_id, args.out)
        elif args.unfinished:
            _list_unfinished(console, store)
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
            _date(summary),
            ", ".join(summary.players) or "-",
            summary.profile if summary.mode is Mode.PLAY else f"{summary.profile}\n{summary.mode.value}",
            _deals_text(summary),
            _winner_text(summary),
            _totals_text(summary),
        )
    console.print(table)
    _tell_damaged(console, summaries)


def _tell_damaged(console: Console, summaries: Sequence[SeriesSummary]) -> None:
    """Each damaged series, what of it cannot be read, and what can still be done with it."""
    for summary in summaries:
        if summary.damage is not None:
            console.print(
                f"Series {summary.id} is damaged: {summary.damage}. `voice-earl history show {summary.id}` shows"
                f" what reads, `voice-earl history export {summary.id}` saves its game log as far as it reads,"
                f" `voice-earl history abandon {summary.id}` gives it up.",
                soft_wrap=True,
            )


def _date(summary: SeriesSummary, form: str = "%Y-%m-%d") -> str:
    return "?" if "start date" in summary.damaged else summary.started_at.astimezone().strftime(form)


def _deals_text(summary: SeriesSummary) -> str:
    """The deals dealt, and of how many while the series is unfinished ("2 of 6")."""
    if summary.status is SeriesStatus.FINISHED or summary.planned is None:
        return str(summary.deals)
    return f"{summary.deals} of {summary.planned}"


def _winner_text(summary: SeriesSummary) -> str:
    """The winner, or why there is none: the series is damaged, unfinished or was abandoned."""
    if summary.damage is not None:
        return "damaged"
    if summary.status is SeriesStatus.OPEN:
        return "unfinished"
    if summary.status is SeriesStatus.ABANDONED:
        return "abandoned"
    return ", ".join(summary.winners) or "-"


def _totals_text(summary: SeriesSummary) -> str:
    """Each player's total; the count of wins where nothing is scored."""
    if summary.totals is not None:
        return _per_player(summary.players, summary.totals, sep="\n")
    if any(summary.wins):
        return "wins:\n" + _per_player(summary.players, summary.wins, sep="\n")
    return "-"


def _list_unfinished(console: Console, store: Store) -> None:
    from rich import box
    from rich.table import Table

    from voice_earl.table.saved_series import resume_command

    summaries = store.unfinished_series()
    if not summaries:
        console.print("no unfinished series: every series was played out or abandoned")
        return
    table = Table(title="Unfinished series", box=box.SIMPLE_HEAD)
    for column in ("ID", "Started", "Kind", "Players", "Resume with"):
        table.add_column(
            column,
            justify="right" if column == "ID" else "left",
            no_wrap=column != "Players",
            min_width=12 if column == "Players" else None,
        )
    for summary in summaries:
        table.add_row(
            str(summary.id),
            _date(summary),
            summary.mode.value,
            ", ".join(summary.players) or "-",
            "damaged" if summary.damage is not None else resume_command(summary.mode, summary.id),
        )
    console.print(table)
    console.print("Give one up with `voice-earl history abandon ID`.")
    _tell_damaged(console, summaries)


def _abandon(series: int) -> None:
    """Close an unfinished series as abandoned; a game being played holds the database and is not touched."""
    with Store.open(told=tell) as store:
        summary = store.series_summary(series)
        if summary.status is not SeriesStatus.OPEN:
            state = summary.status.value
            raise VoiceEarlError(f"series {series} is {state}: only an unfinished series can be abandoned")
        store.finish_series(series, abandoned=True)
    print(f"series {series} abandoned: it stays in the history, and --resume no longer offers it")


def _per_player(players: Sequence[str], values: Sequence[object], signed: bool = False, sep: str = ", ") -> str:
    """``Ann 3, Ben -1, Cy -2``: each value with the name of its seat (``sep="\\n"``: one a line, for tables)."""
    shown = [f"{value:+d}" if signed and isinstance(value, int) else str(value) for value in values]
    return sep.join(f"{_seat_name(players, seat)} {text}" for seat, text in enumerate(shown))


def _in_places(players: Sequence[str], places: Sequence[int]) -> str:
    """``1. Ben, 2. Ann, 2. Cy``: the players by their places (ties in seat order)."""
    by_place = sorted(enumerate(places), key=lambda seat_and_place: seat_and_place[::-1])
    return ", ".join(f"{place}. {_seat_name(players, seat)}" for seat, place in by_place)


def _seat_name(players: Sequence[str], seat: object) -> str:
    if not isinstance(seat, int) or seat < 0:
        return f"seat {seat}"
    return players[seat] if seat < len(players) else f"seat {seat + 1}"  # counted from 1, as shown


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
            deal.cards_left = _counts(names, event.get("cards_left"))
        elif kind == "settle":
            deal.payments = _per_player(names, _ints(event.get("payments")), signed=True, sep="\n") or "-"
            deal.totals = _per_player(names, _ints(event.get("totals")), sep="\n") or "-"
    return [deals[n] for n in sorted(deals)]


def _ints(values: object) -> list[int]:
    return [v for v in values if isinstance(v, int)] if isinstance(values, list) else []


def _counts(names: Sequence[str], cards_left: object) -> str:
    if not isinstance(cards_left, list):
        return "-"
    return _per_player(names, [len(hand) if isinstance(hand, list) else hand for hand in cards_left], sep="\n")


def _show(console: Console, store: Store, series_id: int) -> None:
    from rich.table import Table

    summary = store.series_summary(series_id)
    settings = _settings(store, series_id)
    events, stopped = store.readable_events(series_id)
    status = "unfinished" if summary.status is SeriesStatus.OPEN else summary.status.value
    console.print(
        f"Series {summary.id}: {summary.profile}, started {_date(summary, '%Y-%m-%d %H:%M')}, {status},"
        f" {_count(summary.events, 'event')}"
    )
    if summary.damage is not None or stopped is not None or settings is None:
        what = "; ".join(
            filter(
                None,
                (
                    summary.damage,
                    None if settings is not None else "its settings cannot be read",
                    None if stopped is None else f"its {stopped}, so what follows stops there",
                ),
            )
        )
        console.print(f"Damaged: {what}.", soft_wrap=True)
    players = list(summary.players)
    console.print("Players by seat: " + (", ".join(f"{seat} {name}" for seat, name in enumerate(players, 1)) or "-"))
    console.print("Settings: " + settings_in_words(settings or {}, players))
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
        console.print(f"Winner: {', '.join(summary.winners)}; places {_in_places(players, summary.places or ())}")


def _settings(store: Store, series_id: int) -> dict[str, Any] | None:
    try:
        return store.settings(series_id)
    except JournalError:
        return None


def _export(store: Store, series_id: int, out: Path | None) -> int:
    """Write the game log; a damaged series as far as it reads (and 1, with what stopped it)."""
    events, stopped = store.readable_events(series_id)
    text = "".join(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n" for event in events)
    if out is None:
        print(text, end="")
    else:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as error:
            raise VoiceEarlError(f"cannot write {out}: {error.strerror}") from None
        print(f"wrote {_count(len(events), 'event')} of series {series_id} to {out}")
    if stopped is None:
        return 0
    print(
        f"voice-earl history: series {series_id} is damaged: its {stopped}; the {_count(len(events), 'event')}"
        " before it were exported",
        file=sys.stderr,
    )
    return 1


def settings_in_words(record: dict[str, Any], players: Sequence[str]) -> str:
    """A saved series' settings as a sentence: ``practice, virtual deck, 6 deals, seed 7, chant earl...``."""
    rules = record.get("rules")
    rules = rules if isinstance(rules, dict) else {}
    words = ["practice" if record.get("mode") == "practice" else "a game"]
    if record.get("deck") in ("physical", "virtual"):
        words.append(f"{record['deck']} deck")
    deals = record.get("deals") or rules.get("series_deals")
    if isinstance(deals, int):
        words.append(f"{deals} deal" if deals == 1 else f"{deals} deals")
    elif "series_deals" in rules:
        words.append("deals until the table stops")
    if isinstance(record.get("seed"), int):
        words.append(f"seed {record['seed']}")
    if record.get("chant"):
        words.append(f"chant {record['chant']}")
    if isinstance(record.get("first_dealer"), int):
        words.append(f"first dealer {_seat_name(players, record['first_dealer'])}")
    bots = record.get("bots")
    if isinstance(bots, list) and any(bot is True for bot in bots):
        named = [_seat_name(players, seat) for seat, bot in enumerate(bots) if bot is True]
        strategy = record.get("strategy")
        words.append("bots " + ", ".join(named) + (f" playing {strategy!r}" if strategy else ""))
    words += [
        text
        for key, text in (("silent", "Silent Earl"), ("open_hands", "open hands"), ("forfeit_kitty", "Forfeit Earl"))
        if rules.get(key) is True
    ]
    words += [f"{key} {record[key]}" for key in ("strictness", "language") if record.get(key)]
    return ", ".join(words)


def _count(number: int, noun: str) -> str:
    """The number and the noun.

    >>> _count(1, "event"), _count(7, "event")
    ('1 event', '7 events')
    """
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
