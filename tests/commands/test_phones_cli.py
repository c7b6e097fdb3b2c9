"""`voice-earl play --phones` as scripts use it: `NAME URL` lines on a pipe, `URL/state.json`, silent-mode
commands on stdin driving a game a phone watches, and the same addresses after `play --resume`."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.request
from typing import Any

import aiohttp
import pytest
from support.game_commands import silent_three
from support.patience import WAIT_S

PLAY = silent_three("--phones", "--host", "127.0.0.1", "--port", "0", "--seed", "3")
RESUME = [sys.executable, "-m", "voice_earl", "play", "--resume", "--silent", "--no-voice", "--host", "127.0.0.1"]


def start(argv: list[str]) -> tuple[subprocess.Popen[str], dict[str, str]]:
    game = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert game.stdout is not None
    urls = {}
    for _ in range(3):
        name, url = game.stdout.readline().rstrip("\n").rsplit(" ", 1)
        urls[name] = url
    return game, urls


def state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "/state.json", timeout=WAIT_S) as response:
        result: dict[str, Any] = json.load(response)
        return result


def finish(game: subprocess.Popen[str], commands: str = "quit\n") -> str:
    _out, err = game.communicate(commands, timeout=WAIT_S)
    assert game.returncode == 0, err
    return err


async def watch_a_lead(game: subprocess.Popen[str], urls: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ann's phone watches while a line on stdin leads for the player whose turn it is."""
    assert game.stdin is not None
    async with aiohttp.ClientSession() as client, client.ws_connect(urls["Ann"] + "/ws") as ws:
        before = json.loads((await ws.receive(timeout=WAIT_S)).data)["state"]
        leader = state(urls[before["turn"]["player"]])
        game.stdin.write(f"lead {leader['leads'][0]}\n")
        game.stdin.flush()
        while True:
            after = json.loads((await ws.receive(timeout=WAIT_S)).data)
            if after["type"] == "state" and after["state"]["moves"] == 1:
                return before, after["state"]


@pytest.mark.slow
def test_a_scripted_game_prints_addresses_serves_views_and_resumes_on_them() -> None:
    game, urls = start(PLAY)
    try:
        assert list(urls) == ["Ann", "Ben", "Cy"]
        assert all(url.startswith("http://127.0.0.1:") and "/p/" in url for url in urls.values())
        views = {name: state(url) for name, url in urls.items()}
        assert all(len(views[name]["hand"]) == views[name]["hand_sizes"][seat] for seat, name in enumerate(urls))
        assert all(card[-1] in "SHDC" for card in views["Ann"]["hand"])  # the game log's notation
        before, after = asyncio.run(watch_a_lead(game, urls))
        assert before["moves"] == 0 and after["open_rank"] is not None
        finish(game)
    finally:
        game.kill()

    resumed, again = start(RESUME)
    try:
        assert again == urls  # the same tokens, the same port
        assert state(again["Ben"])["moves"] == 1
        err = finish(resumed)
        assert "Resuming series" in err and "listening on 127.0.0.1" in err
    finally:
        resumed.kill()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--host", "127.0.0.1"], "--host and --port are for the phones' server: add --phones"),
        (["--phones", "--port", "70000"], "a port is 0-65535, not 70000"),
        (["--phones", "--host", "no.such.host.invalid"], "--host no.such.host.invalid: not an address"),
    ],
)
def test_bad_phone_options_give_one_clear_line(extra: list[str], message: str) -> None:
    argv = silent_three(*extra)
    done = subprocess.run(argv, input="quit\n", capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_quit_at_the_laptop_tells_the_phones_the_command_that_goes_on() -> None:
    async def quit_while_watching(game: subprocess.Popen[str], url: str) -> tuple[dict[str, Any], int | None]:
        assert game.stdin is not None
        async with aiohttp.ClientSession() as client, client.ws_connect(url + "/ws") as ws:
            await ws.receive(timeout=WAIT_S)
            game.stdin.write("quit\n")
            game.stdin.flush()
            last: dict[str, Any] = {}
            while (message := await ws.receive(timeout=WAIT_S)).type is aiohttp.WSMsgType.TEXT:
                parsed = json.loads(message.data)
                last = parsed.get("state", last)
            return last, ws.close_code

    game, urls = start(PLAY)
    try:
        last, code = asyncio.run(quit_while_watching(game, urls["Ben"]))
        err = finish(game, "")
    finally:
        game.kill()
    command = err.rsplit("The series is saved: ", 1)[1].split(" goes on with it.")[0]
    assert last["phase"] == "stopped" and last["resume"] == command
    assert "--resume" in command and code == 4001


MICS = [
    sys.executable,
    "-m",
    "voice_earl",
    "play",
    "--players",
    "Ann",
    "Ben",
    "Cy",
    "--deck",
    "virtual",
    "--phone-mics",
    "--no-voice",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--seed",
    "3",
    "--device",
    "no such microphone",
]  # the laptop cannot listen: the phones do, and stdin takes keys


def secure_state(url: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(secure_page(url + "/state.json"))
    return result


def secure_page(url: str) -> str:
    import ssl

    unchecked = ssl._create_unverified_context()  # the certificate is self-signed: its name is checked elsewhere
    with urllib.request.urlopen(url, timeout=WAIT_S, context=unchecked) as response:
        return str(response.read().decode("utf-8"))


@pytest.mark.slow
def test_phone_mics_serve_https_and_a_resumed_series_serves_the_same_addresses_the_same_way() -> None:
    game, urls = start(MICS)
    try:
        assert all(url.startswith("https://127.0.0.1:") for url in urls.values())
        assert secure_state(urls["Ben"])["moves"] == 0
        page = secure_page(urls["Ben"])
        err = finish(game)
    finally:
        game.kill()
    assert "the players speak into their phones; the laptop takes keys" in err
    assert "no microphone" in err and "--silent" not in err  # refused beside --phone-mics: not advised
    assert "speak to the laptop" not in page and "Tap the buttons." in page  # the laptop has just said it cannot hear
    assert "the connection is not private: tap Advanced, then Proceed" in err
    assert "Certificate fingerprint (SHA-256): " in err

    resumed, again = start(
        [
            sys.executable,
            "-m",
            "voice_earl",
            "play",
            "--resume",
            "--no-voice",
            "--host",
            "127.0.0.1",
            "--device",
            "no such microphone",
        ]
    )
    try:
        assert again == urls  # https, the same tokens and port
        finish(resumed)
    finally:
        resumed.kill()


def test_phone_mics_in_silent_earl_is_one_clear_line() -> None:
    argv = [sys.executable, "-m", "voice_earl", "play", "--players", "Ann", "Ben", "--phone-mics", "--silent"]
    done = subprocess.run(argv, input="quit\n", capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--phone-mics listens to the players' phones, and Silent Earl listens to nobody" in done.stderr
