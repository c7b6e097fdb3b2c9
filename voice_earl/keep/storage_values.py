"""The values the journal stores and returns: series summaries and utterances, and the journal's errors."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voice_earl.errors import VoiceEarlError
from voice_earl.game.cards import Rank

if TYPE_CHECKING:
    from voice_earl.words.verdicts import LineGrade

Event = dict[str, Any]

# Series are numbered from 1; SQLite holds integers up to 2**63 - 1.
MIN_SERIES_ID, MAX_SERIES_ID = 1, 2**63 - 1


class JournalError(VoiceEarlError):
    """An event that does not fit the journal: a gap, a conflicting re-append, a closed series."""


class SeriesStatus(enum.Enum):
    OPEN = "open"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class Mode(enum.Enum):
    """Where an utterance was said."""

    PRACTICE = "practice"
    DRILL = "drill"
    PLAY = "play"


@dataclass(frozen=True)
class SeriesSummary:
    """One series as ``voice-earl history`` lists it."""

    id: int
    started_at: datetime
    finished_at: datetime | None
    status: SeriesStatus
    players: tuple[str, ...]
    profile: str
    mode: Mode  # play or practice
    deals: int  # dealt so far
    events: int
    totals: tuple[int, ...] | None
    places: tuple[int, ...] | None
    wins: tuple[int, ...]
    damaged: tuple[str, ...] = ()  # the parts of its row that cannot be read ("players", "start date"...)
    planned: int | None = None  # the deals asked for (None: played until a total, or not said)

    @property
    def damage(self) -> str | None:
        """What of its row cannot be read, in words ("its players and totals cannot be read"); None: all of it."""
        if not self.damaged:
            return None
        parts = self.damaged[0] if len(self.damaged) == 1 else f"{', '.join(self.damaged[:-1])} and {self.damaged[-1]}"
        return f"its {parts} cannot be read"

    @property
    def winners(self) -> tuple[str, ...]:
        """The players in first place (several when tied); empty until the series ends."""
        if self.places is None:
            return ()
        return tuple(name for name, place in zip(self.players, self.places, strict=False) if place == 1)


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class Utterance:
    """One line said in practice, a drill or a game: what was due, what was heard, how it went."""

    mode: Mode
    position: int
    rank: Rank | None
    expected: str
    heard: str
    verdict: str  # a listening Verdict's value: correct, wrong_line, wrong_rank, unclear, silent...
    score: int
    latency_ms: int | None
    strictness: str | None = None  # lenient, normal or strict
    at: datetime = field(default_factory=utc_now)
    session: str | None = None
    series_id: int | None = None
    audio_path: Path | None = None
    heard_position: int | None = None  # whose line it came closest to (None: none close, or not kept then)

    def __post_init__(self) -> None:
        if self.position not in (1, 2, 3, 4):
            raise ValueError(f"position must be 1-4, not {self.position}")
        if self.heard_position not in (None, 1, 2, 3, 4):
            raise ValueError(f"heard_position must be 1-4 or None, not {self.heard_position}")
        if not 0 <= self.score <= 100:
            raise ValueError(f"score must be 0-100, not {self.score}")

    @property
    def correct(self) -> bool:
        return self.verdict == "correct"


def utterance_of(
    grade: LineGrade,
    mode: Mode,
    latency_ms: int | None,
    series_id: int | None = None,
    strictness: str | None = None,
    session: str | None = None,
) -> Utterance:
    """The utterance to keep for a judged line."""
    return Utterance(
        mode=mode,
        position=grade.position,
        rank=grade.rank,
        expected=grade.expected,
        heard=grade.heard,
        verdict=grade.verdict.value,
        score=grade.score,
        latency_ms=latency_ms,
        strictness=strictness,
        session=session,
        series_id=series_id,
        heard_position=grade.heard_position,
    )
