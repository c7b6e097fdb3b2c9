"""The phones' server's doors, with small caps so that real sockets on loopback show them quickly:
half-sent requests time out, a newcomer over a cap takes the place of a connection unserved (of the
address that holds the most, never a phone's while a guest's is left), a newcomer is refused with a
503 only when every place is served, and the cap in all holds across addresses (127.0.0.2 and up are
loopback too). Last, a guest's flood at the rate that kept slow phones out, with the real caps."""

from __future__ import annotations

import asyncio
import contextlib
import json
import select
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections import deque
from dataclasses import replace
from typing import Any

import aiohttp
import pytest
from support.patience import WAIT_S
from support.phones_table import FAST, PhoneTable, phone_table

from voice_earl.table.phones.doors import connection_limits
from voice_earl.table.phones.limits import Limits

HALF_SENT = b"GET /p/x HTTP/1.1\r\nHost: x\r\n"
PHONE = "127.0.0.9"  # a seat's phone; the guest floods from other loopback addresses


def limits(**caps: float) -> Limits:
    return replace(FAST, **caps)


def connect(port: int, source: str = "127.0.0.1", request: bytes = HALF_SENT) -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    sock.sendall(request)
    return sock


def closed_within(socks: list[socket.socket], seconds: float, wanted: int) -> list[socket.socket]:
    """The sockets the server has closed, waiting up to ``seconds`` for ``wanted`` of them."""
    closed: list[socket.socket] = []
    deadline = time.monotonic() + seconds
    while len(closed) < wanted and time.monotonic() < deadline:
        ready, _, _ = select.select([s for s in socks if s not in closed], [], [], 0.05)
        for sock in ready:
            try:
                data = sock.recv(4096)
            except ConnectionResetError:
                data = b""
            if not data or data.startswith(b"HTTP/1.1 503"):
                closed.append(sock)
    return closed


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/", 1)[0])


def state_request(url: str) -> bytes:
    return f"GET /{url.split('/', 3)[3]}/state.json HTTP/1.1\r\nHost: x\r\n\r\n".encode()


def status_line(sock: socket.socket) -> bytes:
    """The first line of the answer on ``sock``; empty when the server closed it instead."""
    try:
        return sock.recv(4096).split(b"\r\n", 1)[0]
    except ConnectionResetError:
        return b""


def ask(phone: socket.socket, url: str) -> bytes:
    """The status line of the answer to a request for ``url``'s state, sent on a connection opened before."""
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # closed before: no answer
        phone.sendall(state_request(url))
    return status_line(phone)


def state_status(url: str) -> int:
    with urllib.request.urlopen(url + "/state.json", timeout=WAIT_S) as response:
        return int(response.status)


def test_a_half_sent_request_is_closed_once_its_time_is_up() -> None:
    with phone_table(limits=limits(header_timeout=0.5)) as table:
        sock = connect(port_of(table.url(0)))
        opened = time.monotonic()
        try:
            assert closed_within([sock], WAIT_S, 1) == [sock]
            waited = time.monotonic() - opened
        finally:
            sock.close()
    assert waited >= 0.4  # not at once: the time allowed is 0.5 s


def test_over_the_cap_per_address_a_phone_takes_the_place_of_the_longest_waiting() -> None:
    with phone_table(limits=limits(connections_per_address=4)) as table:
        port = port_of(table.url(0))
        socks = [connect(port) for _ in range(10)]
        try:
            closed = closed_within(socks, 5, 6)
            assert set(closed) == set(socks[:6])  # the oldest made way for the newer
            assert state_status(table.url(0)) == 200  # and a phone makes its own way
            assert closed_within(socks[6:], 5, 1) == [socks[6]]
        finally:
            for sock in socks:
                sock.close()


def test_when_every_place_is_served_a_newcomer_is_refused_with_a_503() -> None:
    with phone_table(limits=limits(connections_per_address=3)) as table:
        path = table.url(0).split(":", 2)[2].split("/", 1)[1]
        request = f"GET /{path}/state.json HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        port = port_of(table.url(0))
        served = [connect(port, request=request) for _ in range(3)]
        try:
            for sock in served:
                assert sock.recv(64).startswith(b"HTTP/1.1 200")  # kept open: keep-alive
            newcomer = connect(port, request=request)
            answer = newcomer.recv(4096)
            newcomer.close()
        finally:
            for sock in served:
                sock.close()
    assert answer.startswith(b"HTTP/1.1 503 Service Unavailable") and answer.endswith(b"Too many connections")


def test_the_cap_in_all_holds_across_addresses_and_a_phone_still_gets_in() -> None:
    with phone_table(limits=limits(connections_per_address=4, connections_in_all=6)) as table:
        port = port_of(table.url(0))
        socks = [connect(port, f"127.0.0.{2 + n % 4}") for n in range(12)]
        try:
            assert set(closed_within(socks, 5, 6)) == set(socks[:6])
            assert state_status(table.url(1)) == 200
        finally:
            for sock in socks:
                sock.close()


def test_a_phone_s_slow_request_outlasts_a_flood_from_fewer_addresses_than_places() -> None:
    with phone_table(limits=limits(connections_per_address=32, connections_in_all=6)) as table:
        port = port_of(table.url(0))
        phone = connect(port, PHONE, request=b"")  # connected; its request comes later
        flood = [connect(port, f"127.0.1.{1 + n % 3}") for n in range(30)]
        try:
            closed_within(flood, 5, 25)  # until five places are the guest's, and one is the phone's
            answer = ask(phone, table.url(0))
        finally:
            for sock in [phone, *flood]:
                sock.close()
    assert answer == b"HTTP/1.1 200 OK"


def test_a_phone_that_has_joined_outlasts_a_flood_from_more_addresses_than_places() -> None:
    with phone_table(limits=limits(connections_per_address=32, connections_in_all=6)) as table:
        port = port_of(table.url(0))
        joined = connect(port, PHONE, request=state_request(table.url(0)))
        assert status_line(joined) == b"HTTP/1.1 200 OK"
        joined.close()  # the phone slept; now it wakes and connects again
        phone = connect(port, PHONE, request=b"")
        flood = [connect(port, f"127.0.2.{1 + n}") for n in range(30)]  # one connection an address
        try:
            closed_within(flood, 5, 25)
            answer = ask(phone, table.url(0))
        finally:
            for sock in [phone, *flood]:
                sock.close()
    assert answer == b"HTTP/1.1 200 OK"


class Flood:
    """A guest's flood on loopback: ``rate`` new connections a second from ``addresses`` addresses,
    each sending half a request, the newest ``kept`` of them held open; it stops by itself after
    ``most`` connections or ``seconds``, whichever comes first."""

    def __init__(self, port: int, rate: float, addresses: int, kept: int, most: int, seconds: float) -> None:
        self.port, self.rate, self.addresses, self.most, self.seconds = port, rate, addresses, most, seconds
        self.held: deque[socket.socket] = deque(maxlen=kept)
        self.opened = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="flood", daemon=True)

    def __enter__(self) -> Flood:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop.set()
        self.thread.join(timeout=30)
        for sock in self.held:
            sock.close()

    def _run(self) -> None:
        start = time.monotonic()
        while self.opened < self.most and not self.stop.wait(
            max(0.0, start + self.opened / self.rate - time.monotonic())
        ):
            if time.monotonic() - start > self.seconds:
                return
            sock = socket.socket()
            sock.settimeout(2)
            try:
                sock.bind((f"127.1.0.{1 + self.opened % self.addresses}", 0))
                sock.connect(("127.0.0.1", self.port))
                sock.sendall(HALF_SENT)
            except OSError:
                sock.close()
            else:
                if len(self.held) == self.held.maxlen:
                    self.held[0].close()
                self.held.append(sock)
            self.opened += 1

    def after(self, count: int, seconds: float, most: float = 120.0) -> None:
        """Wait until ``count`` more connections have come and ``seconds`` have passed (at most ``most``)."""
        wanted, since = self.opened + count, time.monotonic()
        while self.opened < wanted or time.monotonic() - since < seconds:
            assert self.thread.is_alive() and time.monotonic() - since < most, "the flood stopped early"
            time.sleep(0.05)


@pytest.mark.slow
def test_during_a_flood_a_phone_that_asks_two_seconds_after_connecting_is_served_every_time() -> None:
    """The guest of issue 49: about 250 new connections a second from 100 addresses, with the real caps.
    Before, the doors gave every unserved connection about a second (256 places at 250 a second)."""
    places = FAST.connections_in_all
    with phone_table(limits=FAST) as table:
        port = port_of(table.url(0))
        answers = []
        with Flood(port, rate=250, addresses=100, kept=places + places // 2, most=20_000, seconds=120) as flood:
            flood.after(places, 0)  # the server is full
            for _ in range(5):
                phone = connect(port, PHONE, request=b"")
                flood.after(2 * places, 2.0)  # twice the places taken since it connected, and two seconds
                answers.append(ask(phone, table.url(0)))
                phone.close()
    assert answers == [b"HTTP/1.1 200 OK"] * 5


@pytest.mark.skipif(shutil.which("prlimit") is None, reason="prlimit (util-linux) is not installed")
def test_the_soft_limit_on_open_files_is_raised_to_the_hard_one_and_the_caps_follow_it() -> None:
    code = "from voice_earl.table.phones.doors import raise_descriptor_limit as r; print(r())"
    done = subprocess.run(
        ["prlimit", "--nofile=256:2048", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=True,
    )
    assert done.stdout.strip() == "2048"
    assert connection_limits(32, 256, 10.0, 1024) == connection_limits(32, 256, 10.0, 100_000)
    low = connection_limits(32, 256, 10.0, 100)
    assert (low.per_address, low.in_all) == (25, 25)


def test_a_phone_s_live_updates_outlast_the_time_allowed_for_a_request() -> None:
    async def idle_then_ask(table: PhoneTable) -> dict[str, Any]:
        async with aiohttp.ClientSession() as client, client.ws_connect(table.ws_url(0)) as ws:
            await ws.receive(timeout=WAIT_S)  # the state
            await asyncio.sleep(1.5)  # three times the time a request may take
            await ws.send_str("not a tap")
            while True:
                reply = json.loads((await ws.receive(timeout=WAIT_S)).data)
                if reply["type"] != "state":
                    return reply

    with phone_table(limits=limits(header_timeout=0.5)) as table:
        reply = asyncio.run(idle_then_ask(table))
    assert reply == {"type": "error", "reason": "bad message"}
