"""A phone's page in real headless Chromium at 360x640, tapped with real touch events: the hand,
the line to say, the buttons the rules allow, a double tap, a lead, notices and the end of a deal;
and at that size, with and without --phone-mics, thumb-sized rank buttons, indices that read apart
on overlapped cards (Tens too), and every player's card count in view."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from support.phones_browser import PHONE, PhonePage, browser
from support.phones_table import FAST, choose, keys_to_the_end, keys_until, my_turn, phone_table, view, wait_for

from voice_earl.game.cards import Rank
from voice_earl.i18n import rank_plural
from voice_earl.table.phones.mics import MicLimits

__all__ = ["browser"]  # the fixture

pytestmark = pytest.mark.slow


def test_a_phone_shows_its_hand_and_passes_in_real_chromium(browser: Browser, tmp_path: Path) -> None:
    with phone_table(seed=5, limits=FAST) as table, PhonePage(browser, table.url(1)) as ben:
        page = ben.page
        hand = view(table, 1)["hand"]
        expect(page.locator("#hand .card")).to_have_count(len(hand))
        shown = page.locator("#hand .card").evaluate_all("cards => cards.map(c => c.getAttribute('aria-label'))")
        assert shown == hand
        assert page.evaluate("document.documentElement.scrollWidth") <= 360  # nothing wider than the phone

        due = keys_until(
            table, lambda s: s["seat"] == 1 and s["due"]["rank"] is not None and choose(s) == ("pass", None)
        )
        expect(page.locator("#whose")).to_have_text("Your turn")
        # Ben holds none of the rank: he is told to say "I pass", and Pass is the one button that works.
        expect(page.locator("#line")).to_have_text("Say: I pass")
        expect(page.locator("#pass")).to_be_enabled()
        expect(page.locator("#play")).to_be_disabled()
        assert "primary" in (page.locator("#pass").get_attribute("class") or "")
        assert ben.box("#pass")["height"] >= 44  # a thumb-sized button
        page.screenshot(path=str(tmp_path / "must-pass.png"))
        ben.tap("#pass")

        expect(page.locator("#last")).to_have_text("You pass")  # Ben's own phone speaks to Ben
        expect(page.locator("#whose")).not_to_have_text("Your turn")
        assert view(table, 0)["moves"] == due["moves"] + 1
        assert view(table, 0)["last"] == "Ben passes"
        assert not ben.errors


def test_a_double_tap_on_play_that_ends_a_quartet_leads_no_rank(browser: Browser) -> None:
    """The fourth card of a rank makes its player lead next: the second tap of a double tap on Play
    must not land on a rank button (nor say that it is someone else's turn)."""
    with phone_table(seed=5, limits=FAST) as table:
        due = keys_until(table, lambda s: s["due"]["position"] == 4 and choose(s) == ("play", None))
        seat = due["seat"]
        with PhonePage(browser, table.url(seat)) as phone:
            page = phone.page
            expect(page.locator("#play")).to_be_enabled()
            x, y = phone.centre("#play")
            page.touchscreen.tap(x, y)
            expect(page.locator("#leads button").first).to_be_visible()  # the player's lead is on the screen
            page.touchscreen.tap(x, y)  # the finger comes down again at once
            assert phone.at(x, y)["parent"] != "leads", "a rank button lies where Play was"
            wait_for(table, lambda state: state["moves"] > due["moves"], seat)  # the Play
            page.wait_for_timeout(1500)  # time enough for a lead, if the second touch made one
            after = view(table, seat)
            assert after["moves"] == due["moves"] + 1 and after["legal"] == ["lead"]  # the Play, and no lead
            expect(page.locator("#notice")).to_be_hidden()

            rank = after["leads"][0]  # once the lead has been on the screen a moment, a rank button works
            phone.tap(f"#leads button:text-is('{rank}')")
            wait_for(table, lambda s: s["moves"] == due["moves"] + 2 and s["open_rank"] == rank)
            assert not phone.errors


def test_a_lead_on_a_small_phone_leaves_the_hand_and_the_last_line_in_view(browser: Browser, tmp_path: Path) -> None:
    with phone_table(seed=5, limits=FAST) as table:
        leader = wait_for(table, lambda s: bool(s["turn"] and s["turn"]["id"]))["turn"]["seat"]
        start = view(table, leader)
        with PhonePage(browser, table.url(leader)) as phone:
            page = phone.page
            expect(page.locator("#leads button")).to_have_count(len(start["leads"]))
            page.screenshot(path=str(tmp_path / "lead.png"))
            # The real words of the lead's line, with a blank for the rank the player chooses.
            expect(page.locator("#line")).to_have_text("Say: There's as good as ____ can be")
            footer = phone.box("#actions")
            assert footer["height"] <= 0.3 * PHONE["height"], footer
            for card in page.locator("#hand .card").all():  # the whole hand, without scrolling
                box = card.bounding_box()
                assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= footer["y"], box
            page.locator("#page").evaluate("main => main.scrollTo(0, main.scrollHeight)")
            last = phone.box("#last")
            assert last["y"] + last["height"] <= footer["y"]  # and, scrolled, the last line too
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_end_of_a_deal_shows_at_once_until_the_next_deal_begins(browser: Browser, tmp_path: Path) -> None:
    with phone_table(seed=5, deals=2, limits=FAST, hold=True) as table, PhonePage(browser, table.url(0)) as ann:
        page = ann.page
        expect(page.locator("#hand .card").first).to_be_visible()
        over = keys_to_the_end(table)  # the table waits before the next deal, as players do
        result = over["last_deal"]
        winner = "you" if result["yours"] else result["winner"]
        expect(page.locator("#whose")).to_have_text(
            "Deal 1 is over: you won." if result["yours"] else f"Deal 1 is over: {winner} won."
        )
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#standings li")).to_have_count(3)
        expect(page.locator("#payments li").first).to_be_visible()
        expect(page.locator("#actions")).to_be_hidden()  # nothing covers it
        page.screenshot(path=str(tmp_path / "deal-over.png"))

        table.commands.put("next")
        expect(page.locator("#result")).to_be_hidden()
        expect(page.locator("#deal")).to_have_text("Deal 2 of 2")
        assert not ann.errors


def test_idle_buttons_are_disabled_and_a_notice_ends_with_its_turn(browser: Browser) -> None:
    with phone_table(seed=5, limits=FAST) as table:
        due = keys_until(table, lambda s: s["seat"] == 1 and s["due"]["rank"] is not None)
        with PhonePage(browser, table.url(2)) as cy, PhonePage(browser, table.url(1)) as ben:
            expect(cy.page.locator("#whose")).to_have_text("Ben's turn")
            expect(cy.page.locator("#pass")).to_be_disabled()  # not Cy's turn: the buttons do nothing, and say so
            expect(cy.page.locator("#play")).to_be_disabled()
            expect(ben.page.locator("#whose")).to_have_text("Your turn")
            table.commands.put("lead K")  # typed at the laptop: refused, and Ben's phone shows why
            ranks = rank_plural(Rank.parse(due["due"]["rank"])).lower()
            expect(ben.page.locator("#notice")).to_have_text(f"the {ranks} are open: play one (enter) or pass (space)")
            table.commands.put(choose(due)[0])  # Ben's move: his turn is over, and so is the notice
            expect(ben.page.locator("#whose")).not_to_have_text("Your turn")
            expect(ben.page.locator("#notice")).to_be_hidden()
            assert not cy.errors and not ben.errors


def test_a_move_taken_back_is_shown_in_view_until_the_turn_it_brought_back_is_over(browser: Browser) -> None:
    with phone_table(seed=5, limits=FAST) as table:
        keys_until(table, lambda s: s["moves"] >= 2 and s["seat"] == 2)
        with PhonePage(browser, table.url(2)) as cy:
            page = cy.page
            expect(page.locator("#whose")).to_have_text("Your turn")
            expect(page.locator("#notice")).to_be_hidden()  # the page opened after no undo
            table.commands.put("undo")  # at the laptop: Ben's move is taken back
            expect(page.locator("#notice")).to_have_text("Taken back: Ben's last move.")
            page.wait_for_timeout(500)  # the states that follow an undo (a turn id, a pause) do not end it
            expect(page.locator("#notice")).to_be_visible(timeout=1)
            notice, footer = cy.box("#notice"), cy.box("#actions")
            assert notice["y"] >= 0 and notice["y"] + notice["height"] <= footer["y"], (notice, footer)
            with PhonePage(browser, table.url(1)) as ben:  # a page loaded after the undo: old news, no notice
                expect(ben.page.locator("#whose")).to_have_text("Your turn")
                expect(ben.page.locator("#last")).to_have_text("Taken back: your last move.")
                assert ben.page.locator("#notice").is_hidden()  # now: a notice shown would hide itself in 8 s
            action, rank = choose(wait_for(table, my_turn, seat=1))
            table.commands.put(f"lead {rank}" if action == "lead" else action)
            expect(page.locator("#notice")).to_be_hidden()  # Ben moved again: the notice has ended
            assert not cy.errors


def test_every_name_is_shown_on_the_phones_exactly_as_typed(browser: Browser, tmp_path: Path) -> None:
    names = ("[/]", "<b>Jo</b> &amp;", "[blink red]Ben")
    with phone_table(names, seed=5, deals=1, limits=FAST) as table, PhonePage(browser, table.url(1)) as jo:
        page = jo.page
        expect(page.locator("#hand .card").first).to_be_visible()
        assert page.title() == f"{names[1]} · voice-earl"
        expect(page.locator("#me")).to_have_text(names[1])
        shown = page.locator("#players tbody tr td:first-child").evaluate_all(
            "cells => cells.map(cell => cell.firstChild.textContent)"
        )
        assert shown == list(names)
        over = keys_to_the_end(table)
        expect(page.locator("#result")).to_be_visible()
        standings = page.locator("#standings li").all_text_contents()
        assert sorted(standings) == sorted(f"{p['name']} {p['total']}" for p in over["standings"])
        page.screenshot(path=str(tmp_path / "names.png"))
        join = browser.new_page()
        join.goto(table.phones.server.join_url())
        cards = join.locator("h2").all_text_contents()
        assert cards == [f"{name}, scan this" for name in names], cards
        join.close()
        assert not jo.errors


@contextmanager
def a_lead_and_a_wait(browser: Browser, mics: bool) -> Iterator[tuple[PhonePage, PhonePage, list[dict[str, object]]]]:
    """The first leader's phone (ten ranks to lead, three Tens in hand) and the next player's, at 360x640,
    with (over plain HTTP: 127.0.0.1 is a secure origin) or without Hold to speak; and the players."""
    with phone_table(seed=5, limits=FAST, mics=MicLimits() if mics else None) as table:
        leader = wait_for(table, lambda s: bool(s["turn"] and s["turn"]["id"]))["turn"]["seat"]
        start = view(table, leader)
        assert len(start["leads"]) == 10 and sum(card.startswith("10") for card in start["hand"]) == 3
        with PhonePage(browser, table.url(leader)) as lead, PhonePage(browser, table.url((leader + 1) % 3)) as idle:
            expect(lead.page.locator("#leads button")).to_have_count(10)
            for phone in (lead, idle):
                expect(phone.page.locator("#hand .card").first).to_be_visible()
                if mics:
                    expect(phone.page.locator("#hold")).to_be_visible()
            yield lead, idle, start["players"]
            assert not lead.errors and not idle.errors


@pytest.mark.parametrize("mics", [False, True], ids=["buttons", "phone-mics"])
def test_the_rank_buttons_of_a_lead_are_at_least_44_px_square(browser: Browser, mics: bool, tmp_path: Path) -> None:
    with a_lead_and_a_wait(browser, mics) as (lead, _idle, _players):
        lead.page.screenshot(path=str(tmp_path / "lead.png"))
        boxes = [button.bounding_box() for button in lead.page.locator("#leads button").all()]
    assert all(box is not None and box["width"] >= 44 and box["height"] >= 44 for box in boxes), boxes


# How much felt there is between each overlapped card's index (its glyphs, not its box) and the next card.
CLEARANCE = """() => [...document.querySelectorAll('#hand .card + .card')].map(next => {
  const index = next.previousElementSibling.querySelector('.r');
  const glyphs = document.createRange();
  glyphs.selectNodeContents(index);
  return [index.textContent, next.getBoundingClientRect().left - glyphs.getBoundingClientRect().right];
})"""


def test_every_overlapped_card_s_index_reads_apart_from_the_next_card_tens_too(browser: Browser) -> None:
    with a_lead_and_a_wait(browser, mics=False) as (lead, _idle, _players):
        clearances = lead.page.evaluate(CLEARANCE)
    assert {rank for rank, _ in clearances} >= {"10", "3"}
    assert all(clear >= 5 for _, clear in clearances), clearances  # a Ten's as well as a Three's


@pytest.mark.parametrize("mics", [False, True], ids=["buttons", "phone-mics"])
def test_every_player_s_card_count_is_in_view_at_a_lead_and_at_another_s_turn(
    browser: Browser, mics: bool, tmp_path: Path
) -> None:
    with a_lead_and_a_wait(browser, mics) as (lead, idle, players):
        seen = []
        for name, phone in (("lead", lead), ("idle", idle)):
            phone.page.screenshot(path=str(tmp_path / f"{name}.png"))
            counts, footer = phone.box("#counts"), phone.box("#actions")
            seen.append(
                (counts["y"] >= 0 and counts["y"] + counts["height"] <= footer["y"], phone.page.inner_text("#counts"))
            )
    for in_view, text in seen:
        assert in_view
        assert all(f"{player['name']} {player['cards']}" in text for player in players), text


@pytest.mark.parametrize("screen", [(640, 360), (844, 390)], ids=["small", "large"])
def test_a_lead_on_a_phone_on_its_side_keeps_the_rank_buttons_on_one_row_and_cards_in_view(
    browser: Browser, screen: tuple[int, int], tmp_path: Path
) -> None:
    """Turned on its side, a phone is 360 px tall: ten rank buttons in two rows (and the tablet's large
    cards on a wide one) left not one card of the hand in view above them."""
    width, height = screen
    with phone_table(seed=5, limits=FAST) as table:
        leader = wait_for(table, lambda s: bool(s["turn"] and s["turn"]["id"]))["turn"]["seat"]
        with PhonePage(browser, table.url(leader), {"width": width, "height": height}) as phone:
            buttons = phone.page.locator("#leads button")
            expect(buttons).to_have_count(10)
            phone.page.screenshot(path=str(tmp_path / "on-its-side.png"))
            boxes = [button.bounding_box() or {} for button in buttons.all()]
            first_card, footer = phone.box("#hand .card >> nth=0"), phone.box("#actions")
            assert not phone.errors
    assert len({box["y"] for box in boxes}) == 1, boxes  # one row
    assert all(box["width"] >= 44 and box["height"] >= 44 for box in boxes), boxes
    assert first_card["y"] >= 0 and first_card["y"] + first_card["height"] <= footer["y"], (first_card, footer)


def test_a_long_name_in_the_header_leaves_the_deal_on_one_line(browser: Browser) -> None:
    names = ("Ann", "Bartholomew-Maximilian von Habsburg", "Cy")
    with phone_table(names, seed=5, limits=FAST) as table, PhonePage(browser, table.url(1)) as ben:
        deal = ben.page.locator("#deal")
        expect(deal).to_have_text("Deal 1 of 1")
        line = float(deal.evaluate("d => parseFloat(getComputedStyle(d).lineHeight)"))
        assert ben.box("#deal")["height"] < 1.5 * line  # "Deal 1 of 1" was cut after "Deal 1"
        assert ben.box("#me")["x"] + ben.box("#me")["width"] <= PHONE["width"]
        assert not ben.errors
