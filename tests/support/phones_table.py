"""A table with phones for tests: a real session on its own thread, the real server on 127.0.0.1,
silent-mode commands fed through a queue as if from a pipe, and aiohttp clients for the phones."""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import re
import ssl
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from support.patience import WAIT_S
from voice_earl.game.rules import HOYLE, DeckMode, RulesProfile
from voice_earl.table.phones.hub import Phones, serve_phones
from voice_earl.table.phones.limits import DEFAULT_LIMITS, Limits
from voice_earl.table.phones.mic_gate import HeldHearing
from voice_earl.table.phones.mics import MicLimits
from voice_earl.table.phones.tls import SiteCertificate
from voice_earl.table.phones.tokens import PhoneTokens
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Listener, Seat, SessionEnded, TableSettings
from voice_earl.table.turns import LineCommands

CARD = re.compile(r"(?<![A-Za-z0-9])(10|[2-9AJQK])([SHDC♠♥♦♣])(?![A-Za-z0-9])")
SUIT_LETTERS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


FAST = Limits(requests_per_second=1e6, request_burst=1e6, taps_per_second=1e6, tap_burst=1e6)  # a robot's taps

# Requests no route can take, each of a kind a guest on the Wi-Fi may send.
MALFORMED = {
    "a 2,000-byte path": b"GET /" + b"a" * 2000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    "a byte that is not ASCII in the path": b"GET /p/\xff HTTP/1.1\r\nHost: x\r\n\r\n",
    "an HTTP/2 preface": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    "a 100 KB header": b"GET /p/x HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 100_000 + b"\r\n\r\n",
    "200 headers": b"GET /p/x HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(200)) + b"\r\n",
    "a NUL in a header": b"GET /p/x HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n",
    "Content-Length: -5": b"POST /p/x HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    "a bad chunk size": b"POST /p/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    "HTTP/9.9": b"GET /p/x HTTP/9.9\r\nHost: x\r\n\r\n",
    "a TLS greeting": bytes.fromhex("160301002e0100002a0303") + bytes(40),
    "a body over the size limit": b"POST /p/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + b"a" * 100_000,
    "a WebSocket upgrade without a key": b"GET /p/x/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
    b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n",
}


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
def phone_table(
    names: tuple[str, ...] = ("Ann", "Ben", "Cy"),
    *,
    seed: int = 7,
    deals: int = 1,
    profile: RulesProfile = HOYLE,
    tokens: PhoneTokens | None = None,
    port: int = 0,
    limits: Limits = DEFAULT_LIMITS,
    hold: bool = False,
    listeners: Callable[[TableSession], Sequence[Listener]] = lambda session: (),
    resume: str | None = None,
    mics: MicLimits | None = None,
    hear: HeldHearing | None = None,
    deck: DeckMode = DeckMode.VIRTUAL,
    certificate: SiteCertificate | None = None,
) -> Iterator[PhoneTable]:
    """``hold``: after a deal the table waits for a ``next`` line, as a table does for its players;
    ``listeners``: more of the session's listeners beside the phones (a screen, a narrator); with ``mics``
    and ``hear``, the phones are microphones too; with ``certificate``, over HTTPS."""
    settings = TableSettings(
        seats=tuple(Seat(name) for name in names), profile=profile, deck=deck, deals=deals, seed=seed
    )
    commands: queue.Queue[str | None] = queue.Queue()
    complaints: list[str] = []
    lines = LineCommands(iter(commands.get, None), complaints.append)
    tokens = tokens or PhoneTokens.new(names)
    with serve_phones(
        names, range(len(names)), tokens, "127.0.0.1", port, limits, mics=mics, certificate=certificate
    ) as phones:
        source = phones.beside(lines, hear)
        session = TableSession(settings, dict.fromkeys(range(len(names)), source))
        if hold:
            session.hold = lines.wait_to_go_on
        session.listeners = [phones.follow(session, resume), *listeners(session)]
        ended: list[SessionEnded] = []
        thread = threading.Thread(target=lambda: ended.append(session.run()), name="game", daemon=True)
        table = PhoneTable(session, phones, commands, thread, ended, complaints)
        thread.start()
        try:
            yield table
        finally:
            commands.put("quit")
            commands.put(None)
            thread.join(timeout=WAIT_S)


class Phone:
    """One phone's live connection: every message it received, raw and parsed."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.raw: list[str] = []
        self.state: dict[str, Any] = {}
        self.told = False  # an answer to a hold came that is not "listening"

    async def receive(self, timeout: float = WAIT_S) -> dict[str, Any]:
        # aiohttp's own receive timeout starts again after every ping it answers, and the server pings
        # every 20 s: a longer wait would never end.
        message = await asyncio.wait_for(self.ws.receive(), timeout)
        assert message.type is aiohttp.WSMsgType.TEXT, message
        self.raw.append(message.data)
        parsed: dict[str, Any] = json.loads(message.data)
        if parsed["type"] == "state":
            self.state = parsed["state"]
        return parsed

    async def until(self, test: Any, timeout: float = WAIT_S) -> dict[str, Any]:
        """Receive until a state passes ``test``; returns that state."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (self.state and test(self.state)):
            remaining = deadline - loop.time()
            assert remaining > 0, f"no such state; the last was {self.state}"
            await self.receive(remaining)
        return self.state

    async def reply(self, timeout: float = WAIT_S) -> dict[str, Any]:
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


async def closing(
    ws: aiohttp.ClientWebSocketResponse,
    timeout: float = WAIT_S,
    seen: Callable[[dict[str, Any]], None] = lambda _: None,
) -> aiohttp.WSMessage:
    """The first message that is no text: the close. States the game sent before the server closed the
    socket come first on a busy machine; ``seen`` is given each text message before it."""
    while (message := await asyncio.wait_for(ws.receive(), timeout)).type is aiohttp.WSMsgType.TEXT:
        seen(json.loads(message.data))
    return message


def my_turn(state: dict[str, Any]) -> bool:
    return bool(state.get("turn") and state["turn"]["yours"] and state["turn"]["id"])


def choose(state: dict[str, Any]) -> tuple[str, str | None]:
    """What a player holding this hand does: lead their first rank, play the open rank, or pass."""
    if state["due"]["rank"] is None:
        return "lead", state["leads"][0]
    held = {card[:-1] for card in state["hand"]}
    return ("play", None) if state["due"]["rank"] in held else ("pass", None)


def view(table: PhoneTable, seat: int) -> dict[str, Any]:
    """``seat``'s view, as a script reads it (``state.json``); over HTTPS, trusting the table's own certificate."""
    certificate = table.phones.server.certificate
    trusted = ssl.create_default_context(cafile=str(certificate.cert)) if certificate is not None else None
    with urllib.request.urlopen(table.url(seat) + "/state.json", context=trusted) as response:
        result: dict[str, Any] = json.load(response)
        return result


def wait_for(
    table: PhoneTable, test: Callable[[dict[str, Any]], bool], seat: int = 0, timeout: float = WAIT_S
) -> dict[str, Any]:
    """Read ``seat``'s view until it passes ``test``."""
    deadline = time.monotonic() + timeout
    while not test(state := view(table, seat)):
        assert time.monotonic() < deadline, state
        time.sleep(0.01)
    return state


def keys_until(table: PhoneTable, test: Callable[[dict[str, Any]], bool], moves: int = 300) -> dict[str, Any]:
    """Play from the keyboard (a pipe), each player as :func:`choose` would, until the view of the
    player on turn passes ``test`` (a view of a turn that has its id); returns that view."""
    found = _keys(table, test, moves)
    assert found is not None, f"the deal ended first: {view(table, 0)['last']}"
    return found


def keys_to_the_end(table: PhoneTable, moves: int = 300) -> dict[str, Any]:
    """Play from the keyboard until the deal (or the series) is over; returns seat 0's view then."""
    assert _keys(table, lambda state: False, moves) is None
    return view(table, 0)


def _keys(table: PhoneTable, test: Callable[[dict[str, Any]], bool], moves: int) -> dict[str, Any] | None:
    for _ in range(moves):
        state = wait_for(table, lambda s: s["phase"] != "playing" or bool(s["turn"] and s["turn"]["id"]))
        if state["phase"] != "playing":
            return None
        on_turn = view(table, state["turn"]["seat"])
        if test(on_turn):
            return on_turn
        action, rank = choose(on_turn)
        table.commands.put(f"lead {rank}" if action == "lead" else action)
        wait_for(table, lambda s, done=on_turn["moves"] + 1: s["moves"] >= done)
    raise AssertionError("no such turn")
