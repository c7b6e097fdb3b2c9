"""What happened, as data: the engine's events.

Each event is a small frozen value. ``voice_earl.game.gamelog`` turns them into the game log's
JSON lines (``docs/game-log.md``); the narrator, screen and storage read them too.
Seats are integers 0..n-1, clockwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from voice_earl.game.cards import Card, Rank


@dataclass(frozen=True, slots=True)
class DealStarted:
    deal: int
    dealer: int
    players: tuple[str, ...]
    seated: tuple[int, ...]  # who takes part: all seats, or fewer in a tie-break or elimination deal
    hands: tuple[tuple[Card, ...], ...] | None  # virtual deck: per seat, in the order dealt
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Led:
    deal: int
    player: int
    rank: Rank
    card: Card | None  # None with a physical deck: only the rank is heard
    position: int = 1
    chant_ok: bool = True


@dataclass(frozen=True, slots=True)
class Played:
    deal: int
    player: int
    rank: Rank
    card: Card | None
    position: int
    chant_ok: bool = True


@dataclass(frozen=True, slots=True)
class Passed:
    deal: int
    player: int


@dataclass(frozen=True, slots=True)
class Forfeited:
    """Parlour: a bungled chant; the card just played went back to its player's hand."""

    deal: int
    player: int
    rank: Rank
    card: Card | None


@dataclass(frozen=True, slots=True)
class Penalised:
    """Forfeit Earl: one counter owed to the kitty, paid at the settlement."""

    deal: int
    player: int
    reason: str  # "chant" or "misplay"


@dataclass(frozen=True, slots=True)
class Misplayed:
    """Physical deck: the referee saw an illegal play, which the player took back."""

    deal: int
    player: int


@dataclass(frozen=True, slots=True)
class QuartetCompleted:
    deal: int
    player: int  # who played the fourth card, and leads next
    rank: Rank


@dataclass(frozen=True, slots=True)
class FullCircle:
    """Every seated player passed in a row: someone who holds the rank passed (physical deck)."""

    deal: int
    rank: Rank
    last_player: int  # the last player to play a card of the rank
    relead: bool  # parlour: that player now leads a new rank


@dataclass(frozen=True, slots=True)
class Won:
    deal: int
    player: int
    cards_left: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Settled:
    deal: int
    payments: tuple[int, ...]  # per seat, sums to 0
    totals: tuple[int, ...]  # running, per seat: notional units, counters, or round wins


@dataclass(frozen=True, slots=True)
class SeriesEnded:
    totals: tuple[int, ...]
    places: tuple[int, ...]  # competition ranking: 1, 2, 2, 4
    tie_break_winner: int | None = None


Event = (
    DealStarted
    | Led
    | Played
    | Passed
    | Forfeited
    | Penalised
    | Misplayed
    | QuartetCompleted
    | FullCircle
    | Won
    | Settled
    | SeriesEnded
)
