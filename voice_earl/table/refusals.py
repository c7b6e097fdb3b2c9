"""Why a move is refused, in the table's language: said to the table, or to the player alone.

A refusal of a tap on a player's own phone goes to that phone only, so it speaks to its player
("You hold an Eight and must play it."); any other refusal is said to the whole table and names
the player ("Ben holds an Eight and must play it.").
"""

from __future__ import annotations

from collections.abc import Sequence

from voice_earl.game.cards import Card, Rank
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
from voice_earl.i18n import _, a_rank, rank_plural


def explain(error: IllegalAction, action: Action, deal: Deal, names: Sequence[str], to_player: bool = False) -> str:
    """Why the engine refused ``action`` (the deal is as it was); ``to_player``: said to its player alone."""
    player = names[action.player]
    card = getattr(action, "card", None)
    open_rank = deal.rank
    if isinstance(error, GameOver):
        winner = names[deal.winner] if deal.winner is not None else "?"
        return _("Deal {deal} is over: {winner} won.").format(deal=deal.number, winner=winner)
    if isinstance(error, NotSeated):
        text = _("You do not take part in this deal.") if to_player else _("{player} does not take part in this deal.")
        return text.format(player=player)
    if isinstance(error, OutOfTurn):
        text = _("It is {turn}'s turn, not yours.") if to_player else _("It is {turn}'s turn, not {player}'s.")
        return text.format(turn=names[deal.turn], player=player)
    if isinstance(error, NoRankOpen):
        text = _("No rank is open: you must lead.") if to_player else _("No rank is open: {player} must lead.")
        return text.format(player=player)
    if isinstance(error, PassWhileHolding) and open_rank is not None:
        text = _("You hold {a_rank} and must play it.") if to_player else _("{player} holds {a_rank} and must play it.")
        return text.format(player=player, a_rank=a_rank(open_rank))
    if isinstance(error, LeadDuringQuartet) and open_rank is not None:
        return _("The {ranks} are still open: play {a_rank} or pass.").format(
            ranks=rank_plural(open_rank).lower(), a_rank=a_rank(open_rank)
        )
    if isinstance(error, RankFinished) and isinstance(action, Lead):
        return rank_finished(action.rank)
    if isinstance(error, WrongRank) and open_rank is not None and card is not None:
        return _("{card} is not {a_rank}: the {ranks} are open.").format(
            card=card.pretty, a_rank=a_rank(open_rank), ranks=rank_plural(open_rank).lower()
        )
    if isinstance(error, CardNotHeld):
        return _not_held(deal, player, card, to_player)
    return _("That move is not allowed now: {reason}").format(reason=error)


def _not_held(deal: Deal, player: str, card: Card | None, to_player: bool) -> str:
    if deal.hands is None:
        return (_("You have no cards left.") if to_player else _("{player} has no cards left.")).format(player=player)
    if card is None:
        return _("The virtual deck needs the card, not only its rank.")
    text = _("You do not hold {card}.") if to_player else _("{player} does not hold {card}.")
    return text.format(player=player, card=card.pretty)


def holds_none(player: str, rank: Rank, lead: bool, how: str, to_player: bool = False) -> str:
    """A rank played or led that the player does not hold; ``how``: how to pass instead."""
    ranks = rank_plural(rank).lower()
    if lead:
        text = (
            _("You hold no {ranks}: lead a rank you hold")
            if to_player
            else _("{player} holds no {ranks}: lead a rank you hold")
        )
    else:
        text = _("You hold no {ranks}: {how}") if to_player else _("{player} holds no {ranks}: {how}")
    return text.format(player=player, ranks=ranks, how=how)


def rank_finished(rank: Rank) -> str:
    """A lead of a rank whose four cards are out: said so, whoever holds what."""
    return _("All four {ranks} are out already: lead another rank.").format(ranks=rank_plural(rank).lower())
