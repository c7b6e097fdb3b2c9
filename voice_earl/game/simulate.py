"""Bot games: play a series between strategies and summarise it.

>>> result = simulate(SimulationSettings(players=4, deals=2, seed=1))
>>> result.deals_played, sum(s.wins for s in result.seats)
(2, 2)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from voice_earl.game.bots import Strategy, strategy_by_name
from voice_earl.game.events import Event, SeriesEnded, Settled, Won
from voice_earl.game.moves import Lead, Play
from voice_earl.game.rules import HOYLE, RulesProfile
from voice_earl.game.series import Series

NAMES = ("Ann", "Ben", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu", "Max")


@dataclass(frozen=True)
class SimulationSettings:
    players: int
    deals: int
    seed: int
    profile: RulesProfile = HOYLE
    strategies: tuple[str, ...] = ("most",)  # cycled over the seats
    chant_errors: float = 0.0  # chance that a bot bungles a formula

    def strategy_of(self, seat: int) -> str:
        return self.strategies[seat % len(self.strategies)]


@dataclass
class SeatResult:
    name: str
    strategy: str
    wins: int = 0
    deals: int = 0
    payments: int = 0
    total: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.deals if self.deals else 0.0

    @property
    def mean_settlement(self) -> float:
        return self.payments / self.deals if self.deals else 0.0


@dataclass
class SimulationResult:
    seats: list[SeatResult]
    deals_played: int = 0
    places: tuple[int, ...] = ()
    events: int = 0
    by_strategy: dict[str, SeatResult] = field(default_factory=dict)


def simulate(settings: SimulationSettings, on_event: Callable[[Event], None] | None = None) -> SimulationResult:
    """Play one series of ``settings.deals`` deals between bots; report each event to ``on_event``."""
    settings.profile.check_chant_errors(settings.chant_errors)
    names = NAMES[: settings.players]
    series = Series(settings.profile, names, rng=random.Random(settings.seed), deals=settings.deals)
    bot_rng = random.Random(f"bots:{settings.seed}")
    bots: list[Strategy] = [strategy_by_name(settings.strategy_of(s)) for s in range(settings.players)]
    result = SimulationResult([SeatResult(n, settings.strategy_of(s)) for s, n in enumerate(names)])
    emit = on_event or (lambda event: None)
    while not series.over:
        deal = series.start_deal()
        emit(deal.started_event())
        for seat in deal.seated:
            result.seats[seat].deals += 1
        while not deal.over:
            legal = deal.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            else:
                bot = bots[deal.turn]
                action = bot.choose(deal.view(deal.turn) if bot.uses_view else None, legal, bot_rng)
            if settings.chant_errors and isinstance(action, Lead | Play) and bot_rng.random() < settings.chant_errors:
                action = _bungled(action)
            for event in series.apply(action):
                result.events += 1
                _count(result, event)
                emit(event)
    result.deals_played = series.deals_played
    result.places = series.places
    for seat, total in enumerate(series.totals):
        result.seats[seat].total = total
    result.by_strategy = _by_strategy(result.seats)
    return result


def _bungled(action: Lead | Play) -> Lead | Play:
    if isinstance(action, Lead):
        return Lead(action.player, action.rank, action.card, chant_ok=False)
    return Play(action.player, action.card, chant_ok=False)


def _count(result: SimulationResult, event: Event) -> None:
    if isinstance(event, Won):
        result.seats[event.player].wins += 1
    elif isinstance(event, Settled):
        for seat, payment in enumerate(event.payments):
            result.seats[seat].payments += payment
    elif isinstance(event, SeriesEnded):
        result.places = event.places


def _by_strategy(seats: list[SeatResult]) -> dict[str, SeatResult]:
    merged: dict[str, SeatResult] = {}
    for seat in seats:
        entry = merged.setdefault(seat.strategy, SeatResult(seat.strategy, seat.strategy))
        entry.wins += seat.wins
        entry.deals += seat.deals
        entry.payments += seat.payments
        entry.total += seat.total
    return merged
