"""The moves of a deal and the values around them: the actions, the errors that refuse illegal
ones, the line due, what a seat may see, and dealing the pack. :mod:`voice_earl.game.engine` applies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from voice_earl.game.cards import Card, Rank

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
