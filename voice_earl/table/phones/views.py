"""What one player's phone may show, and nothing more.

:func:`snapshot` runs on the game's thread after each session event and copies what the phones
need into an immutable :class:`TableState`; the server's loop turns it into one JSON view per
player with :func:`player_view`, which reads the hand of that player's seat and no other. Cards
are written in the game log's notation (``"QS"``, ``"10H"``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from voice_earl.game.cards import RANKS, Card
from voice_earl.game.chants import RANK_SLOT, ChantSet
from voice_earl.game.gamelog import Record
from voice_earl.game.moves import Action, FormulaDue, Lead, Pass, Play
from voice_earl.game.rules import DeckMode, Scoring
from voice_earl.i18n import _
from voice_earl.table import narrator as say
from voice_earl.table.presenters import hand_order
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import SeatKind
from voice_earl.words.context import PASS_SAYING

BLANK = "____"  # the rank in a lead's line, until the player chooses it


class Phase(enum.Enum):
    WAITING = "waiting"  # the server runs, the game has not begun
    PLAYING = "playing"
    DEAL_OVER = "deal_over"  # a deal is won; the next one has not begun
    OVER = "over"  # the series has ended
    STOPPED = "stopped"  # stopped at the laptop before the end


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
    say: str = ""  # what the player on turn says: the line, "I pass" when they hold none, a lead's line with a blank
    legal: tuple[str, ...] = ()  # what the player on turn may tap: "lead", or "play" and/or "pass"


@dataclass(frozen=True)
class News:
    """The last thing that happened, for every phone; the phone of the player it is about reads ``yours``."""

    text: str = ""
    seat: int | None = None
    yours: str = ""
    undo: bool = False  # a move taken back: every phone shows it where it is seen, not only at the page's foot

    def for_seat(self, seat: int) -> str:
        return self.yours if seat == self.seat and self.yours else self.text


@dataclass(frozen=True)
class DealResult:
    deal: int
    winner: str
    payments: tuple[tuple[str, int], ...]  # what each seat paid (negative) or took, in seat order
    winner_seat: int | None = None


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
    last: News = News()  # the last thing that happened, as the table screen prints it
    last_deal: DealResult | None = None
    paused: bool = False
    pause_reason: str = ""  # why the game waits, when it is not the pause key (the laptop asks something)
    joined: tuple[bool | None, ...] = ()  # before the game: whether each seat's phone is here (None: no phone)
    resume: str | None = None  # stopped at the laptop: the command that goes on with the series


def waiting(names: Sequence[str], joined: Mapping[int, bool] | None = None) -> TableState:
    """Before the game begins: names, and whose phone is here (``joined``: the seats with a phone)."""
    here = tuple(None if joined is None else joined.get(seat) for seat in range(len(names)))
    return TableState(Phase.WAITING, players=tuple(PlayerLine(n, 0, 0, 1, False, False) for n in names), joined=here)


def sorted_hand(cards: Sequence[Card]) -> tuple[str, ...]:
    """A hand in the game log's notation, grouped by rank (A 2 ... K), suits in a fixed order."""
    return tuple(str(card) for card in sorted(cards, key=hand_order))


def snapshot(
    session: TableSession, turn_id: str | None, last: News, stopped: bool = False, resume: str | None = None
) -> TableState:
    """The table now. Call it only on the game's thread (the session's owner). ``stopped``: the
    session was stopped before the end; ``resume``: the command that goes on with it."""
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
    if due is not None and not series.over and not stopped:
        hint = say.turn(settings.names[due.player], due.rank, due.position).line
        rank = due.rank.value if due.rank is not None else None
        legal = deal.legal_actions()
        turn = TurnState(
            turn_id,
            due.player,
            due.position,
            rank,
            session.formula_line(due),
            hint,
            _say(settings.chant, due, legal),
            _kinds(legal),
        )
    planned = series.planned_deals if series.profile.scoring is not Scoring.COUNTERS else None
    return TableState(
        phase=_phase(session, stopped),
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
        resume=resume,
    )


def _phase(session: TableSession, stopped: bool) -> Phase:
    if session.series.over:
        return Phase.OVER
    if stopped:
        return Phase.STOPPED
    return Phase.DEAL_OVER if session.deal.over else Phase.PLAYING


def _say(chant: ChantSet, due: FormulaDue, legal: Sequence[Action]) -> str:
    """What the player on turn says: the line due; "I pass" when passing is all they may do, and the
    line or "I pass" when the laptop cannot tell (a real pack); at a lead, the line with a blank for the
    rank, or with the rank when they hold only one."""
    if due.rank is not None:
        if all(isinstance(action, Pass) for action in legal):
            return PASS_SAYING
        line = chant.line(due.position, due.rank)
        if any(isinstance(action, Pass) for action in legal):  # a real pack: the laptop cannot know who holds one
            return _("{line}, or: {saying}").format(line=line, saying=PASS_SAYING)
        return line
    ranks = {action.rank for action in legal if isinstance(action, Lead)}
    if len(ranks) == 1 and all(isinstance(action, Lead) and action.card is not None for action in legal):
        return chant.line(1, ranks.pop())
    return chant.lines[0].replace(RANK_SLOT, BLANK)


def _kinds(legal: Sequence[Action]) -> tuple[str, ...]:
    """The buttons a player may tap, for the moves the rules allow now ("play" first)."""
    kinds = {Lead: "lead", Play: "play", Pass: "pass"}
    found = {kinds[type(action)] for action in legal if type(action) in kinds}
    return tuple(kind for kind in ("lead", "play", "pass") if kind in found)


def last_deal(records: Sequence[Record], names: Sequence[str]) -> DealResult | None:
    """The most recent deal played out, from the game log's ``win`` and ``settle`` records."""
    newest_first = reversed(records)
    settle = next((r for r in newest_first if r.get("event") == "settle"), None)
    if settle is None:
        return None
    winner = next((r for r in newest_first if r.get("event") == "win"), None)  # the win before that settle
    seat = winner["player"] if winner is not None else None
    won = names[seat] if seat is not None else ""
    return DealResult(settle["deal"], won, tuple(zip(names, settle["payments"], strict=True)), seat)


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
        "turn": None
        if turn is None
        else {
            "id": turn.id,
            "player": state.players[turn.seat].name,
            "seat": turn.seat,
            "yours": mine,
        },
        "due": None if turn is None else {"rank": turn.rank, "position": turn.position},
        "line": None if turn is None else turn.line,
        "say": turn.say if mine and turn is not None else None,
        "legal": list(turn.legal) if mine and turn is not None else [],
        "hint": "" if turn is None or mine else turn.hint,
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
        "last": state.last.for_seat(seat),
        "last_undo": state.last.undo,
        "last_deal": None if state.last_deal is None else _result(state.last_deal, seat),
        "paused": state.paused,
        "pause_reason": state.pause_reason,
        "joined": [p.name for p, here in zip(state.players, state.joined, strict=False) if here],
        "not_joined": [p.name for p, here in zip(state.players, state.joined, strict=False) if here is False],
        "resume": state.resume,
    }


def _result(result: DealResult, seat: int) -> dict[str, Any]:
    return {
        "deal": result.deal,
        "winner": result.winner,
        "yours": result.winner_seat == seat,  # the phone says "you won"
        "payments": [
            {"name": name, "amount": amount, "yours": payer == seat}
            for payer, (name, amount) in enumerate(result.payments)
        ],
    }


def _leads(hand: list[str] | None, finished: Sequence[str]) -> list[str]:
    """The ranks a player may lead: those in their hand (any unfinished rank on a physical deck)."""
    if hand is None:
        return [rank.value for rank in RANKS if rank.value not in finished]
    held = {card[:-1] for card in hand}
    return [rank.value for rank in RANKS if rank.value in held]


def _standings(players: Sequence[PlayerLine]) -> list[dict[str, Any]]:
    ordered = sorted(range(len(players)), key=lambda i: (players[i].place, i))
    return [{"name": players[i].name, "total": players[i].total, "place": players[i].place, "seat": i} for i in ordered]
