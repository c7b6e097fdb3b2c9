"""The state of one deal and what can be asked of it, without changing it.

:class:`voice_earl.game.engine.Deal` builds on :class:`DealState` and is the only way a deal changes.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

from voice_earl.game.cards import RANK_INDEX, RANKS, Card, Rank, full_deck
from voice_earl.game.events import (
    Event,
    Passed,
)
from voice_earl.game.moves import Action, FormulaDue, Lead, Pass, Play, SeatView
from voice_earl.game.rules import DeckMode, RulesProfile


class DealState:
    """One deal's hands, turn, open quartet and finished ranks, and the queries on them.

    Its attributes are for reading: a deal changes only through :meth:`voice_earl.game.engine.Deal.apply`.
    """

    def __init__(
        self,
        profile: RulesProfile,
        *,
        dealer: int,
        hands: Sequence[Sequence[Card]] | None,
        hand_sizes: Sequence[int],
        seated: Sequence[int] | None = None,
        number: int = 1,
        players: Sequence[str] | None = None,
        record: bool = True,
    ) -> None:
        count = len(hand_sizes)
        self.record = record  # False: apply() returns no events (bot games with logging off)
        self.profile = profile
        self.number = number
        self.dealer = dealer
        self.players = tuple(players) if players is not None else _default_names(count)
        self.seated = tuple(seated) if seated is not None else tuple(range(count))
        self.deck_mode = DeckMode.VIRTUAL if hands is not None else DeckMode.PHYSICAL
        self.initial_hands = tuple(tuple(h) for h in hands) if hands is not None else None
        self.virtual = hands is not None
        self.initial_sizes = tuple(hand_sizes)
        self.sizes = list(hand_sizes)
        # Virtual deck: per seat, the hand as dicts keyed by each card's id(), in hand order, so that
        # a move finds and removes its card at once and the legal moves come ready-made (the hot
        # paths of bot games and replays): the Lead of each card, and per rank index the Play of
        # each card of that rank.
        self._leads: list[dict[int, Lead]] = [{} for _ in range(count)]
        self._rank_plays: list[list[dict[int, Play]]] = [[{} for _ in RANKS] for _ in range(count)]
        if hands is not None:
            for seat, hand in enumerate(hands):
                self._track(seat, hand)
        self.out = [0] * 13  # cards of each rank played and not taken back
        self._finished_mask = [False] * 13  # by rank index
        self.rank: Rank | None = None  # the open rank
        self._rank_index = 0  # the open rank's index, when a rank is open
        self.in_quartet = 0  # cards of the open rank played since its lead
        self.last_player: int | None = None  # last to play a card of the open rank
        self.passes = 0  # passes in a row since the last card
        self.winner: int | None = None
        self.turn = self._next_seat(dealer)  # eldest hand leads
        self.history: list[Action] = []
        self._next = _clockwise(self.seated)  # the next seated seat, clockwise
        self._seated_count = len(self.seated)
        self._pass_only = _passes_only(count)
        # the same event every circle; none when not recording
        self._passed = _passed_events(number if record else None, self.seated)

    def _track(self, seat: int, cards: Sequence[Card]) -> None:
        """Add ``cards``, just put at the end of the seat's hand, to the dicts that hold it."""
        known = _seat_moves(seat)
        leads, rank_plays = self._leads[seat], self._rank_plays[seat]
        for card in cards:
            key = id(card)
            try:
                lead, play, index = known[key]
            except KeyError:  # not one of the shared card instances: moves of its own
                lead, play, index = _moves_of(seat, card)
            leads[key] = lead
            rank_plays[index][key] = play

    # -- queries

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def player_count(self) -> int:
        return len(self.sizes)

    def holds(self, seat: int, rank: Rank) -> bool:
        """Whether ``seat`` holds a card of ``rank`` (virtual deck only)."""
        return bool(self._rank_plays[seat][RANK_INDEX[rank]])

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...] | None:
        """Each seat's cards in hand order (virtual deck); None with a physical deck."""
        if not self.virtual:
            return None
        return tuple(tuple(lead.card for lead in leads.values() if lead.card is not None) for leads in self._leads)

    def finished_ranks(self) -> tuple[Rank, ...]:
        return tuple(itertools.compress(RANKS, self._finished_mask))

    def formula_due(self) -> FormulaDue | None:
        """The line the next card must be played with, or None when the deal is over."""
        if self.winner is not None:
            return None
        if self.rank is None:
            return _lead_due(self.turn)
        return FormulaDue(self.turn, self._position_of_next(self.rank), self.rank)

    def _position_of_next(self, rank: Rank) -> int:
        # The card that brings a rank's count to four is always the Earl, even in a quartet
        # re-led after a full circle of passes (parlour), which may have fewer than four cards.
        return 4 if self.out[RANK_INDEX[rank]] == 3 else self.in_quartet + 1

    def legal_actions(self) -> tuple[Action, ...]:
        """Every action the player whose turn it is may take. Empty when the deal is over."""
        if self.winner is not None:
            return ()
        seat = self.turn
        rank = self.rank
        if not self.virtual:
            if rank is None:
                return tuple(Lead(seat, r) for r, out in zip(RANKS, self.out, strict=True) if out < 4)
            return _physical_moves(seat)
        if rank is None:
            return tuple(self._leads[seat].values())
        plays = self._rank_plays[seat][self._rank_index]
        if plays:
            return tuple(plays.values())
        return self._pass_only[seat]

    def view(self, seat: int) -> SeatView:
        """What the player in ``seat`` may see."""
        hands = self.hands
        visible: list[tuple[Card, ...] | None] = [None] * len(self.sizes)
        own = None
        if hands is not None:
            own = tuple(hands[seat])
            if self.profile.open_hands:
                visible = [tuple(hand) for hand in hands]
            visible[seat] = own
        return SeatView(
            seat,
            own,
            tuple(visible),
            tuple(self.sizes),
            None if self.winner is not None else self.turn,
            self.formula_due(),
            (self.rank, self.in_quartet) if self.rank is not None else None,
            self.finished_ranks(),
            self.winner,
        )

    def _next_seat(self, seat: int) -> int:
        count = len(self.sizes)
        for k in range(1, count + 1):
            candidate = (seat + k) % count
            if candidate in self.seated:
                return candidate
        raise ValueError("no seated players")


# Immutable values that depend only on the seat, shared by every deal.


def _moves_of(seat: int, card: Card) -> tuple[Lead, Play, int]:
    """The seat's Lead and Play of ``card``, and its rank index."""
    return Lead(seat, card.rank, card), Play(seat, card), RANK_INDEX[card.rank]


@functools.cache
def _seat_moves(seat: int) -> dict[int, tuple[Lead, Play, int]]:
    """``_moves_of`` every card of the shared pack, by its id()."""
    return {id(card): _moves_of(seat, card) for card in full_deck()}


@functools.cache
def _default_names(count: int) -> tuple[str, ...]:
    return tuple(f"Player {i + 1}" for i in range(count))


@functools.cache
def _clockwise(seated: tuple[int, ...]) -> dict[int, int]:
    ring = sorted(set(seated))
    return {s: ring[(i + 1) % len(ring)] for i, s in enumerate(ring)}


@functools.lru_cache(maxsize=64)
def _passed_events(number: int | None, seated: tuple[int, ...]) -> dict[int, tuple[Event, ...]]:
    """Each seat's events for a pass: the same every circle; none when not recording (``number`` None)."""
    return {s: (Passed(number, s),) if number is not None else () for s in seated}


@functools.cache
def _passes_only(count: int) -> tuple[tuple[Pass], ...]:
    """For each seat, its only legal action when it holds none of the open rank."""
    return tuple((Pass(seat),) for seat in range(count))


@functools.cache
def _physical_moves(seat: int) -> tuple[Play, Pass]:
    return (Play(seat), Pass(seat))


@functools.cache
def _lead_due(seat: int) -> FormulaDue:
    return FormulaDue(seat, 1, None)
