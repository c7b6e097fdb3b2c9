"""The keys that stop a game, played at a real terminal of 80x24: x or Esc on the deal-over view and on the
phones' code screens asks "Quit?" as at a turn, and only yes quits; the phones' join code comes at a key."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.patience import WAIT_S
from support.terminal_game import TerminalGame

from voice_earl.game.moves import Action, Lead, Pass
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, TableSettings

pytestmark = pytest.mark.slow  # the game started as a subprocess

SILENT = ["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--silent", "--no-voice", "--seed", "3"]


def env(tmp_path: Path) -> dict[str, str]:
    return {"VOICE_EARL_DATA_DIR": str(tmp_path / "data"), "VOICE_EARL_CONFIG_DIR": str(tmp_path / "config")}


def key_of(action: Action) -> str:
    if isinstance(action, Pass):
        return " "
    if isinstance(action, Lead):
        return {"10": "0"}.get(action.rank.value, action.rank.value).lower()
    return "\r"


def keys_of_the_first_deal(deals: int) -> str:
    """The keys that play the first deal out, no more: a key typed ahead of the deal-over view would go on."""
    names = ("Ann", "Ben", "Cy")
    deal = TableSession(TableSettings(tuple(map(Seat, names)), HOYLE, DeckMode.VIRTUAL, deals, seed=3), {}).deal
    keys = ""
    while not deal.over:
        action = deal.legal_actions()[0]
        keys += key_of(action)
        deal.apply(action)
    return keys


def test_on_the_deal_over_view_x_and_esc_ask_first_and_yes_quits_before_the_next_deal(tmp_path: Path) -> None:
    game = TerminalGame([*SILENT, "--deals", "2"], env(tmp_path))
    try:
        game.wait_for("space pass")
        game.press(keys_of_the_first_deal(2))
        game.wait_for("any key: next deal · x quit")
        since = game.mark()
        game.press("x")
        game.wait_for("Quit? the series is saved (y/n)", since)
        game.press("n")
        game.wait_for("Not quitting: the game goes on.", since)
        since = game.mark()
        game.press("\x1b")
        game.wait_for("Quit? the series is saved (y/n)", since)
        game.press("y")
        code = game.process.wait(timeout=WAIT_S)
        screen = game.screen_text()
    finally:
        game.close()
    assert code == 0, game.tail()
    assert "Deal2." not in screen  # the next deal was never dealt ("Deal 2. Ann deals.")
    assert game.seen("The series is saved: voice-earl play --resume 1 goes on with it.")


def test_on_the_phones_code_screens_x_asks_first_and_yes_ends_the_game_before_it_begins(tmp_path: Path) -> None:
    game = TerminalGame([*SILENT, "--phones", "--host", "127.0.0.1", "--port", "0"], env(tmp_path))
    try:
        game.wait_for("Ann, scan this")
        game.press("x")
        game.wait_for("Quit? nothing has been played yet (y/n)")
        since = game.mark()
        game.press("n")  # Ann's code stays
        game.press(" ")
        game.wait_for("Ben, scan this", since)
        since = game.mark()
        game.press("x")
        game.wait_for("Quit? nothing has been played yet (y/n)", since)
        game.press("y")
        code = game.process.wait(timeout=WAIT_S)
        screen = game.screen_text()
    finally:
        game.close()
    assert code == 0, game.tail()
    assert game.seen("Stopped before the first deal: nothing was played.")
    assert "Cy,scanthis" not in screen


def test_mid_game_a_key_shows_the_phones_join_code_and_any_key_takes_it_away(tmp_path: Path) -> None:
    game = TerminalGame([*SILENT, "--phones", "--host", "127.0.0.1", "--port", "0"], env(tmp_path))
    try:
        game.wait_for("Ann, scan this")
        game.press("   ")  # past the three players' codes
        game.wait_for("x quit · c join code for a phone")  # named on the key bar
        since = game.mark()
        game.press("c")
        game.wait_for("any key: back to the game", since)
        assert "/j/" in game.screen_text()[since:]  # the join page's address, under its code
        since = game.mark()
        game.press("x")  # takes the code away, and does not quit
        game.wait_for("space pass", since)
        assert "Quit?" not in game.screen_text()[since:]
        game.press("x")
        game.wait_for("Quit? the series is saved (y/n)", since)
        game.press("y")
        code = game.process.wait(timeout=WAIT_S)
    finally:
        game.close()
    assert code == 0, game.tail()
