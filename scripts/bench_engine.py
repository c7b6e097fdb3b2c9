#!/usr/bin/env python3
"""Engine speed: 4-player deals between ``most`` bots, against the fastest plain loop playing the same deals.

The engine side drives :class:`voice_earl.game.engine.Deal` directly, the way ``simulate`` does
(legal actions, the seat's view when the strategy reads it, apply), with logging off: the deal
records no events. The baseline plays the same rules with the same policy (lead the rank held most,
forced plays take the first matching card) over count arrays: no objects, no events, no card lists.
Both shuffle with the same seeds, so they play the very same deals; the script checks that both took
the same number of actions and reports the engine's speed relative to it, paired per repeat.

Usage: .venv/bin/python scripts/bench_engine.py [--deals N] [--repeats R] [--players P]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

from voice_earl.game.bots import MostStrategy
from voice_earl.game.cards import full_deck
from voice_earl.game.engine import Deal
from voice_earl.game.moves import deal_hands
from voice_earl.game.rules import HOYLE

GOAL = 0.3  # the engine should reach at least this fraction of the baseline's speed


def engine_deals(deals: int, players: int, seed: int) -> int:
    """Play ``deals`` deals through the engine; return the number of actions applied."""
    rng = random.Random(seed)
    bot = MostStrategy()
    deck = list(full_deck())
    actions = 0
    for number in range(deals):
        rng.shuffle(deck)
        dealer = number % players
        deal = Deal.from_hands(HOYLE, deal_hands(deck, players, dealer), dealer=dealer, record=False)
        while deal.winner is None:
            legal = deal.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            else:
                action = bot.choose(deal.view(deal.turn) if bot.uses_view else None, legal, rng)
            deal.apply(action)
            actions += 1
    return actions


def baseline_deals(deals: int, players: int, seed: int) -> int:
    """The same deals and policy in the fastest plain loop found: count arrays, no card objects.

    Cards are ints (rank * 4 + suit, as in ``full_deck``), dealt as the engine deals them. Every card
    leaves a hand as the first of its rank there (forced plays take the first matching card, a lead
    the first card of its rank), so the tie-break of ``most`` (the first card of the best rank) is the
    position in the dealt hand of the rank's next card: ``positions[rank][held - count]``.
    """
    rng = random.Random(seed)
    deck = list(range(52))
    following = [(seat + 1) % players for seat in range(players)]
    ranks = range(13)
    actions = 0
    for number in range(deals):
        rng.shuffle(deck)
        dealer = number % players
        counts: list[list[int]] = [[]] * players
        positions: list[list[list[int]]] = [[]] * players
        sizes = [0] * players
        for k in range(players):
            seat = (dealer + 1 + k) % players
            hand = deck[k::players]
            count = [0] * 13
            where: list[list[int]] = [[] for _ in ranks]
            for position, card in enumerate(hand):
                count[card >> 2] += 1
                where[card >> 2].append(position)
            counts[seat], positions[seat], sizes[seat] = count, where, len(hand)
        out = [0] * 13
        turn = following[dealer]
        rank = -1
        while True:
            count = counts[turn]
            if rank < 0:  # lead the rank held most; on a tie, the one whose next card comes first
                where = positions[turn]
                best_count, best_position = 0, 52
                for r in ranks:
                    held = count[r]
                    if held and held >= best_count:
                        position = where[r][len(where[r]) - held]
                        if held > best_count or position < best_position:
                            rank, best_count, best_position = r, held, position
            elif not count[rank]:
                turn = following[turn]  # a pass
                actions += 1
                continue
            count[rank] -= 1
            out[rank] += 1
            actions += 1
            sizes[turn] -= 1
            if not sizes[turn]:
                break
            if out[rank] == 4:
                rank = -1  # the Earl leads again
            else:
                turn = following[turn]
    return actions


def timings(deals: int, players: int, repeats: int) -> dict[str, tuple[list[float], int]]:
    """CPU seconds per repeat and actions per repeat, for the engine and the baseline.

    The two alternate within each repeat so that both see the same machine load, and each repeat
    gives one paired ratio; CPU time (not wall time) keeps other processes out of the figures.
    """
    runs: dict[str, Callable[[int, int, int], int]] = {"engine": engine_deals, "baseline": baseline_deals}
    results: dict[str, tuple[list[float], int]] = {name: ([], 0) for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.process_time()
            actions = run(deals, players, 2026)
            results[name][0].append(time.process_time() - start)
            results[name] = (results[name][0], actions)
    return results


def row(name: str, seconds: list[float], deals: int, actions: int) -> str:
    rates = sorted(deals / s for s in seconds)
    q1, median, q3 = statistics.quantiles(rates, n=4) if len(rates) > 1 else (rates[0],) * 3
    return f"{name:<10}{median:>12,.0f}{rates[0]:>12,.0f}{rates[-1]:>12,.0f}{q3 - q1:>10,.0f}{actions / deals:>14.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000, help="deals per repeat (default 2000)")
    parser.add_argument("--repeats", type=int, default=7, help="repeats (default 7)")
    parser.add_argument("--players", type=int, default=4, help="players (default 4)")
    args = parser.parse_args()
    HOYLE.check_players(args.players)
    results = timings(args.deals, args.players, args.repeats)
    engine_seconds, engine_actions = results["engine"]
    base_seconds, base_actions = results["baseline"]
    if engine_actions != base_actions:
        print(
            f"error: the engine took {engine_actions} actions and the baseline {base_actions}: "
            "they did not play the same deals",
            file=sys.stderr,
        )
        return 1
    print(
        f"{args.players}-player deals, `most` bots, {args.repeats} repeats of {args.deals} deals (CPU time), "
        f"{engine_actions:,} actions per repeat on both sides"
    )
    print(f"{'':<10}{'deals/s':>12}{'min':>12}{'max':>12}{'IQR':>10}{'actions/deal':>14}")
    print(row("engine", engine_seconds, args.deals, engine_actions))
    print(row("baseline", base_seconds, args.deals, base_actions))
    ratios = sorted(base / engine for base, engine in zip(base_seconds, engine_seconds, strict=True))
    ratio = statistics.median(ratios)
    verdict = "meets" if ratio >= GOAL else "misses"
    print(
        f"engine/baseline speed, paired per repeat: median {ratio:.2f}x, range {ratios[0]:.2f}-{ratios[-1]:.2f}x "
        f"({verdict} the {GOAL}x goal)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
