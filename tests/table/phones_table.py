"""A table with phones for tests: a real session on its own thread, the real server on 127.0.0.1,
silent-mode commands fed through a queue as if from a pipe, and aiohttp clients for the phones."""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from voice_earl.game.rules import HOYLE, DeckMode, RulesProfile
from voice_earl.table.phones.hub import Phones, serve_phones
from voice_earl.table.phones.mic_gate import HeldHearing
from voice_earl.table.phones.mics import MicLimits
from voice_earl.table.phones.server import DEFAULT_LIMITS, Limits
from voice_earl.table.phones.tls import SiteCertificate
from voice_earl.table.phones.tokens import PhoneTokens
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, SessionEnded, TableSettings
from voice_earl.table.turns import LineCommands

CARD = re.compile(r"(?<![A-Za-z0-9])(10|[2-9AJQK])([SHDC♠♥♦♣])(?![A-Za-z0-9])")
SUIT_LETTERS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


FAST = Limits(requests_per_second=1e6, request_burst=1e6, taps_per_second=1e6, tap_burst=1e6)  # a robot's taps


def cards_in(text: str) -> set[str]:
    """Every card named in ``text``, in the game log's notation (``Q♠`` counts as ``QS``)."""
    return {rank + SUIT_LETTERS.get(suit, suit) for rank, suit in CARD.findall(text)}


@dataclass
class PhoneTable:
    session: TableSession
    phones: Phones
    commands: queue.Queue[str | None]
    thread: threading.Thread
    ended: list[SessionEnded] = field(default_factory=list)
    complaints: list[str] = field(default_factory=list)

    def url(self, seat: int) -> str:
        return self.phones.server.url(seat)

    def ws_url(self, seat: int) -> str:
        return self.url(seat) + "/ws"


@contextlib.contextmanager
def phone_table(names: tuple[str, ...] = ("Ann", "Ben", "Cy"), *, seed: int = 7, deals: int = 1,
                profile: RulesProfile = HOYLE, tokens: PhoneTokens | None = None,
                port: int = 0, limits: Limits = DEFAULT_LIMITS, mics: MicLimits | None = None,
                hear: HeldHearing | None = None,
                deck: DeckMode = DeckMode.VIRTUAL, certificate: SiteCertificate | None = None) -> Iterator[PhoneTable]:
    """With ``mics`` and ``hear``, the phones are microphones too; with ``certificate``, over HTTPS."""
    settings = TableSettings(seats=tuple(Seat(name) for name in names), profile=profile, deck=deck,
                             deals=deals, seed=seed)
    commands: queue.Queue[str | None] = queue.Queue()
    complaints: list[str] = []
    lines = LineCommands(iter(commands.get, None), complaints.append)
    tokens = tokens or PhoneTokens.new(names)
    with serve_phones(names, range(len(names)), tokens, "127.0.0.1", port, limits, mics=mics,
                      certificate=certificate) as phones:
        source = phones.beside(lines, hear)
        session = TableSession(settings, dict.fromkeys(range(len(names)), source))
        session.listeners = [phones.follow(session)]
        ended: list[SessionEnded] = []
        thread = threading.Thread(target=lambda: ended.append(session.run()), name="game", daemon=True)
        table = PhoneTable(session, phones, commands, thread, ended, complaints)
        thread.start()
        try:
            yield table
        finally:
            commands.put("quit")
            commands.put(None)
            thread.join(timeout=10)


class Phone:
    """One phone's live connection: every message it received, raw and parsed."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.raw: list[str] = []
        self.state: dict[str, Any] = {}

    async def receive(self, timeout: float = 5.0) -> dict[str, Any]:
        message = await self.ws.receive(timeout=timeout)
        assert message.type is aiohttp.WSMsgType.TEXT, message
        self.raw.append(message.data)
        parsed: dict[str, Any] = json.loads(message.data)
        if parsed["type"] == "state":
            self.state = parsed["state"]
        return parsed

    async def until(self, test: Any, timeout: float = 5.0) -> dict[str, Any]:
        """Receive until a state passes ``test``; returns that state."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (self.state and test(self.state)):
            remaining = deadline - loop.time()
            assert remaining > 0, f"no such state; the last was {self.state}"
            await self.receive(remaining)
        return self.state

    async def reply(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next message that is not a state."""
        while True:
            message = await self.receive(timeout)
            if message["type"] != "state":
                return message

    async def tap(self, action: str, rank: str | None = None, turn: str | None = None) -> None:
        message: dict[str, Any] = {"type": "tap", "action": action, "turn": turn or self.state["turn"]["id"]}
        if rank is not None:
            message["rank"] = rank
        await self.ws.send_str(json.dumps(message))


def my_turn(state: dict[str, Any]) -> bool:
    return bool(state.get("turn") and state["turn"]["yours"] and state["turn"]["id"])


def choose(state: dict[str, Any]) -> tuple[str, str | None]:
    """What a player holding this hand does: lead their first rank, play the open rank, or pass."""
    if state["due"]["rank"] is None:
        return "lead", state["leads"][0]
    held = {card[:-1] for card in state["hand"]}
    return ("play", None) if state["due"]["rank"] in held else ("pass", None)
