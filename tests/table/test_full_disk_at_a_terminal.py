"""A full disk, a move the players take back, and the disk freed again, played at a real terminal on a
real tmpfs: the saved series is always the game the players played, and a legal one.

A silent virtual game: the leader leads, the disk fills, the next move cannot be saved and the players go
on (`y`); two undos take that move back and then the saved lead, whose taking back cannot be saved either
(`y` again); the disk is freed and the leader leads another rank; the series is played out.

With phones, a move tapped on a phone cannot be saved: while the laptop asks, the phones show the game
paused, and a second tap for the same turn is refused, not taken and dropped.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from support.phones_table import Phone, choose, my_turn
from support.storage_faults import fill_disk, small_disk
from support.terminal_game import TerminalGame

from voice_earl.game.gamelog import replay
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, TableSettings

PLAY = [
    "play",
    "--players",
    "Ann",
    "Ben",
    "Cy",
    "--deck",
    "virtual",
    "--deals",
    "1",
    "--seed",
    "3",
    "--silent",
    "--no-voice",
    "--open-hands",
]
EVERY_KEY = "\r a234567890jqk"  # play, pass, and a lead of every rank: one of them is a move at any turn


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with small_disk(tmp_path / "disk", "4m") as folder:
        yield folder


def stored(database: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        return [json.loads(body) for (body,) in db.execute("SELECT body FROM events WHERE series_id = 1 ORDER BY seq")]


def status(database: Path) -> str:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        (found,) = db.execute("SELECT status FROM series WHERE id = 1").fetchone()
        return str(found)


def key_of(card: str) -> str:
    rank = card[:-1]
    return {"10": "0", "A": "a", "J": "j", "Q": "q", "K": "k"}.get(rank, rank)


@pytest.mark.slow  # a whole deal typed at a terminal (test_saving_failures has the same at the journal, fast)
def test_a_move_taken_back_on_a_full_disk_is_never_saved_and_the_one_made_instead_is(disk: Path) -> None:
    data = disk / "data"
    database = data / "voice-earl.sqlite3"
    game = TerminalGame(PLAY, {"VOICE_EARL_DATA_DIR": str(data), "VOICE_EARL_CONFIG_DIR": str(disk / "config")})
    try:
        game.wait_for("space pass")
        deal = TableSession(
            TableSettings(tuple(map(Seat, ("Ann", "Ben", "Cy"))), HOYLE, DeckMode.VIRTUAL, deals=1, seed=3), {}
        ).records[0]  # the deal on the screen
        leader = (deal["dealer"] + 1) % 3
        after = (leader + 1) % 3
        ranks = sorted({card[:-1] for card in deal["hands"][leader]})
        first, other = ranks[0], ranks[1]
        game.press(key_of(first + "S"))
        game.wait_for(lambda: len(stored(database)) >= 2)
        assert stored(database)[1]["event"] == "lead"

        filler = fill_disk(disk)
        holds = any(card[:-1] == first for card in deal["hands"][after])
        game.press("\r" if holds else " ")  # the next move: it cannot be saved
        game.wait_for("Go on without saving?")
        game.press("y")
        since = game.mark()
        game.press("u")  # takes back the move that was not saved
        game.wait_for("Taken back:", since)
        since = game.mark()
        game.press("u")  # takes back the saved lead: taking it back cannot be saved
        game.wait_for("Go on without saving?", since)
        game.press("y")
        filler.unlink()
        game.press(key_of(other + "S"))  # another lead, with room on the disk again
        code = game.play_out(EVERY_KEY)
        screen = game.screen_text()
    finally:
        game.close()

    assert "Traceback" not in screen and "Loggingerror" not in screen  # the screen's text, without spaces
    assert code == 0, game.tail()
    log = stored(database)
    assert log[1]["event"] == "lead" and log[1]["rank"] == other  # the lead taken back is gone
    series = replay(log, HOYLE, deck=DeckMode.VIRTUAL, seed=3, deals=1)  # the engine's own check
    assert series.over
    assert status(database) == "finished"
    mirror = (data / "series" / "series-1.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in mirror] == log


PHONES = re.compile(r"voice-earl:(Ann|Ben|Cy)(http://127\.0\.0\.1:\d+/p/[\w-]{22})")


async def tap_while_saving_fails(game: TerminalGame, urls: dict[str, str], disk: Path) -> list[dict[str, Any]]:
    """The player on turn taps, and the disk is full: what their phone hears while the laptop asks (the
    answer to the tap, the state, the answer to a second tap), and the state once the players go on."""
    async with aiohttp.ClientSession() as client:
        phones = {name: Phone(await client.ws_connect(url + "/ws")) for name, url in urls.items()}
        first = await phones["Ann"].until(lambda state: bool(state["turn"] and state["turn"]["id"]))
        phone = phones[first["turn"]["player"]]
        shown = await phone.until(my_turn)
        action, rank = choose(shown)
        filler = fill_disk(disk)
        await phone.tap(action, rank)
        answer = await phone.reply()
        await asyncio.to_thread(game.wait_for, "Go on without saving?")
        waiting = await phone.until(lambda state: state["paused"])
        await phone.tap(action, rank, turn=shown["turn"]["id"])
        again = await phone.reply()
        game.press("y")
        went_on = await phone.until(lambda state: state["moves"] > shown["moves"])
        filler.unlink()
        for each in phones.values():
            await each.ws.close()
    return [shown, answer, waiting, again, went_on]


@pytest.mark.slow
def test_while_the_laptop_asks_whether_to_go_on_the_phones_show_the_pause_and_refuse_a_tap(disk: Path) -> None:
    data = disk / "data"
    argv = [*PLAY, "--phones", "--host", "127.0.0.1", "--port", "0"]
    game = TerminalGame(argv, {"VOICE_EARL_DATA_DIR": str(data), "VOICE_EARL_CONFIG_DIR": str(disk / "config")})
    try:
        game.wait_for("phone 1 of 3")
        urls = dict(PHONES.findall(game.screen_text()))
        for next_screen in ("phone 2 of 3", "phone 3 of 3", "space pass"):  # a key moves on from each code
            since = game.mark()
            game.press("n")
            game.wait_for(next_screen, since)
        shown, answer, waiting, again, went_on = asyncio.run(tap_while_saving_fails(game, urls, disk))
        game.press("x")
        game.wait_for("Quit?")
        game.press("y")
        code = game.process.wait(timeout=30)
        screen = game.screen_text()
    finally:
        game.close()
    turn = shown["turn"]["id"]
    assert answer == {"type": "accepted", "turn": turn}
    assert waiting["paused"] and "waits for an answer at the laptop" in waiting["pause_reason"]
    assert waiting["hand"] == shown["hand"] and waiting["moves"] == shown["moves"]  # the move is not kept yet
    assert again == {"type": "refused", "reason": waiting["pause_reason"], "turn": turn}
    assert not went_on["paused"] and went_on["moves"] == shown["moves"] + 1
    assert code == 0 and "Traceback" not in screen
