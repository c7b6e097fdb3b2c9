"""The phones' web server: aiohttp, with its event loop on a thread of its own.

Routes, each under a token (anything else, or a wrong token, is a bare 404):

- ``/p/TOKEN`` a player's page, ``/p/TOKEN/state.json`` their view, ``/p/TOKEN/ws`` their live
  updates and taps, ``/p/TOKEN/phone.css`` and ``/p/TOKEN/phone.js`` (``?v=`` their digest);
- ``/j/TOKEN`` the join page with every player's code.

A socket carries the page's taps, pings and (``--phone-mics``) holds (:mod:`wire`). When the game
ends the server sends every phone the last state, then closes its socket saying why.

The game's thread hands over immutable snapshots with :meth:`PhoneServer.publish` and refusals
with :meth:`PhoneServer.tell` through a thread-safe queue; the loop wakes each connection, which
sends the newest view of its own seat (a slow phone skips states, never falls behind). Requests are
bounded in size and rate, and answered with a status and a word, never a traceback."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import queue
import socket
import threading
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from voice_earl.errors import UsageError
from voice_earl.i18n import _
from voice_earl.table.phones import pages, qr, wire
from voice_earl.table.phones.doors import GuardedSite, handler_settings, make_doors, quiet_loop
from voice_earl.table.phones.gate import TapAnswer, TurnGate
from voice_earl.table.phones.handler import SERVER_NAME
from voice_earl.table.phones.limits import DEFAULT_LIMITS, Bucket, Limits
from voice_earl.table.phones.network import url_host
from voice_earl.table.phones.tokens import PhoneTokens
from voice_earl.table.phones.views import Phase, TableState, player_view, waiting
from voice_earl.table.phones.wire import Microphones

if TYPE_CHECKING:
    from voice_earl.table.phones.tls import SiteCertificate

log = logging.getLogger(__name__)

MAX_REQUEST_BYTES = 2048  # no route takes a body
MAX_MESSAGE_BYTES = 512  # a tap is a few dozen bytes
SOCKETS_PER_PLAYER = 6
SOCKETS_IN_ALL = 64
_CLIENTS_REMEMBERED = 256
_LAST_WORDS_S = 1.0  # how long the last state may take to reach the phones before their sockets close
_SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}
_KEPT = "private, max-age=31536000, immutable"


@dataclass(eq=False)
class _Connection:
    seat: int
    socket: web.WebSocketResponse
    taps: Bucket
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    notes: deque[str] = field(default_factory=lambda: deque(maxlen=8))
    sent: TableState | None = None
    sender: asyncio.Task[None] | None = None


def not_found() -> web.Response:
    return web.Response(status=404, text="Not Found")


class PhoneServer:
    """Serves the players' pages while the game runs. ``seats``: the seats with a phone (humans)."""

    def __init__(
        self, tokens: PhoneTokens, gate: TurnGate, seats: Collection[int], limits: Limits = DEFAULT_LIMITS
    ) -> None:
        self.tokens = tokens
        self.limits = limits
        self.gate = gate
        self.names = gate.names
        self.seats = frozenset(seats)
        self.host = ""
        self.port = 0
        self._state = waiting(self.names)
        self._inbox: queue.SimpleQueue[tuple[int | None, TableState | str]] = queue.SimpleQueue()
        self._connections: set[_Connection] = set()
        self._clients: OrderedDict[str, Bucket] = OrderedDict()
        self._joined = {seat: threading.Event() for seat in self.seats}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._closing = False
        self.mics: Microphones | None = None  # with --phone-mics: holds and their audio (mics.py)
        self.certificate: SiteCertificate | None = None  # with --phone-mics: served over HTTPS (tls.py)
        self.laptop_listens = True  # the laptop's microphone hears the table too (the pages say so)

    # -- addresses

    def url(self, seat: int) -> str:
        return f"{self.scheme}://{url_host(self.host)}:{self.port}/p/{self.tokens.players[seat]}"

    def join_url(self) -> str:
        return f"{self.scheme}://{url_host(self.host)}:{self.port}/j/{self.tokens.join}"

    @property
    def scheme(self) -> str:
        return "https" if self.certificate is not None else "http"

    def joined(self, seat: int) -> bool:
        """Whether a phone has opened ``seat``'s live updates since the server started."""
        return self._joined[seat].is_set()

    # -- the game's thread

    def publish(self, state: TableState) -> None:
        """A new snapshot of the table for every phone (thread-safe)."""
        self._post(None, state)

    def tell(self, seat: int, reason: str) -> None:
        """A refusal for ``seat``'s phones (thread-safe)."""
        if seat in self.seats:
            self._post(seat, reason)

    def _post(self, seat: int | None, item: TableState | str) -> None:
        self._inbox.put((seat, item))
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has stopped: the game is ending
                loop.call_soon_threadsafe(self._drain)

    # -- starting and stopping

    def start(self, host: str, port: int, certificate: SiteCertificate | None = None) -> None:
        """Listen on ``host``:``port`` (0: a free port) and serve on a thread of its own (over HTTPS
        with ``certificate``)."""
        self.certificate = certificate
        sock = _bind(host, port)
        self.host = host
        self.port = int(sock.getsockname()[1])
        loop = asyncio.new_event_loop()
        ready: queue.SimpleQueue[BaseException | None] = queue.SimpleQueue()
        self._loop = loop
        self._thread = threading.Thread(target=self._serve, args=(loop, sock, ready), name="phones", daemon=True)
        self._thread.start()
        problem = ready.get()
        if problem is not None:
            self._thread.join()
            self._loop = None
            raise UsageError(f"the phones' server cannot start: {problem}")
        log.info("phones served on %s:%d", host, self.port)

    def stop(self) -> None:
        """Close every connection and stop listening."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        with contextlib.suppress(RuntimeError, TimeoutError, asyncio.TimeoutError):
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=5)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        self._loop = None
        log.info("phones' server stopped")

    def __enter__(self) -> PhoneServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _serve(
        self, loop: asyncio.AbstractEventLoop, sock: socket.socket, ready: queue.SimpleQueue[BaseException | None]
    ) -> None:
        asyncio.set_event_loop(loop)
        quiet_loop(loop)
        try:
            loop.run_until_complete(self._setup(sock))
        except Exception as error:  # reported to the starting thread
            sock.close()
            ready.put(error)
            loop.close()
            return
        ready.put(None)
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _setup(self, sock: socket.socket) -> None:
        app = web.Application(
            client_max_size=MAX_REQUEST_BYTES,
            middlewares=[self._guard],
            handler_args={"max_line_size": 1024, "max_field_size": 4096, "max_headers": 64},
        )
        app.router.add_get("/p/{token}", self._player)
        app.router.add_get("/p/{token}/{name}", self._player)
        app.router.add_get("/j/{token}", self._join)
        app.router.add_get("/j/{token}/{name}", self._join)
        app.on_response_prepare.append(_secure)
        limits = self.limits
        doors = make_doors(limits.connections_per_address, limits.connections_in_all, limits.header_timeout)
        app.on_response_prepare.append(doors.on_response)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=1.0, **handler_settings(doors.limits)
        )
        await self._runner.setup()
        tls = self.certificate.context() if self.certificate is not None else None
        await GuardedSite(self._runner, sock, doors, ssl_context=tls).start()

    async def _shutdown(self) -> None:
        """Send every phone the last state, then close its socket saying why."""
        over = self._state.phase is Phase.OVER
        code, why = (wire.CLOSE_ENDED, b"the game has ended") if over else (wire.CLOSE_STOPPED, b"the game was stopped")
        self._closing = True
        connections = list(self._connections)
        for connection in connections:
            connection.wake.set()
        senders = [c.sender for c in connections if c.sender is not None]
        if senders:
            await asyncio.wait(senders, timeout=_LAST_WORDS_S)
        closing = [asyncio.create_task(c.socket.close(code=code, message=why)) for c in connections]
        if closing:
            await asyncio.wait(closing, timeout=_LAST_WORDS_S)
        if self._runner is not None:
            await self._runner.cleanup()

    # -- on the loop

    def _drain(self) -> None:
        while True:
            try:
                seat, item = self._inbox.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, TableState):
                self._state = item
            else:
                for connection in self._connections:
                    if connection.seat == seat:
                        connection.notes.append(json.dumps({"type": "refused", "reason": item}))
        for connection in self._connections:
            connection.wake.set()

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if not self._allow(request.remote or "?"):
            return web.Response(status=429, text="Too Many Requests")
        try:
            return await handler(request)
        except web.HTTPException as error:
            if error.status in (404, 405):
                return not_found()
            return web.Response(status=error.status, text=error.reason)
        except (ConnectionError, asyncio.CancelledError):
            raise
        except Exception:
            log.exception("the phones' server failed on %s", request.path)
            return web.Response(status=500, text="Internal Server Error")

    def _allow(self, client: str) -> bool:
        bucket = self._clients.get(client)
        if bucket is None:
            bucket = self._clients[client] = Bucket(self.limits.requests_per_second, self.limits.request_burst)
            if len(self._clients) > _CLIENTS_REMEMBERED:
                self._clients.popitem(last=False)
        else:
            self._clients.move_to_end(client)
        return bucket.allow()

    async def _player(self, request: web.Request) -> web.StreamResponse:
        seat = self.tokens.seat_of(request.match_info["token"])
        if seat is None or seat not in self.seats:
            return not_found()
        base = f"/p/{self.tokens.players[seat]}"
        name = request.match_info.get("name", "")
        if name == "":
            page = pages.phone_page(base, self.names[seat], self.mics is not None, self.laptop_listens)
            return web.Response(text=page, content_type="text/html")
        if name == "state.json":
            return web.json_response(player_view(self._state, seat))
        if name == "ws":
            return await self._socket(request, seat)
        return _asset(request, name)

    async def _join(self, request: web.Request) -> web.StreamResponse:
        if not self.tokens.is_join(request.match_info["token"]):
            return not_found()
        name = request.match_info.get("name", "")
        if name == "":
            entries = [pages.JoinEntry(self.names[s], self.url(s), qr.svg(self.url(s))) for s in sorted(self.seats)]
            fingerprint = self.certificate.fingerprint if self.certificate is not None else None
            page = pages.join_page(f"/j/{self.tokens.join}", entries, fingerprint)
            return web.Response(text=page, content_type="text/html")
        return _asset(request, name)

    async def _socket(self, request: web.Request, seat: int) -> web.StreamResponse:
        mine = sum(1 for c in self._connections if c.seat == seat)
        if mine >= SOCKETS_PER_PLAYER or len(self._connections) >= SOCKETS_IN_ALL:
            return web.Response(status=429, text="Too Many Requests")
        largest = MAX_MESSAGE_BYTES if self.mics is None else max(MAX_MESSAGE_BYTES, self.mics.max_message_bytes)
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=largest, compress=False)
        if not ws.can_prepare(request).ok:
            return web.Response(status=400, text="Bad Request")
        await ws.prepare(request)
        connection = _Connection(seat, ws, Bucket(self.limits.taps_per_second, self.limits.tap_burst))
        self._connections.add(connection)
        self._arrived(seat)
        sender = connection.sender = asyncio.create_task(self._send_loop(connection))
        connection.wake.set()
        try:
            async for message in ws:
                if message.type is WSMsgType.BINARY and self.mics is not None:
                    self.mics.audio(connection, message.data)
                    continue
                if message.type is not WSMsgType.TEXT:
                    break
                if self.mics is not None and self.mics.text(connection, message.data):
                    continue
                reply = self._on_message(connection, message.data)
                if reply is not None:
                    connection.notes.append(json.dumps(reply))
                    connection.wake.set()
        finally:
            self._connections.discard(connection)
            if self.mics is not None:
                self.mics.closed(connection)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender
        return ws

    def _arrived(self, seat: int) -> None:
        """A phone of ``seat`` is here: before the game, every waiting page says who has joined."""
        if self._joined[seat].is_set():
            return
        self._joined[seat].set()
        if self._state.phase is Phase.WAITING:
            self._state = waiting(self.names, {s: self.joined(s) for s in self.seats})
            for connection in self._connections:
                connection.wake.set()

    async def _send_loop(self, connection: _Connection) -> None:
        """Send what is new for this phone: its notes, then the newest state if it changed."""
        with contextlib.suppress(ConnectionError, RuntimeError):
            while not connection.socket.closed:
                await connection.wake.wait()
                connection.wake.clear()
                while connection.notes:
                    await connection.socket.send_str(connection.notes.popleft())
                state = self._state
                if state is not connection.sent:
                    connection.sent = state
                    view = player_view(state, connection.seat)
                    # With the build of the pages: a page open across an upgrade loads itself again.
                    message = {"type": "state", "state": view, "build": pages.build()}
                    await connection.socket.send_str(json.dumps(message, ensure_ascii=False))
                if self._closing:
                    return  # the last state is sent: the socket closes

    def _on_message(self, connection: _Connection, data: str) -> dict[str, Any] | None:
        message = wire.load(data)
        if message == wire.PING:  # a sign of life, not a tap: answered at once, whatever the taps' rate
            return wire.PONG
        if not connection.taps.allow():
            return {"type": "refused", "reason": _("Too many taps: wait a moment.")}
        tap = wire.parse_tap(connection.seat, message)
        if tap is None:
            return wire.BAD_MESSAGE
        answer, reason = self.gate.offer(tap)
        if answer is TapAnswer.REFUSED:
            return {"type": "refused", "reason": reason, "turn": tap.turn}
        return {"type": answer.value, "turn": tap.turn}


def _asset(request: web.Request, name: str) -> web.Response:
    """A static file. Asked for at the address the pages give it (its digest in the query string),
    it may be kept as long as the phone likes: another version of it has another address."""
    found = pages.asset(name)
    if found is None:
        return not_found()
    text, content_type = found
    response = web.Response(text=text, content_type=content_type)
    if request.query.get("v") == pages.digest(name):
        response.headers["Cache-Control"] = _KEPT
    return response


async def _secure(request: web.Request, response: web.StreamResponse) -> None:
    kept = response.headers.get("Cache-Control")  # a versioned static file's, which may be kept
    response.headers.update(_SECURITY_HEADERS)
    if kept is not None:
        response.headers["Cache-Control"] = kept
    response.headers["Server"] = SERVER_NAME


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket, or a one-line error that says what to do."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        raise UsageError(f"--host {host}: not an address or name this laptop knows") from None
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.setblocking(False)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise UsageError(
                f"port {port} is in use on {host}: choose another with --port (0 picks a free one)"
            ) from None
        if error.errno == errno.EADDRNOTAVAIL:
            raise UsageError(f"--host {host}: not an address of this laptop") from None
        if error.errno == errno.EACCES:
            raise UsageError(f"port {port} needs special rights: choose one above 1023 with --port") from None
        raise UsageError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    return sock
