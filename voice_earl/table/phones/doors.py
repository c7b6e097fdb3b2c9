"""How many connections the phones' server lets in, for how long, and where its libraries' words go.

A device on the Wi-Fi needs no token to open connections. Without bounds it could hold enough of
them, each sending half a request and then nothing, to fill the game's table of file descriptors:
then no phone could connect and the game could not open its own files. So:

- connections are counted per address (per /64 network for IPv6, where one device may hold many
  addresses) and in all, well under the descriptor limit (whose soft value is first raised to the
  hard one, where that is allowed);
- a connection that has not sent a whole request within ``Limits.header_timeout`` of opening, or of
  its last answer, is closed (aiohttp's keep-alive timer, which runs from the moment a connection
  opens): half-sent requests and idle sockets do not stay;
- when a count is full, a newcomer takes the place of a connection not yet served (a connection is
  served once it has had an answer under 400, which takes a player's token). Which one is fair to
  addresses, not to connections: the oldest of the address holding the most unserved ones, and one
  of an address a token was answered for (a phone that has joined) only when no other is left. Taking
  the oldest of all, a flood of N new connections a second gave every connection cap / N seconds to
  send its request (about one at 250 a second), a phone's as well as the guest's; this way the
  guest's connections push out each other, and a phone's slow request has its whole
  ``header_timeout`` while the guest has fewer addresses than there are places (a phone that has
  joined, whatever their number). Only when every place is held by served connections is the
  newcomer refused, with a 503.

aiohttp's and asyncio's loggers write to the log file like the rest of the game (see
:mod:`voice_earl.keep.logs`); here a malformed request or an error accepting a connection becomes one
line there, without a traceback, since a flood of them must not fill the file either.
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import logging
import resource
import ssl
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from voice_earl.table.phones.handler import handler_maker

log = logging.getLogger(__name__)
http_log = logging.getLogger("voice_earl.table.phones.http")  # aiohttp's words about each connection

REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nContent-Type: text/plain\r\n"
    b"Content-Length: 20\r\nConnection: close\r\n\r\nToo many connections"
)
DESCRIPTORS_PER_CONNECTION = 4  # the connections in all use at most a quarter of the descriptors
_UNLIMITED_TARGET = 65_536  # the soft limit asked for when the hard limit is unlimited


@dataclass(frozen=True)
class ConnectionLimits:
    per_address: int
    in_all: int
    header_timeout: float


def raise_descriptor_limit() -> int:
    """Raise the soft limit on open files to the hard limit where allowed; the soft limit after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = _UNLIMITED_TARGET if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as error:
            log.info("the limit on open files stays at %d: %s", soft, error)
    return _UNLIMITED_TARGET if soft == resource.RLIM_INFINITY else soft


def connection_limits(per_address: int, in_all: int, header_timeout: float, descriptors: int) -> ConnectionLimits:
    """The caps for a process that may open ``descriptors`` files."""
    room = max(1, descriptors // DESCRIPTORS_PER_CONNECTION)
    return ConnectionLimits(min(per_address, room), min(in_all, room), header_timeout)


def make_doors(per_address: int, in_all: int, header_timeout: float) -> Doors:
    """The doors of a server starting now, once the descriptor limit is raised as far as it may be."""
    return Doors(connection_limits(per_address, in_all, header_timeout, raise_descriptor_limit()))


def handler_settings(limits: ConnectionLimits) -> dict[str, Any]:
    """aiohttp's request handler's settings: its keep-alive timer closes a connection that has sent
    no whole request so long after opening or after its last answer; its words go to ``http_log``."""
    return {"keepalive_timeout": limits.header_timeout, "logger": http_log}


def client_of(peer: object) -> str:
    """The key a connection is counted under: its address (an IPv6 one's /64 network)."""
    host = peer[0] if isinstance(peer, tuple) and peer else ""
    try:
        address = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError:
        return str(host) or "?"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class Door(asyncio.Protocol):
    """One connection: let in (then everything is handed to aiohttp's handler) or refused."""

    def __init__(self, doors: Doors, make_handler: Callable[[], asyncio.Protocol]) -> None:
        self.doors = doors
        self.make_handler = make_handler
        self.handler: asyncio.Protocol | None = None
        self.transport: asyncio.BaseTransport | None = None
        self.client = "?"
        self.served = False
        self.arrival = 0  # the order in which the doors let it in

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.client = client_of(transport.get_extra_info("peername"))
        if not self.doors.admit(self):
            if isinstance(transport, asyncio.WriteTransport):
                transport.write(REFUSAL)
            transport.close()
            return
        self.handler = self.make_handler()
        self.handler.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.handler is not None:
            self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received() if self.handler is not None else None

    def pause_writing(self) -> None:
        if self.handler is not None:
            self.handler.pause_writing()

    def resume_writing(self) -> None:
        if self.handler is not None:
            self.handler.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.doors.leave(self)
        if self.handler is not None:
            self.handler.connection_lost(exc)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class Doors:
    """The open connections, counted per client and in all; a newcomer over a cap takes the place of an
    unserved connection (see :meth:`_crowded`), or is refused."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self._open: dict[str, int] = {}
        self._waiting: dict[str, OrderedDict[Door, None]] = {}  # unserved connections per client, oldest first
        self._known: OrderedDict[str, None] = OrderedDict()  # clients given a token's answer, latest last
        self._arrivals = itertools.count()
        self._count = 0
        self.refused = 0
        self._last_note = 0.0

    @property
    def count(self) -> int:
        return self._count

    def admit(self, door: Door) -> bool:
        if self._open.get(door.client, 0) >= self.limits.per_address and not self._evict(door.client):
            return self._refuse(door)
        if self._count >= self.limits.in_all and not self._evict(self._crowded()):
            return self._refuse(door)
        self._open[door.client] = self._open.get(door.client, 0) + 1
        self._count += 1
        door.arrival = next(self._arrivals)
        self._waiting.setdefault(door.client, OrderedDict())[door] = None
        return True

    def leave(self, door: Door) -> None:
        if self._unwait(door) or door.served:  # else evicted or refused: counted out already
            self._count_out(door)

    def serve(self, door: Door) -> None:
        if not door.served and self._unwait(door):
            door.served = True
            self._known[door.client] = None
            self._known.move_to_end(door.client)
            if len(self._known) > self.limits.in_all:
                self._known.popitem(last=False)

    async def on_response(self, request: web.BaseRequest, response: web.StreamResponse) -> None:
        """aiohttp's ``on_response_prepare`` signal: a connection given an answer under 400 is served."""
        transport = request.transport
        door = transport.get_protocol() if transport is not None else None
        if isinstance(door, Door) and response.status < 400:
            self.serve(door)

    def _crowded(self) -> str | None:
        """The client whose unserved connection gives way first: one never given a token's answer, then
        the one holding the most, then the one whose oldest has waited longest; None when none waits."""

        def first_to_go(client: str) -> tuple[bool, int, int]:
            waiting = self._waiting[client]
            return client not in self._known, len(waiting), -next(iter(waiting)).arrival

        return max(self._waiting, key=first_to_go, default=None)

    def _evict(self, client: str | None) -> bool:
        """Close the oldest unserved connection of ``client``; whether there was one."""
        waiting = self._waiting.get(client) if client is not None else None
        if not waiting:
            return False
        oldest = next(iter(waiting))
        self._unwait(oldest)
        self._count_out(oldest)
        oldest.close()
        return True

    def _unwait(self, door: Door) -> bool:
        """Take ``door`` out of the unserved connections; whether it was one."""
        waiting = self._waiting.get(door.client)
        if waiting is None or door not in waiting:
            return False
        del waiting[door]
        if not waiting:
            del self._waiting[door.client]
        return True

    def _count_out(self, door: Door) -> None:
        self._count -= 1
        left = self._open.get(door.client, 1) - 1
        if left > 0:
            self._open[door.client] = left
        else:
            self._open.pop(door.client, None)

    def _refuse(self, door: Door) -> bool:
        self.refused += 1
        now = time.monotonic()
        if now - self._last_note >= 10.0:  # one line now and then, not one per connection
            self._last_note = now
            log.warning(
                "phones' server full (%d connections): refused one from %s (%d refused so far)",
                self._count,
                door.client,
                self.refused,
            )
        return False


class GuardedSite(web.SockSite):
    """aiohttp's site on a listening socket, each connection through :class:`Doors` to a
    :class:`~voice_earl.table.phones.handler.PhonesHandler`."""

    def __init__(
        self, runner: web.BaseRunner, sock: Any, doors: Doors, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        super().__init__(runner, sock, ssl_context=ssl_context)
        self._doors = doors
        self._listening: Any = sock
        self._tls = ssl_context  # with --phone-mics: HTTPS

    async def start(self) -> None:
        await web.BaseSite.start(self)
        server = self._runner.server
        assert server is not None  # the runner is set up
        loop = asyncio.get_running_loop()
        make_handler = handler_maker(server)
        self._server = await loop.create_server(
            lambda: Door(self._doors, make_handler),
            sock=self._listening,
            ssl=self._tls,
            ssl_handshake_timeout=self._doors.limits.header_timeout if self._tls is not None else None,
        )


def quiet_loop(loop: asyncio.AbstractEventLoop) -> None:
    """The loop's own errors (an accept that failed, a task that failed unseen) as one line in the log."""

    def note(_loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        log.warning("phones' server: %s%s", context.get("message", "error"), f" ({error!r})" if error else "")

    loop.set_exception_handler(note)


class OneLine(logging.Filter):
    """A malformed request is one line in the log, without its traceback: anyone may send them."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], (HttpProcessingError, ConnectionError)):
            record.msg = f"{record.getMessage()}: {record.exc_info[1]!r}"[:300]
            record.args = None
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


http_log.addFilter(OneLine())
