"""Bot strategies. A strategy sees only its seat's view and the legal actions.

>>> from voice_earl.game.cards import Card
>>> from voice_earl.game.engine import Deal
>>> from voice_earl.game.rules import HOYLE
>>> hands = [[Card.parse(c) for c in ("7D", "QS", "QC", "QH")], [Card.parse("2S")], [Card.parse("3S")]]
>>> deal = Deal.from_hands(HOYLE, hands, dealer=2)
>>> MostStrategy().choose(deal.view(0), deal.legal_actions(), random.Random(0))
Lead(player=0, rank=Rank.QUEEN, card=Card(rank=Rank.QUEEN, suit=Suit.SPADES), chant_ok=True)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

from voice_earl.errors import UsageError
from voice_earl.game.moves import Action, Lead, SeatView


class Strategy(Protocol):
    """Chooses among ``legal``, which is what ``Deal.legal_actions()`` offers: all leads, or none.

    ``uses_view`` False: the caller may pass no view; it is built only for strategies that
    read it, which keeps bot games fast.
    """

    name: str
    uses_view: bool

    def choose(self, view: SeatView | None, legal: Sequence[Action], rng: random.Random) -> Action: ...


class RandomStrategy:
    """Any legal action, uniformly."""

    name = "random"
    uses_view = False

    def choose(self, view: SeatView | None, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[rng.randrange(len(legal))]


class MostStrategy:
    """Lead the rank held most often (the rules' tip: then you play its later cards too)."""

    name = "most"
    uses_view = False

    def choose(self, view: SeatView | None, legal: Sequence[Action], rng: random.Random) -> Action:
        return _lead_by_count(legal, max)


class FewestStrategy:
    """Lead the rank held least often: a foil for comparing against ``most``."""

    name = "fewest"
    uses_view = False

    def choose(self, view: SeatView | None, legal: Sequence[Action], rng: random.Random) -> Action:
        return _lead_by_count(legal, min)


def _lead_by_count(legal: Sequence[Action], pick: Callable[..., int]) -> Action:
    """The first lead of the first rank whose count ``pick`` (max or min) chooses; a forced play as it is.

    Legal actions are all leads or none.
    """
    if type(legal[0]) is not Lead:
        return legal[0]  # plays are forced; which suit does not matter
    ranks = [lead.rank for lead in legal]  # type: ignore[union-attr]
    counts = Counter(ranks)  # in order of first appearance, so max and min keep the first best
    return legal[ranks.index(pick(counts, key=counts.__getitem__))]


STRATEGIES: dict[str, type[RandomStrategy] | type[MostStrategy] | type[FewestStrategy]] = {
    "random": RandomStrategy,
    "most": MostStrategy,
    "fewest": FewestStrategy,
}


def strategy_by_name(name: str) -> Strategy:
    try:
        return STRATEGIES[name]()
    except KeyError:
        raise UsageError(f"unknown strategy {name!r}: use {', '.join(STRATEGIES)}") from None
