"""What one player's phone may show, and nothing more.

:func:`snapshot` runs on the game's thread after each session event and copies what the phones
need into an immutable :class:`TableState`; the server's loop turns it into one JSON view per
player with :func:`player_view`, which reads the hand of that player's seat and no other. Cards
are written in the game log's notation (``"QS"``, ``"10H"``).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voice_earl.game.cards import RANKS, Card
from voice_earl.game.gamelog import Record
from voice_earl.game.rules import DeckMode, Scoring
from voice_earl.table import narrator as say
from voice_earl.table.presenters import hand_order
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import SeatKind


class Phase(enum.Enum):
    WAITING = "waiting"  # the server runs, the game has not begun
    PLAYING = "playing"
    OVER = "over"  # the series has ended


@dataclass(frozen=True)
class PlayerLine:
    name: str
    cards: int
    total: int
    place: int
    dealer: bool
    bot: bool


@dataclass(frozen=True)
class TurnState:
    id: str | None  # the id taps must name (None until the session asks the player)
    seat: int
    position: int
    rank: str | None  # None at a lead
    line: str  # the formula due ("RANK" for the rank at a lead)
    hint: str  # "Ben: Queens, card 2 of 4"


@dataclass(frozen=True)
class DealResult:
    deal: int
    winner: str
    payments: tuple[tuple[str, int], ...]  # what each seat paid (negative) or took, in seat order


@dataclass(frozen=True)
class TableState:
    """Everything any phone shows, copied on the game's thread. Holds every hand: never sent whole."""

    phase: Phase
    deal: int = 0
    deals: int | None = None  # planned deals (None when counters decide the end)
    dealer: int | None = None
    virtual: bool = True
    players: tuple[PlayerLine, ...] = ()
    hands: tuple[tuple[str, ...] | None, ...] = ()
    turn: TurnState | None = None
    open_rank: str | None = None
    in_quartet: int = 0
    finished: tuple[str, ...] = ()
    moves: int = 0  # moves applied in the series
    deal_moves: int = 0  # moves applied in this deal
    last: str = ""  # the last thing that happened, as the table screen prints it
    last_deal: DealResult | None = None
    paused: bool = False


def waiting(names: Sequence[str]) -> TableState:
    """Before the game begins: names only."""
    return TableState(Phase.WAITING, players=tuple(PlayerLine(n, 0, 0, 1, False, False) for n in names))


def sorted_hand(cards: Sequence[Card]) -> tuple[str, ...]:
    """A hand in the game log's notation, grouped by rank (A 2 ... K), suits in a fixed order."""
    return tuple(str(card) for card in sorted(cards, key=hand_order))


def snapshot(session: TableSession, turn_id: str | None, last: str) -> TableState:
    """The table now. Call it only on the game's thread (the session's owner)."""
    series = session.series
    deal = session.deal
    settings = session.settings
    places = series.places
    players = tuple(
        PlayerLine(seat.name, deal.sizes[i], series.totals[i], places[i], i == deal.dealer, seat.kind is SeatKind.BOT)
        for i, seat in enumerate(settings.seats)
    )
    hands = tuple(sorted_hand(hand) for hand in deal.hands) if deal.hands is not None else ()
    due = deal.formula_due()
    turn = None
    if due is not None and not series.over:
        hint = say.turn(settings.names[due.player], due.rank, due.position).line
        rank = due.rank.value if due.rank is not None else None
        turn = TurnState(turn_id, due.player, due.position, rank, session.formula_line(due), hint)
    planned = series.planned_deals if series.profile.scoring is not Scoring.COUNTERS else None
    return TableState(
        phase=Phase.OVER if series.over else Phase.PLAYING,
        deal=deal.number,
        deals=planned,
        dealer=deal.dealer,
        virtual=settings.deck is DeckMode.VIRTUAL,
        players=players,
        hands=hands,
        turn=turn,
        open_rank=deal.rank.value if deal.rank is not None else None,
        in_quartet=deal.in_quartet,
        finished=tuple(rank.value for rank in deal.finished_ranks()),
        moves=len(session.moves),
        deal_moves=len(deal.history),
        last=last,
        last_deal=last_deal(session.records, settings.names),
        paused=session.paused,
    )


def last_deal(records: Sequence[Record], names: Sequence[str]) -> DealResult | None:
    """The most recent deal played out, from the game log's ``win`` and ``settle`` records."""
    newest_first = reversed(records)
    settle = next((r for r in newest_first if r.get("event") == "settle"), None)
    if settle is None:
        return None
    winner = next((r for r in newest_first if r.get("event") == "win"), None)  # the win before that settle
    won = names[winner["player"]] if winner is not None else ""
    return DealResult(settle["deal"], won, tuple(zip(names, settle["payments"], strict=True)))


def player_view(state: TableState, seat: int) -> dict[str, Any]:
    """The JSON view for ``seat``: its own hand, and what the whole table may see."""
    turn = state.turn
    held = state.hands[seat] if seat < len(state.hands) else None
    hand = list(held) if held is not None else None
    mine = turn is not None and turn.seat == seat
    return {
        "phase": state.phase.value,
        "player": state.players[seat].name,
        "seat": seat,
        "deal": state.deal,
        "deals": state.deals,
        "dealer": state.players[state.dealer].name if state.dealer is not None else None,
        "virtual": state.virtual,
        "hand": hand,
        "turn": None if turn is None else {
            "id": turn.id, "player": state.players[turn.seat].name, "seat": turn.seat, "yours": mine,
        },
        "due": None if turn is None else {"rank": turn.rank, "position": turn.position},
        "line": None if turn is None else turn.line,
        "hint": "" if turn is None else turn.hint,
        "leads": _leads(hand, state.finished) if mine and turn is not None and turn.rank is None else [],
        "open_rank": state.open_rank,
        "in_quartet": state.in_quartet,
        "finished": list(state.finished),
        "players": [
            {"name": p.name, "cards": p.cards, "total": p.total, "place": p.place, "dealer": p.dealer, "bot": p.bot}
            for p in state.players
        ],
        "hand_sizes": [p.cards for p in state.players],
        "totals": [p.total for p in state.players],
        "standings": _standings(state.players),
        "moves": state.moves,
        "deal_moves": state.deal_moves,
        "last": state.last,
        "last_deal": None if state.last_deal is None else {
            "deal": state.last_deal.deal,
            "winner": state.last_deal.winner,
            "payments": [{"name": name, "amount": amount} for name, amount in state.last_deal.payments],
        },
        "paused": state.paused,
    }


def _leads(hand: list[str] | None, finished: Sequence[str]) -> list[str]:
    """The ranks a player may lead: those in their hand (any unfinished rank on a physical deck)."""
    if hand is None:
        return [rank.value for rank in RANKS if rank.value not in finished]
    held = {card[:-1] for card in hand}
    return [rank.value for rank in RANKS if rank.value in held]


def _standings(players: Sequence[PlayerLine]) -> list[dict[str, Any]]:
    ordered = sorted(range(len(players)), key=lambda i: (players[i].place, i))
    return [{"name": players[i].name, "total": players[i].total, "place": players[i].place} for i in ordered]
