"""Phones as microphones, on the server's loop: each phone's hold, its audio, and their bounds.

The contract, on the player's socket (``/p/TOKEN/ws``, ``wss://`` with ``--phone-mics``):

- ``{"type": "hold", "turn": ID}`` opens an utterance for the turn the phone shows. It is answered
  ``{"type": "listening", "turn": ID}``, or ``{"type": "unheard", "turn": ID, "reason": ...}`` when
  nothing it holds will be judged (not this player's turn, a turn that is over, the game paused);
- binary messages follow: little-endian 16-bit mono PCM at 16 kHz, at most 100 ms each;
- ``{"type": "release", "turn": ID}`` closes it, and the verdict follows:
  ``{"type": "heard", "turn": ID, "verdict": ..., "heard": ..., "why": ..., "line": ...}``.

Bounds: a hold keeps at most ``hold_s`` of audio (more is dropped with ``unheard``, the whole hold
unjudged), and one never released is closed ``grace_s`` after that; holds are limited in rate;
audio may come faster than it is spoken only in a short burst. A phone that sends more, or a
binary message larger than 100 ms or not whole samples, is cut off: told why, and its socket is
closed (its page connects again, and the game goes on). Audio outside a judged hold is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from aiohttp import web

from voice_earl.i18n import _
from voice_earl.listening.stream.audio import BYTES_PER_SAMPLE, SAMPLE_RATE
from voice_earl.table.phones.gate import TapAnswer
from voice_earl.table.phones.limits import Bucket
from voice_earl.table.phones.mic_gate import Answer, MicGate, unheard

log = logging.getLogger(__name__)

BYTES_PER_SECOND = SAMPLE_RATE * BYTES_PER_SAMPLE


@dataclass(frozen=True)
class MicLimits:
    hold_s: float = 8.0  # the longest utterance judged: a formula takes three seconds
    grace_s: float = 1.0  # a hold not released this long after hold_s is closed
    frame_s: float = 0.1  # the longest binary message
    speed: float = 1.5  # audio may come this much faster than it is spoken ...
    burst_s: float = 2.0  # ... after this much at once (a network that held it back)
    holds_per_second: float = 1.0  # a person holds and speaks far more slowly
    hold_burst: float = 4.0

    @property
    def frame_bytes(self) -> int:
        return round(self.frame_s * SAMPLE_RATE) * BYTES_PER_SAMPLE

    @property
    def hold_bytes(self) -> int:
        return round(self.hold_s * SAMPLE_RATE) * BYTES_PER_SAMPLE

    @property
    def press_s(self) -> float:
        """How long a button counts as held at most."""
        return self.hold_s + self.grace_s


DEFAULT_MIC_LIMITS = MicLimits()


class Client(Hashable, Protocol):
    """A phone's connection, as the server keeps it: its send loop sends its notes when woken."""

    seat: int
    notes: deque[str]
    wake: asyncio.Event
    socket: web.WebSocketResponse


@dataclass(eq=False)
class _Hold:
    turn: str
    judged: bool  # False: refused or dropped; what comes is thrown away until the button is up
    closing: asyncio.TimerHandle
    size: int = 0  # bytes of audio held (kept by the gate)


@dataclass(eq=False)
class _Line:
    """One connection's microphone."""

    audio: Bucket
    holds: Bucket
    hold: _Hold | None = None
    cut: bool = False


class PhoneMics:
    """Every phone's microphone on the server's loop (call its methods only there)."""

    def __init__(self, gate: MicGate, limits: MicLimits = DEFAULT_MIC_LIMITS) -> None:
        self.gate = gate
        self.limits = limits
        self._lines: dict[Client, _Line] = {}
        # The largest message a socket takes: a frame a little too large is told why, not just closed.
        self.max_message_bytes = 2 * limits.frame_bytes

    def text(self, client: Client, data: str) -> bool:
        """Handle a hold or a release; False for any other message (a tap)."""
        try:
            message = json.loads(data)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("type") not in ("hold", "release"):
            return False
        turn = message.get("turn")
        line = self._line(client)
        if line.cut:
            return True
        if not isinstance(turn, str) or len(turn) > 64:
            _note(client, {"type": "error", "reason": "bad message"})
        elif message["type"] == "hold":
            self._hold(client, line, turn)
        else:
            self._release(client, line, turn)
        return True

    def audio(self, client: Client, data: bytes) -> None:
        """A binary message: audio for the hold open on ``client``, if any."""
        line = self._line(client)
        if line.cut:
            return
        limits = self.limits
        if not line.audio.allow(len(data)):
            self._cut_off(client, line, _("This phone sent audio faster than anyone speaks, so it was cut off."))
            return
        if len(data) > limits.frame_bytes or len(data) % BYTES_PER_SAMPLE:
            self._cut_off(client, line, _("This phone sent audio the game cannot take, so it was cut off."))
            return
        hold = line.hold
        if hold is None or not hold.judged:
            return
        if hold.size + len(data) > limits.hold_bytes:
            self._drop(client, hold, self._too_long())
            return
        hold.size += len(data)
        self.gate.more(client, data)

    def closed(self, client: Client) -> None:
        """The phone's socket closed: a hold it had open is dropped."""
        line = self._lines.pop(client, None)
        if line is not None and line.hold is not None:
            line.hold.closing.cancel()
        self.gate.lift(client)

    # -- holds

    def _line(self, client: Client) -> _Line:
        line = self._lines.get(client)
        if line is None:
            limits = self.limits
            audio = Bucket(limits.speed * BYTES_PER_SECOND, limits.burst_s * BYTES_PER_SECOND)
            line = self._lines[client] = _Line(audio, Bucket(limits.holds_per_second, limits.hold_burst))
        return line

    def _hold(self, client: Client, line: _Line, turn: str) -> None:
        if line.hold is not None:  # a hold never released, then another: the first is dropped
            line.hold.closing.cancel()
            line.hold = None
            self.gate.lift(client)
        if not line.holds.allow():
            _note(client, unheard(turn, _("Too many holds at once: wait a moment.")))
            return
        answer, reason = self.gate.press(client, client.seat, turn)
        closing = asyncio.get_running_loop().call_later(self.limits.press_s, self._never_released, client)
        line.hold = _Hold(turn, answer is TapAnswer.ACCEPTED, closing)
        if answer is TapAnswer.ACCEPTED:
            _note(client, {"type": "listening", "turn": turn})
        else:
            _note(client, unheard(turn, reason or _("That turn is over: nothing was heard.")))

    def _release(self, client: Client, line: _Line, turn: str) -> None:
        hold = line.hold
        if hold is None or hold.turn != turn:
            return  # closed already (held too long, or cut off), or a release of nothing
        line.hold = None
        hold.closing.cancel()
        answer, reason = self.gate.release(client, self._answer(client))
        if hold.judged and answer is not TapAnswer.ACCEPTED:
            _note(client, unheard(turn, reason or _("That turn is over: nothing was heard.")))

    def _answer(self, client: Client) -> Answer:
        """Sends the verdict from the game's thread."""
        loop = asyncio.get_running_loop()

        def answer(message: dict[str, Any]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop has stopped: the game is ending
                loop.call_soon_threadsafe(_note, client, message)

        return answer

    def _drop(self, client: Client, hold: _Hold, reason: str) -> None:
        """Nothing of this hold is judged; the button still counts as held until it is up."""
        hold.judged = False
        self.gate.drop(client)
        _note(client, unheard(hold.turn, reason))

    def _too_long(self) -> str:
        text = _("Held too long: at most {seconds} seconds are heard. Release the button and say it again.")
        return text.format(seconds=f"{self.limits.hold_s:g}")

    def _never_released(self, client: Client) -> None:
        line = self._lines.get(client)
        if line is None or line.hold is None:
            return
        hold, line.hold = line.hold, None
        self.gate.lift(client)
        if hold.judged:
            self._drop(client, hold, self._too_long())

    def _cut_off(self, client: Client, line: _Line, reason: str) -> None:
        line.cut = True
        if line.hold is not None:
            line.hold.closing.cancel()
            line.hold = None
        self.gate.lift(client)
        log.info("phones: a phone of seat %d was cut off: %s", client.seat, reason)
        asyncio.get_running_loop().create_task(_close(client, reason))


def _note(client: Client, message: dict[str, Any]) -> None:
    """Send ``message`` to one phone (on the loop)."""
    client.notes.append(json.dumps(message, ensure_ascii=False))
    client.wake.set()


async def _close(client: Client, reason: str) -> None:
    """Tell the phone why it is cut off, and close its socket; its page connects again."""
    with contextlib.suppress(ConnectionError, RuntimeError):
        await client.socket.send_str(json.dumps({"type": "cut-off", "reason": reason}, ensure_ascii=False))
        await client.socket.close(code=1008, message=reason.encode()[:120])
