"""A guest on the Wi-Fi against a real `voice-earl play --phones`, on 127.0.0.1 only: a thousand
half-sent requests under the usual limit of 1,024 open files, and malformed requests of every kind.

The game must go on as if nothing happened: a phone still gets its state, moves are made and kept
(the game log beside the database equals the database's), and nothing is printed over the table's
screen. Before the server had limits, 1,100 half-sent requests filled the game's descriptor table:
phones timed out, asyncio printed a traceback many times a second and the game log lost records.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.game_commands import silent_three
from support.patience import WAIT_S
from support.phones_table import MALFORMED, choose

HALF_SENT = b"GET /p/x HTTP/1.1\r\nHost: x\r\n"  # and then nothing more
SIEGE = 1100
LOOPBACK = "127.0.0.1"
PLAY = silent_three("--phones", "--host", LOOPBACK, "--port", "0", "--seed", "3")


@contextlib.contextmanager
def game(prefix: tuple[str, ...] = ()) -> Iterator[tuple[subprocess.Popen[str], dict[str, str]]]:
    """A silent phones game of three, driven by lines on its stdin; the players' addresses by name."""
    process = subprocess.Popen(
        [*prefix, *PLAY], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        urls = dict(process.stdout.readline().rstrip("\n").rsplit(" ", 1) for _ in range(3))
        yield process, urls
    finally:
        process.kill()
        process.wait(timeout=WAIT_S)


def state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "/state.json", timeout=WAIT_S) as response:
        view: dict[str, Any] = json.load(response)
        return view


def play_a_move(process: subprocess.Popen[str], urls: dict[str, str]) -> int:
    """The player whose turn it is makes the move a bot would, typed on stdin; the moves made after it."""
    before = state(urls["Ann"])
    player = state(urls[before["turn"]["player"]])
    action, rank = choose(player)
    assert process.stdin is not None
    process.stdin.write(f"lead {rank}\n" if action == "lead" else f"{action}\n")
    process.stdin.flush()
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        moves = int(state(urls["Ann"])["moves"])
        if moves > before["moves"]:
            return moves
        time.sleep(0.05)
    raise AssertionError("the move was not made")


def half_sent(count: int, port: int, deadline_s: float = WAIT_S) -> list[socket.socket]:
    """``count`` connections that each send half a request and stop, as fast as they open."""
    held: list[socket.socket] = []
    deadline = time.monotonic() + deadline_s
    while len(held) < count and time.monotonic() < deadline:
        sock = socket.socket()
        sock.settimeout(5)
        try:
            sock.connect((LOOPBACK, port))
            sock.sendall(HALF_SENT)
        except OSError:  # refused or closed on the spot: the server is protecting itself
            sock.close()
            continue
        held.append(sock)
    return held


def open_descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def finish(process: subprocess.Popen[str]) -> tuple[str, str]:
    out, err = process.communicate("quit\n", timeout=WAIT_S)
    assert process.returncode == 0, err
    return out, err


def assert_nothing_on_the_screen(out: str, err: str) -> None:
    """Only the game's own lines: no traceback, no library's complaint."""
    assert all(line.startswith("voice-earl:") for line in err.splitlines()), err[:2000]
    for text in (out, err):
        for word in ("Traceback", "Errno", "Too many open files", "Error handling request", "Exception"):
            assert word not in text, text[:2000]


def exported(series_id: int, data: Path, tmp_path: Path) -> str:
    target = tmp_path / "export.jsonl"
    command = [sys.executable, "-m", "voice_earl", "history", "export", str(series_id), "--out", str(target)]
    subprocess.run(command, check=True, capture_output=True, timeout=WAIT_S)
    return target.read_text(encoding="utf-8")


@pytest.fixture
def descriptors_for_the_siege() -> Iterator[None]:
    """This test's process holds the siege's connections itself."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = SIEGE + 500
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"this test opens {SIEGE} connections and may open only {hard} files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("prlimit") is None, reason="prlimit (util-linux) is not installed")
def test_a_thousand_half_sent_requests_neither_lock_phones_out_nor_reach_the_screen(
    descriptors_for_the_siege: None, isolated_user_dirs: Path, tmp_path: Path
) -> None:
    with game(("prlimit", "--nofile=1024")) as (process, urls):
        port = int(urls["Ann"].rsplit(":", 1)[1].split("/", 1)[0])
        moves = play_a_move(process, urls)
        held = half_sent(SIEGE, port)
        try:
            assert len(held) == SIEGE
            in_use = open_descriptors(process.pid)
            view = state(urls["Ben"])  # a phone still gets its state ...
            for _ in range(3):
                moves = play_a_move(process, urls)  # ... and the game goes on
            assert state(urls["Cy"])["moves"] == moves
        finally:
            for sock in held:
                sock.close()
        out, err = finish(process)
    assert view["player"] == "Ben" and len(view["hand"]) == view["hand_sizes"][1]
    assert in_use < 600  # the connections in all are capped well under the 1,024 files the game may open
    assert_nothing_on_the_screen(out, err)
    mirror = (isolated_user_dirs / "series" / "series-1.jsonl").read_text(encoding="utf-8")
    assert mirror == exported(1, isolated_user_dirs, tmp_path)
    assert len(mirror.splitlines()) >= moves


def answer(port: int, request: bytes) -> bytes:
    """The first line of the server's answer to ``request``."""
    with socket.create_connection((LOOPBACK, port), timeout=WAIT_S) as sock:
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):  # it may answer before the end
            sock.sendall(request)
        reply = b""
        with contextlib.suppress(ConnectionResetError):
            while b"\r\n" not in reply:
                piece = sock.recv(256)
                if not piece:
                    break
                reply += piece
    return reply.split(b"\r\n", 1)[0]


@pytest.mark.slow
def test_malformed_requests_get_a_short_answer_and_never_reach_the_screen() -> None:
    with game() as (process, urls):
        port = int(urls["Ann"].rsplit(":", 1)[1].split("/", 1)[0])
        answers = {kind: answer(port, request) for kind, request in MALFORMED.items()}
        assert state(urls["Ann"])["player"] == "Ann"
        out, err = finish(process)
    for kind, first_line in answers.items():
        assert first_line.startswith(b"HTTP/1.") and first_line.split()[1][:1] == b"4", (kind, first_line)
    assert_nothing_on_the_screen(out, err)
