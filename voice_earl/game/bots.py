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
from collections.abc import Sequence
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
        if not isinstance(legal[0], Lead):
            return legal[0]  # plays are forced; which suit does not matter
        ranks = _rank_ids(legal)
        counts = Counter(ranks)
        return legal[ranks.index(max(ranks, key=counts.__getitem__))]  # the first lead of the first best rank


class FewestStrategy:
    """Lead the rank held least often: a foil for comparing against ``most``."""

    name = "fewest"
    uses_view = False

    def choose(self, view: SeatView | None, legal: Sequence[Action], rng: random.Random) -> Action:
        if not isinstance(legal[0], Lead):
            return legal[0]
        ranks = _rank_ids(legal)
        counts = Counter(ranks)
        return legal[ranks.index(min(ranks, key=counts.__getitem__))]


def _rank_ids(leads: Sequence[Action]) -> list[int]:
    """The rank of each lead, as the rank's identity: ranks are singletons, and hashing an enum
    member runs Python code, which bots would pay on every choice."""
    return [id(action.rank) for action in leads if isinstance(action, Lead)]


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
