"""The turn that phone taps may act on, and the taps waiting for the session.

The game's thread opens a turn (with a fresh id) when the session begins one and closes it when a
move is applied or taken back; the server's loop offers each tap. A tap names the turn it was
made for: a tap for another turn is stale and ignored (a double tap, or a slow phone), a tap from
a player whose turn it is not is refused with the reason, and at most one tap waits per turn. The
session takes taps on its own thread through :class:`WithPhones`, an input source beside the
voice or the keyboard, so the session stays the only owner of the game.
"""

from __future__ import annotations

import enum
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from voice_earl.i18n import _
from voice_earl.table.turns import InputSource, Interruptible, KeyCommand, TurnInput, TurnRequest, Woken


class TapAnswer(enum.Enum):
    ACCEPTED = "accepted"  # the session will take it
    STALE = "stale"  # for a turn that is over: ignored
    REFUSED = "refused"  # not this player's turn, or the game is paused


@dataclass(frozen=True)
class Tap:
    seat: int
    turn: str  # the id of the turn the phone showed
    command: KeyCommand  # pass, play, or lead a rank: Silent Earl's commands


@dataclass(frozen=True)
class _OpenTurn:
    id: str
    seat: int


class TurnGate:
    """Shared by the game's thread and the server's loop; every method is thread-safe."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self._lock = threading.Lock()
        self._turn: _OpenTurn | None = None
        self._waiting: Tap | None = None
        self._paused: str | None = None  # why taps are refused while the game waits
        self._serial = 0
        self._run = secrets.token_hex(3)  # turn ids differ from one run of the server to the next

    # -- the game's thread

    def open(self, seat: int) -> str:
        """A new turn for ``seat``; returns its id."""
        with self._lock:
            self._serial += 1
            self._turn = _OpenTurn(f"{self._run}-{self._serial}", seat)
            self._waiting = None
            return self._turn.id

    def close(self) -> None:
        """The turn is over (a move was applied or undone, or the game stopped): its taps are stale."""
        with self._lock:
            self._turn = None
            self._waiting = None

    def pause(self, paused: bool, reason: str | None = None) -> None:
        """Refuse every tap (saying ``reason``, else that the game is paused), or take them again."""
        with self._lock:
            self._paused = (reason or _("The game is paused.")) if paused else None

    @property
    def turn_id(self) -> str | None:
        with self._lock:
            return self._turn.id if self._turn is not None else None

    def take(self, seat: int) -> KeyCommand | None:
        """The tap waiting for ``seat``'s open turn, if any (it is taken once)."""
        with self._lock:
            tap = self._waiting
            if tap is None or self._turn is None or tap.turn != self._turn.id or tap.seat != seat:
                return None
            self._waiting = None
            return tap.command

    def waiting(self) -> bool:
        """Whether a tap waits: the voice or the keyboard stops waiting for its own input."""
        with self._lock:
            return self._waiting is not None

    # -- the server's loop

    def offer(self, tap: Tap) -> tuple[TapAnswer, str]:
        """Take a phone's tap in, or say why not."""
        with self._lock:
            if self._waiting is not None:
                return TapAnswer.STALE, ""
            answer, reason = self._check(tap.seat, tap.turn)
            if answer is TapAnswer.ACCEPTED:
                self._waiting = tap
            return answer, reason

    def check(self, seat: int, turn: str) -> tuple[TapAnswer, str]:
        """Whether ``seat`` may act on ``turn`` now (a phone's microphone asks), or why not."""
        with self._lock:
            return self._check(seat, turn)

    def _check(self, seat: int, turn_id: str) -> tuple[TapAnswer, str]:
        turn = self._turn
        if turn is None or turn_id != turn.id:
            return TapAnswer.STALE, ""
        if seat != turn.seat:  # said to the phone that asked
            return TapAnswer.REFUSED, _("It is {turn}'s turn, not yours.").format(turn=self.names[turn.seat])
        if self._paused is not None:
            return TapAnswer.REFUSED, self._paused
        return TapAnswer.ACCEPTED, ""


@dataclass
class WithPhones:
    """An input source for the human seats: phone taps beside the voice or the keyboard.

    A tap for the seat on turn wins over waiting for the other source, which stops waiting when a
    tap arrives (its ``interrupt``); input the other source already has is not thrown away.
    """

    inner: InputSource
    gate: TurnGate

    def __post_init__(self) -> None:
        if isinstance(self.inner, Interruptible):
            self.inner.interrupt = self.gate.waiting

    def next_input(self, request: TurnRequest) -> TurnInput:
        while True:
            command = self.gate.take(request.seat)
            if command is not None:
                return command
            given = self.inner.next_input(request)
            if not isinstance(given, Woken):
                return given
