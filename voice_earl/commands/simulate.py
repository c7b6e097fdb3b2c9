"""`voice-earl simulate`: bot games, as a game log or a readable summary."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from voice_earl.commands.arguments import MAX_SIMULATED_DEALS, SEED, probability, whole_number
from voice_earl.commands.table_options import check_seats
from voice_earl.game.bots import STRATEGIES
from voice_earl.game.events import DealStarted, Event, FullCircle, Led, Passed, Played, QuartetCompleted, Settled, Won
from voice_earl.game.gamelog import to_line, to_record
from voice_earl.game.rules import PROFILES, profile_by_name
from voice_earl.game.simulate import NAMES, SimulationResult, SimulationSettings, simulate


def _strategies(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(","))
    unknown = [name for name in names if name not in STRATEGIES]
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r}: give strategies separated by commas, such as most,fewest")
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown strategy {', '.join(unknown) or text!r}: use a comma list of {', '.join(STRATEGIES)}"
        )
    return names


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", type=whole_number(1, 100), default=4, help="number of bots (hoyle 3-6, parlour 2-13)"
    )
    parser.add_argument(
        "--deals",
        type=whole_number(1, MAX_SIMULATED_DEALS),
        default=None,
        help="deals in the series (default: the profile's)",
    )
    parser.add_argument("--seed", type=SEED, default=1, help="the same seed gives the same game")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="hoyle")
    parser.add_argument(
        "--chant-errors",
        type=probability,
        default=0.0,
        metavar="P",
        help="chance that a bot bungles a formula (exercises the parlour forfeit)",
    )
    parser.add_argument(
        "--strategies",
        type=_strategies,
        default=("most",),
        metavar="S[,S...]",
        help=f"strategies cycled over the seats: {', '.join(STRATEGIES)}",
    )
    parser.add_argument("--jsonl", action="store_true", help="print the game log, one JSON object per line")
    parser.add_argument("--moves", action="store_true", help="show every move in the readable output")


def run(args: argparse.Namespace) -> int:
    profile = profile_by_name(args.profile)
    check_seats(profile, args.players)
    settings = SimulationSettings(
        players=args.players,
        deals=args.deals or profile.series_deals or 1,
        seed=args.seed,
        profile=profile,
        strategies=args.strategies,
        chant_errors=args.chant_errors,
    )
    out = sys.stdout
    if args.jsonl:
        result = simulate(settings, lambda event: print(to_line(to_record(event)), file=out))
    else:
        if profile.is_crowded(args.players):
            print(f"Note: {args.players} players makes a crowded table.", file=out)
        printer = ReadableLog(list(NAMES[: args.players]), out, moves=args.moves)
        result = simulate(settings, printer.show)
        print_summary(result, out)
    return 0


class ReadableLog:
    """Events as short lines a person can follow."""

    def __init__(self, names: list[str], out: TextIO, *, moves: bool) -> None:
        self.names = names
        self.out = out
        self.moves = moves

    def show(self, event: Event) -> None:
        line = self.describe(event)
        if line:
            print(line, file=self.out)

    def describe(self, event: Event) -> str | None:
        n = self.names
        if isinstance(event, DealStarted):
            sizes = ", ".join(f"{n[s]} {event.hand_sizes[s]}" for s in event.seated)
            eldest = next(s for k in range(1, len(n) + 1) if (s := (event.dealer + k) % len(n)) in event.seated)
            return f"\nDeal {event.deal}: {n[event.dealer]} deals ({sizes}); {n[eldest]} leads"
        if isinstance(event, Won):
            left = ", ".join(f"{n[s]} {c}" for s, c in enumerate(event.cards_left) if s != event.player and c)
            return f"  {n[event.player]} plays the last card and wins. Cards left: {left or 'none'}"
        if isinstance(event, Settled):
            totals = ", ".join(f"{name} {total:+d}" for name, total in zip(n, event.totals, strict=True))
            return f"  Totals: {totals}"
        if isinstance(event, FullCircle):
            return f"  A full circle of passes on {event.rank.plural.lower()}"
        if not self.moves:
            return None
        if isinstance(event, Led):
            return f'  {n[event.player]} leads {event.card}: "There\'s as good as {event.rank.word} can be"'
        if isinstance(event, Played):
            return f"  {n[event.player]} plays {event.card} (card {event.position})"
        if isinstance(event, Passed):
            return f"  {n[event.player]} passes"
        if isinstance(event, QuartetCompleted):
            return f"  And there's the Earl of Coventry! {n[event.player]} leads"
        return None


def print_summary(result: SimulationResult, out: TextIO) -> None:
    print(f"\n{result.deals_played} deals, {result.events} events", file=out)
    header = f"{'seat':<5}{'player':<8}{'strategy':<10}{'wins':>6}{'win rate':>10}"
    header += f"{'mean settle':>13}{'total':>8}{'place':>7}"
    print(header, file=out)
    for seat, entry in enumerate(result.seats):
        place = result.places[seat] if result.places else ""
        print(
            f"{seat:<5}{entry.name:<8}{entry.strategy:<10}{entry.wins:>6}{entry.win_rate:>10.1%}"
            f"{entry.mean_settlement:>13.2f}{entry.total:>8}{place:>7}",
            file=out,
        )
    if len(result.by_strategy) > 1:
        print(f"\n{'strategy':<10}{'deals':>7}{'wins':>6}{'win rate':>10}{'mean settle':>13}", file=out)
        for name, entry in result.by_strategy.items():
            print(
                f"{name:<10}{entry.deals:>7}{entry.wins:>6}{entry.win_rate:>10.1%}{entry.mean_settlement:>13.2f}",
                file=out,
            )
