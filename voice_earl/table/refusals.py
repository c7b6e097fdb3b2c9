"""Why a move is refused, in the table's language and the players' names."""

from __future__ import annotations

from collections.abc import Sequence

from voice_earl.game.cards import Rank
from voice_earl.game.engine import Deal
from voice_earl.game.moves import (
    Action,
    CardNotHeld,
    GameOver,
    IllegalAction,
    Lead,
    LeadDuringQuartet,
    NoRankOpen,
    NotSeated,
    OutOfTurn,
    PassWhileHolding,
    RankFinished,
    WrongRank,
)
from voice_earl.i18n import _, rank_name, rank_plural


def explain(error: IllegalAction, action: Action, deal: Deal, names: Sequence[str]) -> str:
    """Why the engine refused ``action``, in the table's language and names (the deal is as it was)."""
    player = names[action.player]
    card = getattr(action, "card", None)
    open_rank = deal.rank
    if isinstance(error, GameOver):
        winner = names[deal.winner] if deal.winner is not None else "?"
        return _("Deal {deal} is over: {winner} won.").format(deal=deal.number, winner=winner)
    if isinstance(error, NotSeated):
        return _("{player} does not take part in this deal.").format(player=player)
    if isinstance(error, OutOfTurn):
        return _("It is {turn}'s turn, not {player}'s.").format(turn=names[deal.turn], player=player)
    if isinstance(error, NoRankOpen):
        return _("No rank is open: {player} must lead.").format(player=player)
    if isinstance(error, PassWhileHolding) and open_rank is not None:
        return _("{player} holds a {rank} and must play it.").format(player=player, rank=rank_name(open_rank))
    if isinstance(error, LeadDuringQuartet) and open_rank is not None:
        return _("The {ranks} are still open: play a {rank} or pass.").format(
            ranks=rank_plural(open_rank).lower(), rank=rank_name(open_rank)
        )
    if isinstance(error, RankFinished) and isinstance(action, Lead):
        return rank_finished(action.rank)
    if isinstance(error, WrongRank) and open_rank is not None and card is not None:
        return _("{card} is not a {rank}: the {ranks} are open.").format(
            card=card.pretty, rank=rank_name(open_rank), ranks=rank_plural(open_rank).lower()
        )
    if isinstance(error, CardNotHeld):
        if deal.hands is None:
            return _("{player} has no cards left.").format(player=player)
        if card is None:
            return _("The virtual deck needs the card, not only its rank.")
        return _("{player} does not hold {card}.").format(player=player, card=card.pretty)
    return _("That move is not allowed now: {reason}").format(reason=error)


def rank_finished(rank: Rank) -> str:
    return _("All four {ranks} are out already: lead another rank.").format(ranks=rank_plural(rank).lower())
