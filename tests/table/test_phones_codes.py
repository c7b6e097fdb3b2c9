"""The phones' codes on the table screen: one player's at a time before the first deal (x or Esc asks to
quit, as everywhere in the game), and the join page's, at a key, in the middle of the game."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from typing import TextIO, cast

import pytest
from rich.console import Console
from support.table_views import bot_session

from voice_earl.table.extra_keys import JOIN_HELP
from voice_earl.table.phones.join import JoinOnScreen, show_codes
from voice_earl.table.phones.server import PhoneServer
from voice_earl.table.presenters import ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.turns import QUIT_BEFORE_PLAY, SILENT_KEYS

JOIN_URL = "http://192.168.1.20:8765/j/Hf6x11RjtHBP9E4TrUvg-g"


class Server:
    """What the screens ask of the phones' server; no phone ever joins."""

    names = ("Ann", "Ben", "Cy")
    certificate = None

    def url(self, seat: int) -> str:
        return f"http://192.168.1.20:8765/p/token-of-seat-{seat}-0123456789"

    def join_url(self) -> str:
        return JOIN_URL

    def joined(self, seat: int) -> bool:
        return False


class Screen(io.StringIO):
    """The terminal the codes are drawn on."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal() -> Iterator[tuple[TextIO, int]]:
    main, side = os.openpty()
    with os.fdopen(side, "r") as stream:
        yield stream, main
    os.close(main)


def test_on_the_code_screens_x_asks_to_quit_and_only_yes_quits(terminal: tuple[TextIO, int]) -> None:
    keys, main = terminal
    out = Screen()
    os.write(main, b"xn xy")  # Ann's code: x, no (her code stays); a space: Ben's; x, yes
    assert not show_codes(cast(PhoneServer, Server()), [0, 1, 2], out, keys, QUIT_BEFORE_PLAY)
    shown = out.getvalue()
    asked = "Quit? nothing has been played yet (y/n)"
    assert shown.count(asked) == 2
    assert shown.index(asked) < shown.index("Ben, scan this")  # x at Ann's code did not move on to Ben's
    assert "phone 1 of 3 · any key for the next player · x quit" in shown
    assert "Cy, scan this" not in shown  # quit at Ben's


def test_any_other_key_moves_on_to_the_next_players_code(terminal: tuple[TextIO, int]) -> None:
    keys, main = terminal
    out = Screen()
    os.write(main, b"  q")
    assert show_codes(cast(PhoneServer, Server()), [0, 1, 2], out, keys)
    assert "Cy, scan this" in out.getvalue() and "Quit?" not in out.getvalue()


def test_the_join_key_shows_the_join_page_over_the_table_and_takes_it_away() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, height=24, force_terminal=True, color_system=None)
    with TableScreen(console, live=True) as screen:
        view = ScreenView(bot_session(), screen, show_hands=lambda seat: False)
        view.keys = SILENT_KEYS
        view.more_keys = (JOIN_HELP,)
        view.refresh()
        assert "c join code for a phone" in out.getvalue()  # named on the key bar
        join = JoinOnScreen(cast(PhoneServer, Server()), screen)
        out.truncate(0)
        out.seek(0)
        join.toggle()
        frame = out.getvalue()
        assert join.shown and JOIN_URL in frame and "any key: back to the game" in frame
        assert "▀" in frame and "Ann" not in frame  # its code, in place of the table
        out.truncate(0)
        out.seek(0)
        join.toggle()
        assert not join.shown and JOIN_URL not in out.getvalue() and "Ann" in out.getvalue()  # the table again


def test_on_a_plain_screen_the_join_key_prints_the_join_page_address() -> None:
    out = io.StringIO()
    screen = TableScreen(Console(file=out, width=200), live=False)
    join = JoinOnScreen(cast(PhoneServer, Server()), screen)
    join.toggle()
    assert out.getvalue() == f"join page with every code: {JOIN_URL}\n" and not join.shown
