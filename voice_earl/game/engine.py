"""The rules engine for one deal: pure, no I/O, no clocks, no printing.

A :class:`Deal` is the state of one deal (OpenSpiel's ``State``): ask it for
:meth:`Deal.legal_actions`, and :meth:`Deal.apply` an action, which raises a specific
:class:`IllegalAction` (a ``ValueError``) for each kind of illegal move and returns the
events it caused. Randomness is never drawn here: the deck comes in already shuffled.

The worked example of ``hoyle-profile.en.txt``: A leads the queen of spades, B and C
follow with queens, and A's fourth queen completes the quartet, so A leads again.

>>> from voice_earl.game.cards import Card
>>> from voice_earl.game.rules import HOYLE
>>> c = Card.parse
>>> hands = [[c("QS"), c("QC"), c("7D")], [c("QH"), c("2S")], [c("QD"), c("3S")]]
>>> deal = Deal.from_hands(HOYLE, hands, dealer=2)
>>> deal.turn
0
>>> _ = deal.apply(Lead(0, Rank.QUEEN, c("QS")))
>>> _ = deal.apply(Play(1, c("QH")))
>>> _ = deal.apply(Play(2, c("QD")))
>>> deal.formula_due()
FormulaDue(player=0, position=4, rank=Rank.QUEEN)
>>> [type(e).__name__ for e in deal.apply(Play(0, c("QC")))]
['Played', 'QuartetCompleted']
>>> deal.formula_due()
FormulaDue(player=0, position=1, rank=None)
>>> deal.apply(Play(0, c("7D")))
Traceback (most recent call last):
...
voice_earl.game.engine.NoRankOpen: no rank is open: player 0 must lead
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from voice_earl.game.cards import RANKS, Card, Rank, full_deck
from voice_earl.game.events import (
    DealStarted,
    Event,
    Forfeited,
    FullCircle,
    Led,
    Misplayed,
    Passed,
    Penalised,
    Played,
    QuartetCompleted,
    Won,
)
from voice_earl.game.rules import DeckMode, RulesProfile

# Rank index by identity: enum members are singletons, and hashing an enum member runs
# Python code, which the hot paths below would pay on every card.
_RANK_INDEX: dict[int, int] = {id(rank): i for i, rank in enumerate(RANKS)}

# ---------------------------------------------------------------------------- errors


class IllegalAction(ValueError):
    """An action the rules do not allow now. Each kind has its own subclass."""


class GameOver(IllegalAction):
    """The deal already has a winner."""


class OutOfTurn(IllegalAction):
    """It is another player's turn."""


class WrongRank(IllegalAction):
    """A card of another rank than the one open."""


class PassWhileHolding(IllegalAction):
    """A pass by a player who holds the rank open (virtual deck: the engine knows)."""


class LeadDuringQuartet(IllegalAction):
    """A lead while a quartet is still open."""


class NoRankOpen(IllegalAction):
    """A play or pass when no rank is open: the player must lead."""


class CardNotHeld(IllegalAction):
    """A card the player does not hold (virtual deck), or a play from an empty hand."""


class RankFinished(IllegalAction):
    """A lead of a rank whose four cards are all out already (physical deck)."""


class NotSeated(IllegalAction):
    """A player who does not take part in this deal."""


class NoMisplayOnVirtualDeck(IllegalAction):
    """A reported misplay on a virtual deck, where the engine never lets one happen."""


# ---------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Lead:
    """Open a new rank. With a physical deck only the rank is known (``card`` is None).

    ``chant_ok`` is False when the formula was bungled: under a profile with the chant
    forfeit the card goes back to the player's hand.
    """

    player: int
    rank: Rank
    card: Card | None = None
    chant_ok: bool = True


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card of the open rank (``card`` is None with a physical deck)."""

    player: int
    card: Card | None = None
    chant_ok: bool = True


@dataclass(frozen=True, slots=True)
class Pass:
    player: int


@dataclass(frozen=True, slots=True)
class Misplay:
    """Physical deck: an illegal play the referee saw and the player took back."""

    player: int


Action = Lead | Play | Pass | Misplay


@dataclass(frozen=True, slots=True)
class FormulaDue:
    """Which line the next card must be played with: position 1-4, and the rank (None at a lead)."""

    player: int
    position: int
    rank: Rank | None


@dataclass(frozen=True, slots=True)
class SeatView:
    """What the player in ``seat`` may know (the observer view)."""

    seat: int
    hand: tuple[Card, ...] | None  # None with a physical deck
    visible_hands: tuple[tuple[Card, ...] | None, ...]  # others' hands only with open hands
    hand_sizes: tuple[int, ...]
    turn: int | None
    due: FormulaDue | None
    quartet: tuple[Rank, int] | None  # the open rank and how many of its cards are on the table
    finished_ranks: tuple[Rank, ...]
    winner: int | None


def hand_sizes_for(players: int, dealer: int, seated: Sequence[int] | None = None) -> tuple[int, ...]:
    """Cards per seat when the whole pack is dealt singly from the dealer's left.

    >>> hand_sizes_for(3, dealer=2)
    (18, 17, 17)
    """
    order = _deal_order(players, dealer, tuple(seated) if seated is not None else tuple(range(players)))
    sizes = [0] * players
    for i in range(52):
        sizes[order[i % len(order)]] += 1
    return tuple(sizes)


def _deal_order(players: int, dealer: int, seated: tuple[int, ...]) -> tuple[int, ...]:
    """Seated players clockwise, starting at the dealer's left."""
    return tuple(s for k in range(1, players + 1) if (s := (dealer + k) % players) in seated)


def deal_hands(
    deck: Sequence[Card], players: int, dealer: int, seated: Sequence[int] | None = None
) -> list[list[Card]]:
    """Deal a shuffled deck one card at a time, clockwise from the dealer's left."""
    order = _deal_order(players, dealer, tuple(seated) if seated is not None else tuple(range(players)))
    hands: list[list[Card]] = [[] for _ in range(players)]
    for k, seat in enumerate(order):
        hands[seat] = list(deck[k :: len(order)])  # card i goes to order[i % len(order)]
    return hands


# ---------------------------------------------------------------------------- the deal


class Deal:
    """One deal: hands, turn, the open quartet and the finished ranks.

    Build it with :meth:`from_hands` (virtual deck) or :meth:`physical` (only sizes known).
    Its attributes are for reading: a deal changes only through :meth:`apply`.
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
            rank_plays[_RANK_INDEX[id(card.rank)]].append(play)

    # -- construction

    @classmethod
    def from_hands(
        cls,
        profile: RulesProfile,
        hands: Sequence[Sequence[Card]],
        *,
        dealer: int,
        seated: Sequence[int] | None = None,
        number: int = 1,
        players: Sequence[str] | None = None,
        record: bool = True,
    ) -> Deal:
        """A virtual-deck deal from known hands."""
        return cls(
            profile,
            dealer=dealer,
            hands=hands,
            hand_sizes=[len(h) for h in hands],
            seated=seated,
            number=number,
            players=players,
            record=record,
        )

    @classmethod
    def physical(
        cls,
        profile: RulesProfile,
        players: int | Sequence[str],
        *,
        dealer: int,
        seated: Sequence[int] | None = None,
        number: int = 1,
    ) -> Deal:
        """A physical-deck deal: the laptop knows only how many cards each seat was dealt."""
        names = [f"Player {i + 1}" for i in range(players)] if isinstance(players, int) else list(players)
        sizes = hand_sizes_for(len(names), dealer, seated)
        return cls(profile, dealer=dealer, hands=None, hand_sizes=sizes, seated=seated, number=number, players=names)

    def started_event(self) -> DealStarted:
        return DealStarted(
            deal=self.number,
            dealer=self.dealer,
            players=self.players,
            seated=self.seated,
            hands=self.initial_hands,
            hand_sizes=self.initial_sizes,
        )

    def replayed(self, actions: Sequence[Action]) -> Deal:
        """A fresh copy of this deal's start with ``actions`` applied (undo and replay use it)."""
        fresh = Deal(
            self.profile,
            dealer=self.dealer,
            hands=self.initial_hands,
            hand_sizes=self.initial_sizes,
            seated=self.seated,
            number=self.number,
            players=self.players,
        )
        for action in actions:
            fresh.apply(action)
        return fresh

    def undo(self) -> Deal:
        """The deal as it was before its last action (a deal with no action comes back unchanged)."""
        return self.replayed(self.history[:-1])

    # -- queries

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def player_count(self) -> int:
        return len(self.sizes)

    def holds(self, seat: int, rank: Rank) -> bool:
        """Whether ``seat`` holds a card of ``rank`` (virtual deck only)."""
        return bool(self._rank_plays[seat][_RANK_INDEX[id(rank)]])

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
        return 4 if self.out[_RANK_INDEX[id(rank)]] == 3 else self.in_quartet + 1

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

    # -- moves

    def apply(self, action: Action) -> tuple[Event, ...]:
        """Check and apply ``action``; return the events it caused.

        Raises a subclass of :class:`IllegalAction` and changes nothing when it is illegal.
        """
        if self.winner is not None:
            raise GameOver(f"deal {self.number} is over: player {self.winner} won")
        if isinstance(action, Misplay):
            return self._misplay(action)
        if action.player != self.turn:
            if action.player not in self._next:
                raise NotSeated(f"player {action.player} does not take part in this deal")
            raise OutOfTurn(f"it is player {self.turn}'s turn, not player {action.player}'s")
        if isinstance(action, Play):
            events = self._play(action)
        elif isinstance(action, Pass):
            events = self._pass(action)
        else:
            events = self._lead(action)
        self.history.append(action)
        return events

    def _misplay(self, action: Misplay) -> tuple[Event, ...]:
        if action.player not in self._next:
            raise NotSeated(f"player {action.player} does not take part in this deal")
        if self.hands is not None:
            raise NoMisplayOnVirtualDeck("a virtual deck refuses illegal plays, so there is no misplay to take back")
        self.history.append(action)
        events: list[Event] = [Misplayed(self.number, action.player)]
        if self.profile.forfeit_kitty:
            events.append(Penalised(self.number, action.player, "misplay"))
        return tuple(events)

    def _pass(self, action: Pass) -> tuple[Event, ...]:
        rank = self.rank
        if rank is None:
            raise NoRankOpen(f"no rank is open: player {action.player} must lead, not pass")
        if self.hands is not None and self._rank_plays[action.player][self._rank_index]:
            raise PassWhileHolding(f"player {action.player} holds a {rank.word} and must play it")
        self.passes += 1
        self.turn = self._next[action.player]
        if self.passes < len(self.seated):
            return self._passed[action.player]
        return (*self._passed[action.player], self._full_circle(rank))

    def _full_circle(self, rank: Rank) -> FullCircle:
        # All 52 cards are in hands, so a full circle proves someone passed while holding the rank.
        last = self.last_player if self.last_player is not None else self.turn
        self.passes = 0
        relead = self.profile.relead_stuck_rank
        if relead:
            self._close_quartet()
            self.turn = last
        return FullCircle(self.number, rank, last, relead)

    def _lead(self, action: Lead) -> tuple[Event, ...]:
        if self.rank is not None:
            raise LeadDuringQuartet(
                f"the {self.rank.plural.lower()} are still open: play a {self.rank.word} or pass"
            )
        rank = action.rank
        index = _RANK_INDEX[id(rank)]
        if self.out[index] == 4:
            raise RankFinished(f"all four {rank.plural.lower()} are out already: lead another rank")
        seat, card = action.player, action.card
        self._take(seat, rank, index, card)
        self.rank = rank
        self._rank_index = index
        self.in_quartet = 0
        led = Led(self.number, seat, rank, card, 1, action.chant_ok) if self.record else None
        return self._after_card(seat, rank, index, card, action.chant_ok, led)

    def _play(self, action: Play) -> tuple[Event, ...]:
        rank = self.rank
        seat, card = action.player, action.card
        if rank is None:
            raise NoRankOpen(f"no rank is open: player {seat} must lead")
        if card is not None and card.rank is not rank:
            raise WrongRank(f"{card} is not a {rank.word}: the {rank.plural.lower()} are open")
        index = self._rank_index
        position = 4 if self.out[index] == 3 else self.in_quartet + 1  # as _position_of_next
        self._take(seat, rank, index, card)
        played = Played(self.number, seat, rank, card, position, action.chant_ok) if self.record else None
        return self._after_card(seat, rank, index, card, action.chant_ok, played)

    def _take(self, seat: int, rank: Rank, index: int, card: Card | None) -> None:
        """Move a card from a hand to the table, or refuse with CardNotHeld."""
        if self.hands is not None:
            if card is None:
                raise CardNotHeld("a virtual deck needs the card, not only its rank")
            plays = self._rank_plays[seat][index]
            if card.rank is not rank or not plays:
                raise CardNotHeld(f"player {seat} does not hold {card}")
            hand, ids = self.hands[seat], self._ids[seat]
            try:
                position = ids.index(id(card))  # by identity: the card legal_actions() offered is the one held
            except ValueError:
                position = _position_of_equal(hand, card, seat)
            held = hand.pop(position)
            del ids[position]
            del self._hand_leads[seat][position]
            for i, play in enumerate(plays):
                if play.card is held:
                    del plays[i]
                    break
        elif self.sizes[seat] == 0:
            raise CardNotHeld(f"player {seat} has no cards left")
        self.sizes[seat] -= 1
        self.out[index] += 1

    def _give_back(self, seat: int, rank: Rank, card: Card | None) -> None:
        if self.hands is not None and card is not None:
            self.hands[seat].append(card)
            self._track(seat, (card,))
        self.sizes[seat] += 1
        self.out[_RANK_INDEX[id(rank)]] -= 1

    def _after_card(
        self, seat: int, rank: Rank, index: int, card: Card | None, chant_ok: bool, event: Led | Played | None
    ) -> tuple[Event, ...]:
        record = event is not None
        events: tuple[Event, ...] = (event,) if event is not None else ()
        if not chant_ok:
            if self.profile.chant_forfeit_applies:
                return self._forfeit(seat, rank, card, event)
            if self.profile.forfeit_kitty and not self.profile.silent and record:
                events += (Penalised(self.number, seat, "chant"),)
        self.in_quartet += 1
        self.last_player = seat
        self.passes = 0
        if self.out[index] == 4:
            if record:
                events += (QuartetCompleted(self.number, seat, rank),)
            self._finished_mask[index] = True
            self._finished = tuple(itertools.compress(RANKS, self._finished_mask))
            self._close_quartet()
            self.turn = seat  # the Earl leads the next rank
        else:
            self.turn = self._next[seat]
        if self.sizes[seat] == 0:
            self.winner = seat
            if record:
                events += (Won(self.number, seat, tuple(self.sizes)),)
        return events

    def _forfeit(self, seat: int, rank: Rank, card: Card | None, event: Led | Played | None) -> tuple[Event, ...]:
        # Parlour: the card goes back, the quartet's position does not advance, the turn moves on.
        self._give_back(seat, rank, card)
        if self.rank is rank and self.in_quartet == 0:  # a forfeited lead opens nothing
            self._close_quartet()
        self.passes = 0
        self.turn = self._next[seat]
        if event is None:
            return ()
        events: list[Event] = [event, Forfeited(self.number, seat, rank, card)]
        if self.profile.forfeit_kitty:
            events.append(Penalised(self.number, seat, "chant"))
        return tuple(events)

    def _close_quartet(self) -> None:
        self.rank = None
        self.in_quartet = 0
        self.last_player = None

    def _next_seat(self, seat: int) -> int:
        count = len(self.sizes)
        for k in range(1, count + 1):
            candidate = (seat + k) % count
            if candidate in self.seated:
                return candidate
        raise ValueError("no seated players")


def _position_of_equal(hand: list[Card], card: Card, seat: int) -> int:
    """Where a card equal to ``card`` lies in ``hand`` (an equal card, not the same object)."""
    try:
        return hand.index(card)
    except ValueError:
        raise CardNotHeld(f"player {seat} does not hold {card}") from None


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
