"""What a table session is given and what it reports: the seats and settings, the moves it holds,
and the typed :data:`TableEvent` values its listeners receive (narrator, screen, game log, journal).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from voice_earl.game.chants import EARL, ChantSet
from voice_earl.game.events import Event
from voice_earl.game.gamelog import Record
from voice_earl.game.moves import (
    Action,
    FormulaDue,
)
from voice_earl.game.rules import DeckMode, RulesProfile
from voice_earl.table.turns import Heard


class SeatKind(enum.Enum):
    HUMAN = "human"
    BOT = "bot"


@dataclass(frozen=True)
class Seat:
    name: str
    kind: SeatKind = SeatKind.HUMAN


@dataclass(frozen=True)
class TableSettings:
    seats: tuple[Seat, ...]
    profile: RulesProfile
    deck: DeckMode = DeckMode.PHYSICAL
    deals: int | None = None
    seed: int = 0
    chant: ChantSet = EARL
    first_dealer: int | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self.seats)

    @property
    def silent(self) -> bool:
        return self.profile.silent


@dataclass(frozen=True)
class Move:
    """An action and what voice-driven play adds to its record (heard, verdict, score, latency)."""

    action: Action
    fields: Mapping[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------- session events


@dataclass(frozen=True)
class DealBegins:
    deal: int
    dealer: str
    hand_sizes: tuple[tuple[str, int], ...]  # in dealing order, from the dealer's left
    physical: bool


@dataclass(frozen=True)
class TurnBegins:
    seat: int
    name: str
    due: FormulaDue
    line: str  # the line due (at a lead, with "RANK" for the rank)


@dataclass(frozen=True)
class FormulaGraded:
    seat: int
    name: str
    heard: Heard
    takes_back: bool  # parlour: the card goes back (a forfeit)


@dataclass(frozen=True)
class MoveRefused:
    seat: int
    name: str
    reason: str
    private: bool = False  # a tap on the player's phone: the reason, in the second person, is for that phone alone


@dataclass(frozen=True)
class Reminded:
    seat: int
    name: str
    line: str


@dataclass(frozen=True)
class RulesApplied:
    """What the engine did with a move: its events, and their game-log records."""

    events: tuple[Event, ...]
    records: tuple[Record, ...]


@dataclass(frozen=True)
class Undone:
    name: str  # whose move was taken back
    records_kept: int  # the game log now holds this many records
    events: tuple[Event, ...] = ()  # what the move taken back had done (a lead, a play, a pass...)


@dataclass(frozen=True)
class RepeatAsked:
    pass


@dataclass(frozen=True)
class PauseChanged:
    paused: bool
    go_on: str  # what the players are told while paused (a msgid): how to go on


@dataclass(frozen=True)
class Standing:
    """One player after a deal."""

    place: int  # 1, 2, 2, 4: equal totals share a place
    name: str
    change: int  # what the deal brought: taken (+) or paid (-); with simple victory 1 for the winner
    total: int  # the running total


@dataclass(frozen=True)
class DealOver:
    """A deal has been won and settled; with ``final``, the series is over too."""

    deal: int
    winner: str
    standings: tuple[Standing, ...]  # best first, ties in seat order
    final: bool


@dataclass(frozen=True)
class SessionEnded:
    finished: bool  # the series ended (False: the players quit; the series can be resumed)


TableEvent = (
    DealBegins
    | TurnBegins
    | FormulaGraded
    | MoveRefused
    | Reminded
    | RulesApplied
    | Undone
    | RepeatAsked
    | PauseChanged
    | DealOver
    | SessionEnded
)
Listener = Callable[[TableEvent], None]
