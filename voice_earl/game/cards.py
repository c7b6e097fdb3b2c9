"""Ranks, suits and cards: small immutable values.

>>> Card.parse("10H")
Card(rank=Rank.TEN, suit=Suit.HEARTS)
>>> str(Card.parse("qs"))
'QS'
>>> Rank.parse("queens").word
'Queen'
>>> len(full_deck())
52
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

_WORDS = ("Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen", "King")


class Rank(enum.Enum):
    """A card's rank. Ranks have no order in this game; the enum order is only for display."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    # Members are singletons compared by identity, so identity's hash (in C) is the right one and much
    # cheaper than Enum's (in Python), which the engine and bots would pay on every card.
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"Rank.{self.name}"

    @property
    def index(self) -> int:
        return RANK_INDEX[self]

    @property
    def word(self) -> str:
        """The rank as the formulas say it: ``Ace``, ``Seven``, ``Queen``."""
        return _WORDS[self.index]

    @property
    def plural(self) -> str:
        """``Aces``, ``Sixes``, ``Queens``."""
        return self.word + ("es" if self.word.endswith("x") else "s")

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse ``Q``, ``queen``, ``Queens``, ``10``, ``ten``, ``1`` (ace). Raises ``ValueError``."""
        key = text.strip().lower()
        rank = _RANK_ALIASES.get(key)
        if rank is None:
            raise ValueError(f"unknown rank {text!r}: use A 2 3 4 5 6 7 8 9 10 J Q K or a rank's name")
        return rank


class Suit(enum.Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    def __repr__(self) -> str:
        return f"Suit.{self.name}"

    @property
    def symbol(self) -> str:
        return {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[self.value]


RANKS: tuple[Rank, ...] = tuple(Rank)
SUITS: tuple[Suit, ...] = tuple(Suit)
RANK_INDEX: dict[Rank, int] = {rank: i for i, rank in enumerate(RANKS)}
_RANK_ALIASES: dict[str, Rank] = {}
for _rank in RANKS:
    for _alias in (_rank.value, _rank.word, _rank.plural, _rank.name):
        _RANK_ALIASES[_alias.lower()] = _rank
_RANK_ALIASES["1"] = Rank.ACE
_RANK_ALIASES["t"] = Rank.TEN


@dataclass(frozen=True, slots=True)
class Card:
    rank: Rank
    suit: Suit

    def __str__(self) -> str:
        return self.rank.value + self.suit.value

    @property
    def pretty(self) -> str:
        """``Q♠``: for screens."""
        return self.rank.value + self.suit.symbol

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse the game log's ASCII form (``QS``, ``10H``, ``7D``). Raises ``ValueError``."""
        cleaned = text.strip().upper()
        if len(cleaned) < 2:
            raise ValueError(f"not a card: {text!r}")
        try:
            return card_of(Rank.parse(cleaned[:-1]), Suit(cleaned[-1]))
        except ValueError:
            raise ValueError(f"not a card: {text!r} (expected e.g. QS, 10H, 7D)") from None


_CARDS = {(rank, suit): Card(rank, suit) for rank in RANKS for suit in SUITS}


def card_of(rank: Rank, suit: Suit) -> Card:
    """The shared instance of a card (cards are interned so that comparisons stay cheap)."""
    return _CARDS[(rank, suit)]


def full_deck() -> tuple[Card, ...]:
    """The 52 cards, rank by rank, in a fixed order (shuffle a copy)."""
    return tuple(_CARDS[(rank, suit)] for rank in RANKS for suit in SUITS)
