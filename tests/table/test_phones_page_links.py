"""The phone's page and its link to the laptop, in real headless Chromium: a socket that dies
without a word, the game's end and a quit at the laptop, the waiting page and the join page."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect
from support.patience import WAIT_S
from support.phones_browser import PhonePage, browser
from support.phones_table import FAST, keys_to_the_end, phone_table, wait_for

from voice_earl.table.phones.hub import serve_phones
from voice_earl.table.phones.tokens import PhoneTokens

__all__ = ["browser"]  # the fixture

pytestmark = pytest.mark.slow


class Relay:
    """A TCP relay on 127.0.0.1 in front of the phones' server, like a Wi-Fi between a phone and the
    laptop. ``silent``: it stops carrying anything either way and closes nothing, as a Wi-Fi that
    drops without a word does (no FIN, no RST: the browser's socket stays open)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.silent = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                phone, _address = self.listener.accept()
                laptop = socket.create_connection(("127.0.0.1", self.target))
                self.held += [phone, laptop]
                for source, sink in ((phone, laptop), (laptop, phone)):
                    threading.Thread(target=self._carry, args=(source, sink), daemon=True).start()

    def _carry(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if not self.silent.is_set():
                    sink.sendall(data)

    def close(self) -> None:
        self.listener.close()
        for held in self.held:
            held.close()


@contextlib.contextmanager
def relay(port: int) -> Iterator[Relay]:
    found = Relay(port)
    try:
        yield found
    finally:
        found.close()


def test_a_socket_that_dies_without_a_word_is_seen_within_seconds(browser: Browser) -> None:
    with phone_table(seed=5, limits=FAST) as table, relay(table.phones.server.port) as wifi:
        leader = wait_for(table, lambda s: bool(s["turn"] and s["turn"]["id"]))["turn"]["seat"]
        url = table.url(leader).replace(f":{table.phones.server.port}/", f":{wifi.port}/")
        with PhonePage(browser, url) as phone:
            page = phone.page
            expect(page.locator("#leads button").first).to_be_enabled()
            expect(page.locator("#link")).to_have_class("dot on")
            wifi.silent.set()
            # Pings go unanswered: within seconds (not the 45 s and more of old), the page says so.
            expect(page.locator("#link")).not_to_have_class("dot on")
            expect(page.locator("#status")).to_have_text("Connection lost: trying again…")
            expect(page.locator("#leads button").first).to_be_disabled()  # a tap now would be lost
            wifi.silent.clear()
            expect(page.locator("#status")).to_be_hidden()  # and back by itself
            expect(page.locator("#leads button").first).to_be_enabled()
            assert not phone.errors


def test_a_tap_lost_with_the_connection_can_be_made_again_once_the_phone_is_back(browser: Browser) -> None:
    """A tap sent into a Wi-Fi that has just dropped never reaches the laptop: back on the same turn, the
    buttons work again (they stayed grey, waiting for an answer that could not come, until a reload)."""
    with phone_table(seed=5, limits=FAST) as table, relay(table.phones.server.port) as wifi:
        start = wait_for(table, lambda s: bool(s["turn"] and s["turn"]["id"]))
        url = table.url(start["turn"]["seat"]).replace(f":{table.phones.server.port}/", f":{wifi.port}/")
        with PhonePage(browser, url) as phone:
            rank = phone.page.locator("#leads button").first
            expect(rank).to_be_enabled()
            wifi.silent.set()
            phone.tap("#leads button >> nth=0")
            expect(phone.page.locator("#status")).to_have_text("Connection lost: trying again…")
            wifi.silent.clear()
            expect(phone.page.locator("#status")).to_be_hidden()
            assert wait_for(table, lambda s: True)["moves"] == start["moves"]  # the tap was lost
            expect(rank).to_be_enabled()
            phone.tap("#leads button >> nth=0")
            wait_for(table, lambda s: s["moves"] == start["moves"] + 1)
            assert not phone.errors


def test_a_quit_at_the_laptop_is_said_on_the_phone_with_how_to_go_on(browser: Browser) -> None:
    with phone_table(seed=5, resume="voice-earl play --resume 3") as table, PhonePage(browser, table.url(1)) as ben:
        page = ben.page
        expect(page.locator("#hand .card").first).to_be_visible()
        table.commands.put("quit")
        table.thread.join(timeout=WAIT_S)
        table.phones.server.stop()  # as the game's end does
        expect(page.locator("#whose")).to_have_text("Stopped at the laptop.")
        expect(page.locator("#hint")).to_have_text(
            "voice-earl play --resume 3 goes on with the series, and this page comes back by itself then."
        )
        expect(page.locator("#actions")).to_be_hidden()
        page.wait_for_timeout(6000)  # a try to come back has failed by now: it is still no lost connection
        expect(page.locator("#status")).not_to_contain_text("Connection lost")
        expect(page.locator("#whose")).to_have_text("Stopped at the laptop.")
        assert not ben.errors


def test_the_end_of_the_series_is_said_on_the_phone_which_stops_trying(browser: Browser) -> None:
    """The headline names who won the game (first in the standings), the last deal's result under it."""
    with phone_table(seed=5, deals=2, limits=FAST) as table, PhonePage(browser, table.url(1)) as ben:
        page = ben.page
        expect(page.locator("#hand .card").first).to_be_visible()
        sockets: list[str] = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        keys_to_the_end(table)
        final = keys_to_the_end(table)
        table.thread.join(timeout=WAIT_S)
        table.phones.server.stop()
        first = [standing for standing in final["standings"] if standing["place"] == 1]
        assert len(first) == 1, final["standings"]
        won = "You win the game." if first[0]["seat"] == 1 else f"{first[0]['name']} wins the game."
        expect(page.locator("#whose")).to_have_text(won)
        expect(page.locator("#hint")).to_contain_text("Deal 2 is over: ")
        expect(page.locator("#standings-title")).to_have_text("Final standings")
        expect(page.locator("main")).to_contain_text("The game has ended.")
        expect(page.locator("#standings li")).to_have_count(3)
        page.wait_for_timeout(3000)
        assert sockets == []  # no new socket: there is nothing to come back to
        expect(page.locator("#status")).to_have_text("The game has ended.")
        assert not ben.errors


def test_the_waiting_page_says_who_has_joined(browser: Browser) -> None:
    names = ("Ann", "Ben", "Cy")
    with (
        serve_phones(names, range(3), PhoneTokens.new(names), "127.0.0.1", 0) as phones,
        PhonePage(browser, phones.server.url(1)) as ben,
    ):
        expect(ben.page.locator("#whose")).to_have_text("Waiting for the game to begin…")
        expect(ben.page.locator("#hint")).to_have_text("Here: Ben · not yet: Ann, Cy")
        with PhonePage(browser, phones.server.url(2)):
            expect(ben.page.locator("#hint")).to_have_text("Here: Ben, Cy · not yet: Ann")


def test_a_quit_at_the_laptop_before_the_game_begins_is_said_on_a_waiting_phone(browser: Browser) -> None:
    """Quit at the code screens: the waiting page no longer waits for a game that is not coming."""
    names = ("Ann", "Ben", "Cy")
    with serve_phones(names, range(3), PhoneTokens.new(names), "127.0.0.1", 0) as phones:
        ben = PhonePage(browser, phones.server.url(1))
        expect(ben.page.locator("#whose")).to_have_text("Waiting for the game to begin…")
    with ben:
        expect(ben.page.locator("#whose")).to_have_text("Stopped at the laptop.")
        expect(ben.page.locator("#hint")).to_have_text("")
        expect(ben.page.locator("#status")).to_be_hidden()
        assert not ben.errors


@pytest.mark.parametrize("screen", [(1280, 800), (1024, 768), (768, 1024)])
def test_the_join_page_shows_one_code_at_a_time(browser: Browser, screen: tuple[int, int]) -> None:
    """A camera aimed at one player's code never has a neighbour's in view (with it, their hand)."""
    names = ("Ann", "Ben", "Cy", "Di")
    width, height = screen
    with (
        serve_phones(names, range(4), PhoneTokens.new(names), "127.0.0.1", 0) as phones,
        PhonePage(browser, phones.server.join_url(), {"width": width, "height": height}) as join,
    ):
        codes = join.page.locator("svg.qr")
        expect(codes).to_have_count(4)
        for index in range(4):
            join.page.locator("section.join").nth(index).evaluate("s => s.scrollIntoView({block: 'start'})")
            join.page.wait_for_timeout(100)
            in_view = join.page.evaluate(
                "() => [...document.querySelectorAll('svg.qr')].map(q => q.getBoundingClientRect())"
                ".map(r => r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth)"
            )
            assert in_view == [i == index for i in range(4)], (screen, index, in_view)
            box = join.box(f"section.join >> nth={index} >> svg.qr")
            assert box["y"] >= 0 and box["y"] + box["height"] <= height  # the whole of this one
            assert box["width"] >= 200  # large enough to scan from across the table


def test_a_phone_that_opened_the_join_page_taps_its_players_address_to_play(browser: Browser) -> None:
    """A phone that comes late may scan the join page's code off the table screen (the `c` key): it cannot
    scan its own screen, so each address there is a link to that player's page."""
    names = ("Ann", "Ben", "Cy")
    with (
        serve_phones(names, range(3), PhoneTokens.new(names), "127.0.0.1", 0) as phones,
        PhonePage(browser, phones.server.join_url()) as cy,
    ):
        address = cy.page.locator("section.join >> nth=2 >> p.url a")
        expect(address).to_have_text(phones.server.url(2))
        address.scroll_into_view_if_needed()
        address.tap()
        cy.page.wait_for_url(phones.server.url(2))
        expect(cy.page.locator("#whose")).to_have_text("Waiting for the game to begin…")
        expect(cy.page.locator("#hint")).to_contain_text("Here: Cy")
        assert not cy.errors


def test_a_pause_at_the_laptop_says_so_on_the_phone_and_how_the_game_goes_on(browser: Browser) -> None:
    """Paused by the laptop's p, the leader's phone says so and how it goes on; its rank buttons wait,
    so the note that asks for a tap on one is gone until the game goes on."""
    with phone_table(seed=5, limits=FAST) as table:
        leader = wait_for(table, lambda state: bool(state["turn"] and state["turn"]["id"]))["turn"]["seat"]
        with PhonePage(browser, table.url(leader)) as phone:
            page = phone.page
            expect(page.locator("#lead-note")).to_have_text("Tap the rank you lead")
            table.commands.put("pause")
            expect(page.locator("#whose")).to_have_text("Paused")
            expect(page.locator("#hint")).to_have_text("The laptop's p goes on with the game.")
            expect(page.locator("#lead-note")).to_have_text("")
            table.commands.put("pause")
            expect(page.locator("#whose")).to_have_text("Your turn")
            expect(page.locator("#lead-note")).to_have_text("Tap the rank you lead")
            assert not phone.errors
