"""A series of deals: dealing, dealer rotation, settlement, totals and places.

Pure like the engine: the shuffle's randomness is an injected ``random.Random``.

>>> import random
>>> from voice_earl.game.rules import HOYLE
>>> series = Series(HOYLE, ("Ann", "Ben", "Cy"), rng=random.Random(7), deals=1)
>>> deal = series.start_deal()
>>> sorted(len(hand) for hand in deal.hands)
[17, 17, 18]
>>> competition_places([8, -3, -5, 8])
(1, 3, 4, 1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from voice_earl.errors import UsageError
from voice_earl.game.cards import Card, full_deck
from voice_earl.game.engine import Deal
from voice_earl.game.events import DealStarted, Event, Penalised, SeriesEnded, Settled, Won
from voice_earl.game.moves import Action, GameOver, deal_hands
from voice_earl.game.rules import DeckMode, MatchEnd, RulesProfile, Scoring

ELIMINATION_DEAL_CAP = 500  # an elimination match that never ends is stopped here and scored by stacks


def competition_places(totals: Sequence[int]) -> tuple[int, ...]:
    """Highest total first; equal totals share a place (1, 2, 2, 4)."""
    return tuple(1 + sum(1 for other in totals if other > mine) for mine in totals)


def settle(
    profile: RulesProfile, winner: int, cards_left: Sequence[int], stacks: Sequence[int], penalties: Sequence[int]
) -> tuple[int, ...]:
    """Payments per seat for one deal (they sum to zero).

    Notional (hoyle): 1 unit per card left, totals may go negative. Counters (parlour):
    1 counter per card, but a player pays at most what they have. Forfeit Earl penalties
    go to the kitty, which the winner collects.

    >>> from voice_earl.game.rules import HOYLE
    >>> settle(HOYLE, 0, [0, 3, 5], [0, 0, 0], [0, 0, 0])
    (8, -3, -5)
    """
    capped = profile.scoring is Scoring.COUNTERS
    payments = [0] * len(cards_left)
    for seat, left in enumerate(cards_left):
        if seat == winner:
            continue
        owed = left + penalties[seat]
        paid = min(owed, max(stacks[seat], 0)) if capped else owed
        payments[seat] = -paid
    payments[winner] = -sum(payments)
    return tuple(payments)


class Series:
    """Deals played one after another by the same table, with running totals.

    ``totals`` are notional units (hoyle), counters (parlour with counters) or round wins
    (parlour's simple victory).
    """

    def __init__(
        self,
        profile: RulesProfile,
        players: Sequence[str],
        *,
        rng: random.Random,
        deck: DeckMode = DeckMode.VIRTUAL,
        deals: int | None = None,
        first_dealer: int | None = None,
    ) -> None:
        profile.check_players(len(players))
        if profile.forfeit_kitty and profile.scoring is Scoring.VICTORY:
            raise UsageError("Forfeit Earl pays counters into a kitty: use it with counters or notional scoring")
        self.profile = profile
        self.players = tuple(players)
        self.rng = rng
        self.deck = deck
        self.planned_deals = deals if deals is not None else (profile.series_deals or 1)
        if self.planned_deals < 1:
            raise ValueError("a series needs at least one deal")
        # The lot for the first dealer is drawn even when the dealer is given, so that the
        # shuffles a seed deals do not depend on it (replay passes the logged dealer).
        lot = rng.randrange(len(players))
        self.dealer = first_dealer if first_dealer is not None else lot
        start = profile.starting_stack if profile.scoring is Scoring.COUNTERS else 0
        self.totals = [start] * len(players)
        self.deal: Deal | None = None
        self.deals_played = 0
        self.tie_break_seats: tuple[int, ...] | None = None
        self.tie_break_winner: int | None = None
        self.finished: SeriesEnded | None = None
        self._penalties = [0] * len(players)
        self._first_deal = True

    # -- queries

    @property
    def over(self) -> bool:
        return self.finished is not None

    @property
    def places(self) -> tuple[int, ...]:
        places = list(competition_places(self.totals))
        if self.tie_break_winner is not None:
            tied = self.tie_break_seats or ()
            for seat in tied:
                places[seat] = 1 if seat == self.tie_break_winner else 2
        return tuple(places)

    def seated_for_next_deal(self) -> tuple[int, ...]:
        if self.tie_break_seats is not None:
            return self.tie_break_seats
        if self.profile.scoring is Scoring.COUNTERS and self.profile.match_end is MatchEnd.ELIMINATION:
            return tuple(seat for seat, stack in enumerate(self.totals) if stack > 0)
        return tuple(range(len(self.players)))

    # -- play

    def start_deal(self, hands: Sequence[Sequence[Card]] | None = None) -> Deal:
        """Shuffle (virtual deck) or size the hands (physical deck) and begin the next deal.

        ``hands`` replays a logged deal: they are used as dealt, and the shuffle is still
        drawn so that the random state stays where an uninterrupted series would have it.
        """
        if self.over:
            raise GameOver("the series is over")
        if self.deal is not None and not self.deal.over:
            raise ValueError("the current deal is not over yet")
        seated = self.seated_for_next_deal()
        if not self._first_deal:
            self.dealer = self._next_dealer(seated)
        elif self.dealer not in seated:
            self.dealer = seated[-1]
        self._first_deal = False
        number = self.deals_played + 1
        if self.deck is DeckMode.VIRTUAL:
            deck = list(full_deck())
            self.rng.shuffle(deck)
            if hands is None:
                hands = deal_hands(deck, len(self.players), self.dealer, seated)
            self.deal = Deal.from_hands(
                self.profile, hands, dealer=self.dealer, seated=seated, number=number, players=self.players
            )
        else:
            self.deal = Deal.physical(self.profile, self.players, dealer=self.dealer, seated=seated, number=number)
        self._penalties = [0] * len(self.players)
        return self.deal

    def _next_dealer(self, seated: tuple[int, ...]) -> int:
        count = len(self.players)
        for k in range(1, count + 1):
            seat = (self.dealer + k) % count
            if seat in seated:
                return seat
        raise ValueError("no seated players")

    def apply(self, action: Action) -> tuple[Event, ...]:
        """Apply an action to the current deal, scoring the deal and the series when they end."""
        if self.deal is None or self.over:
            raise GameOver("no deal is in progress")
        events = list(self.deal.apply(action))
        for event in events:
            if isinstance(event, Penalised):
                self._penalties[event.player] += 1
        won = next((e for e in events if isinstance(e, Won)), None)
        if won is not None:
            events.extend(self._end_deal(won))
        return tuple(events)

    def _end_deal(self, won: Won) -> list[Event]:
        self.deals_played += 1
        events: list[Event] = []
        if self.tie_break_seats is not None:
            self.tie_break_winner = won.player
        elif self.profile.scoring is Scoring.VICTORY:
            # Simple victory: nobody pays; the totals count round wins.
            self.totals[won.player] += 1
            events.append(Settled(won.deal, (0,) * len(self.players), tuple(self.totals)))
        else:
            payments = settle(self.profile, won.player, won.cards_left, self.totals, self._penalties)
            self.totals = [t + p for t, p in zip(self.totals, payments, strict=True)]
            events.append(Settled(won.deal, payments, tuple(self.totals)))
        if self._series_should_end():
            events.extend(self._end_series())
        return events

    def _series_should_end(self) -> bool:
        if self.tie_break_seats is not None:
            return True
        if self.profile.scoring is Scoring.COUNTERS and self.profile.match_end is MatchEnd.ELIMINATION:
            holders = sum(1 for stack in self.totals if stack > 0)
            return holders <= 1 or self.deals_played >= ELIMINATION_DEAL_CAP
        return self.deals_played >= self.planned_deals

    def _end_series(self) -> list[Event]:
        if self.tie_break_seats is None and self.profile.tie_break_round:
            best = max(self.totals)
            tied = tuple(seat for seat, total in enumerate(self.totals) if total == best)
            if len(tied) > 1:
                self.tie_break_seats = tied  # one extra round among the tied players
                return []
        self.finished = SeriesEnded(tuple(self.totals), self.places, self.tie_break_winner)
        return [self.finished]

    def deal_started_event(self) -> DealStarted:
        if self.deal is None:
            raise ValueError("no deal yet")
        return self.deal.started_event()
