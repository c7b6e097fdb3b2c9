"""The phones' server's doors, with small caps so that real sockets on loopback show them quickly:
half-sent requests time out, a newcomer over a cap takes the place of the connection that has
waited longest unserved, a newcomer is refused with a 503 only when every place is served, and the
cap in all holds across addresses (127.0.0.2 and up are loopback too)."""

from __future__ import annotations

import asyncio
import json
import select
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import replace
from typing import Any

import aiohttp
import pytest
from support.patience import WAIT_S
from support.phones_table import FAST, PhoneTable, phone_table

from voice_earl.table.phones.doors import connection_limits
from voice_earl.table.phones.limits import Limits

HALF_SENT = b"GET /p/x HTTP/1.1\r\nHost: x\r\n"


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
