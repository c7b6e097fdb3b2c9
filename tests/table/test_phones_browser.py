"""A phone's page in real headless Chromium (Debian's ``chromium``, driven by Playwright) at 360x640:
the hand shows, Pass is tapped on the player's turn, and the game moves."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from phones_table import PhoneTable, choose, phone_table

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]


def view(table: PhoneTable, seat: int) -> dict[str, Any]:
    with urllib.request.urlopen(table.url(seat) + "/state.json") as response:
        result: dict[str, Any] = json.load(response)
        return result


def wait_for_moves(table: PhoneTable, seat: int, moves: int) -> dict[str, Any]:
    deadline = time.monotonic() + 5
    while (state := view(table, seat))["moves"] < moves:
        assert time.monotonic() < deadline, state
        time.sleep(0.01)
    return state


def play_until_seat_may_pass(table: PhoneTable, seat: int) -> dict[str, Any]:
    """Drive the game from the keyboard (a pipe) until ``seat`` is due a rank it does not hold."""
    state = view(table, seat)
    while True:
        on_turn = view(table, state["turn"]["seat"])
        if on_turn["seat"] == seat and choose(on_turn) == ("pass", None):
            return on_turn
        action, rank = choose(on_turn)
        table.commands.put(f"lead {rank}" if action == "lead" else action)
        state = wait_for_moves(table, seat, on_turn["moves"] + 1)


@pytest.mark.slow
def test_a_phone_shows_its_hand_and_passes_in_real_chromium(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    assert CHROMIUM.exists(), "the browser test needs Debian's chromium: bash scripts/setup.sh dev installs it"
    with phone_table(seed=5) as table, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 360, "height": 640})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(table.url(1))
            ben = view(table, 1)
            expect(page.locator("#hand .card")).to_have_count(len(ben["hand"]))
            shown = page.locator("#hand .card").evaluate_all("cards => cards.map(c => c.getAttribute('aria-label'))")
            assert shown == ben["hand"]
            assert page.evaluate("document.documentElement.scrollWidth") <= 360  # nothing wider than the phone

            due = play_until_seat_may_pass(table, 1)
            expect(page.locator("#whose")).to_have_text("Your turn")
            expect(page.locator("#line")).to_contain_text(due["line"])
            pass_button = page.locator("#pass")
            expect(pass_button).to_be_visible()
            assert pass_button.bounding_box()["height"] >= 44  # a thumb-sized button
            page.screenshot(path=str(tmp_path / "before.png"))
            pass_button.click()

            expect(page.locator("#last")).to_have_text("You pass")  # Ben's own phone speaks to Ben
            expect(page.locator("#whose")).not_to_have_text("Your turn")
            assert view(table, 0)["moves"] == due["moves"] + 1
            assert not errors
        finally:
            browser.close()
