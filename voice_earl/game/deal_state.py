"""The state of one deal and what can be asked of it, without changing it.

:class:`voice_earl.game.engine.Deal` builds on :class:`DealState` and is the only way a deal changes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from voice_earl.game.cards import RANKS, Card, Rank, full_deck
from voice_earl.game.events import (
    Event,
    Passed,
)
from voice_earl.game.moves import Action, FormulaDue, Lead, Pass, Play, SeatView
from voice_earl.game.rules import DeckMode, RulesProfile

# Rank index by identity: enum members are singletons, and hashing an enum member runs
# Python code, which the hot paths below would pay on every card.
RANK_INDEX: dict[int, int] = {id(rank): i for i, rank in enumerate(RANKS)}


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
        self.players = tuple(players) if players is not None else tuple(f"Player {i + 1}" for i in range(count))
        self.seated = tuple(seated) if seated is not None else tuple(range(count))
        self.deck_mode = DeckMode.VIRTUAL if hands is not None else DeckMode.PHYSICAL
        self.initial_hands = tuple(tuple(h) for h in hands) if hands is not None else None
        self.hands: list[list[Card]] | None = [list(h) for h in hands] if hands is not None else None
        self.initial_sizes = tuple(hand_sizes)
        self.sizes = list(hand_sizes)
        # Virtual deck: per seat, lists kept in step with the hand, so that a move finds its card
        # at once and the legal moves come ready-made (the hot paths of bot games and replays).
        self._ids: list[list[int]] = [[] for _ in range(count)]  # id() of each card in the hand
        self._hand_leads: list[list[Lead]] = [[] for _ in range(count)]  # the Lead of each card in the hand
        # per rank index, the Play of each card of that rank in the hand, in hand order
        self._rank_plays: list[list[list[Play]]] = [[[] for _ in RANKS] for _ in range(count)]
        if self.hands is not None:
            for seat, hand in enumerate(self.hands):
                self._track(seat, hand)
        self.out = [0] * 13  # cards of each rank played and not taken back
        self._finished: tuple[Rank, ...] = ()
        self._finished_mask = [False] * 13  # by rank index
        self.rank: Rank | None = None  # the open rank
        self._rank_index = 0  # the open rank's index, when a rank is open
        self.in_quartet = 0  # cards of the open rank played since its lead
        self.last_player: int | None = None  # last to play a card of the open rank
        self.passes = 0  # passes in a row since the last card
        self.winner: int | None = None
        self.turn = self._next_seat(dealer)  # eldest hand leads
        self.history: list[Action] = []
        ring = sorted(set(self.seated))
        self._next = {s: ring[(i + 1) % len(ring)] for i, s in enumerate(ring)}  # the next seated clockwise
        # the same event every circle; none when not recording
        self._passed: dict[int, tuple[Event, ...]] = {s: (Passed(number, s),) if record else () for s in self.seated}

    def _track(self, seat: int, cards: Sequence[Card]) -> None:
        """Add ``cards``, just put in the seat's hand, to the lists kept in step with it."""
        pack_leads, pack_plays = _pack_moves(seat)
        ids, leads, rank_plays = self._ids[seat], self._hand_leads[seat], self._rank_plays[seat]
        for card in cards:
            key = id(card)
            i = _PACK_INDEX.get(key)
            if i is None:  # not one of the shared card instances
                lead, play = Lead(seat, card.rank, card), Play(seat, card)
            else:
                lead, play = pack_leads[i], pack_plays[i]
            ids.append(key)
            leads.append(lead)
            rank_plays[RANK_INDEX[id(card.rank)]].append(play)

    # -- queries

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def player_count(self) -> int:
        return len(self.sizes)

    def holds(self, seat: int, rank: Rank) -> bool:
        """Whether ``seat`` holds a card of ``rank`` (virtual deck only)."""
        return bool(self._rank_plays[seat][RANK_INDEX[id(rank)]])

    def finished_ranks(self) -> tuple[Rank, ...]:
        return self._finished

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
        return 4 if self.out[RANK_INDEX[id(rank)]] == 3 else self.in_quartet + 1

    def legal_actions(self) -> tuple[Action, ...]:
        """Every action the player whose turn it is may take. Empty when the deal is over."""
        if self.winner is not None:
            return ()
        seat = self.turn
        rank = self.rank
        if self.hands is None:
            if rank is None:
                return tuple(Lead(seat, r) for r, out in zip(RANKS, self.out, strict=True) if out < 4)
            return _physical_moves(seat)
        if rank is None:
            return tuple(self._hand_leads[seat])
        plays = self._rank_plays[seat][self._rank_index]
        if plays:
            return tuple(plays)
        return _pass_only(seat)

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
            self._finished,
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


_PACK_INDEX: dict[int, int] = {id(card): i for i, card in enumerate(full_deck())}  # the shared instances


@functools.cache
def _pack_moves(seat: int) -> tuple[tuple[Lead, ...], tuple[Play, ...]]:
    """The seat's Lead and Play of every card of the pack, in ``full_deck()`` order."""
    pack = full_deck()
    return tuple(Lead(seat, card.rank, card) for card in pack), tuple(Play(seat, card) for card in pack)


@functools.cache
def _pass_only(seat: int) -> tuple[Pass]:
    return (Pass(seat),)


@functools.cache
def _physical_moves(seat: int) -> tuple[Play, Pass]:
    return (Play(seat), Pass(seat))


@functools.cache
def _lead_due(seat: int) -> FormulaDue:
    return FormulaDue(seat, 1, None)
