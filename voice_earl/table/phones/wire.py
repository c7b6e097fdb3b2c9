"""What a phone's socket carries besides the views: taps, pings, and why the server closes it.

- a tap: ``{"type": "tap", "turn": ID, "action": "pass" | "play" | "lead", "rank": "Q"}``;
- a ping: ``{"type": "ping"}``, which the page sends every few seconds and the server answers at
  once with ``{"type": "pong"}``: a page that hears nothing for a while knows its socket is dead,
  since a Wi-Fi that drops silently never closes it;
- the close codes: :data:`CLOSE_ENDED` when the series is over, :data:`CLOSE_STOPPED` when it was
  stopped at the laptop (the same address works again once it is resumed).
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from voice_earl.game.cards import Rank
from voice_earl.table.phones.gate import Tap
from voice_earl.table.turns import Command, KeyCommand

CLOSE_ENDED = 4000  # the series is over: nothing to come back to
CLOSE_STOPPED = 4001  # stopped at the laptop (or the program ended): the series can be resumed
PING: dict[str, Any] = {"type": "ping"}
PONG: dict[str, Any] = {"type": "pong"}
BAD_MESSAGE: dict[str, Any] = {"type": "error", "reason": "bad message"}

_ACTIONS = {"pass": Command.PASS, "play": Command.PLAY, "lead": Command.LEAD}


def load(data: str) -> object:
    """A message's JSON, or None when it is not JSON."""
    try:
        return json.loads(data)
    except ValueError:
        return None


def parse_tap(seat: int, message: object) -> Tap | None:
    """The tap a message from ``seat``'s phone makes, or None when it is none."""
    if not isinstance(message, dict) or message.get("type") != "tap":
        return None
    turn, action = message.get("turn"), message.get("action")
    if not isinstance(turn, str) or len(turn) > 64 or not isinstance(action, str) or action not in _ACTIONS:
        return None
    command = _ACTIONS[action]
    if command is not Command.LEAD:
        return Tap(seat, turn, KeyCommand(command, private=True))
    rank = message.get("rank")
    if not isinstance(rank, str) or len(rank) > 8:
        return None
    try:
        return Tap(seat, turn, KeyCommand(command, Rank.parse(rank), private=True))
    except ValueError:
        return None


class Microphones(Protocol):
    """The phones as microphones (``mics.PhoneMics``): holds, releases and audio on the sockets."""

    max_message_bytes: int

    def text(self, connection: Any, data: str) -> bool: ...  # False: not a hold or a release
    def audio(self, connection: Any, data: bytes) -> None: ...
    def closed(self, connection: Any) -> None: ...
