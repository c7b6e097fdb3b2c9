"""A phone's page in real headless Chromium (Debian's ``chromium``, driven by Playwright) at 360x640:
the hand shows, Pass is tapped on the player's turn, and the game moves; with --phone-mics, a formula
said into the phone's (fake) microphone while Hold to speak is held plays the card."""

from __future__ import annotations

import json
import ssl
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from listening_audio import needs_espeak, padded, speak, write_wav
from phones_table import PhoneTable, choose, phone_table

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]


def view(table: PhoneTable, seat: int) -> dict[str, Any]:
    certificate = table.phones.server.certificate
    trusted = ssl.create_default_context(cafile=str(certificate.cert)) if certificate is not None else None
    with urllib.request.urlopen(table.url(seat) + "/state.json", context=trusted) as response:
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

            expect(page.locator("#last")).to_have_text("Ben passes")
            expect(page.locator("#whose")).not_to_have_text("Your turn")
            assert view(table, 0)["moves"] == due["moves"] + 1
            assert not errors
        finally:
            browser.close()


@pytest.mark.slow
@needs_espeak
def test_a_phone_is_a_microphone_held_to_speak_in_real_chromium(tmp_path: Path) -> None:
    """Over HTTPS, with Chromium's fake microphone playing a synthesized formula: the player holds the
    button while it plays, lets go, the phone shows the verdict and the game applies the lead."""
    from phone_voices import hearing
    from playwright.sync_api import expect, sync_playwright

    from voice_earl.game.cards import Rank
    from voice_earl.game.chants import EARL
    from voice_earl.table.phones.mics import MicLimits
    from voice_earl.table.phones.tls import certificate_for

    assert CHROMIUM.exists(), "the browser test needs Debian's chromium: bash scripts/setup.sh dev installs it"
    certificate = certificate_for("127.0.0.1", tmp_path)
    with phone_table(seed=5, mics=MicLimits(), hear=hearing(), certificate=certificate) as table:
        first = next(view(table, seat) for seat in range(3) if view(table, seat)["turn"]["yours"])
        line = EARL.line(1, Rank.parse(first["leads"][0]))
        # The fake microphone plays the file from the start when the page opens it, and again and again.
        wav = write_wav(tmp_path / "lead.wav", padded(speak(line, tmp_path / "line.wav"), before_s=0.8, after_s=3.0))
        fake_microphone = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                           f"--use-file-for-fake-audio-capture={wav}", "--ignore-certificate-errors"]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS + fake_microphone)
            try:
                page = browser.new_page(viewport={"width": 360, "height": 640})
                errors: list[str] = []
                page.on("pageerror", lambda error: errors.append(str(error)))
                assert table.url(first["seat"]).startswith("https://")
                page.goto(table.url(first["seat"]))
                expect(page.locator("#whose")).to_have_text("Your turn")
                hold = page.locator("#hold")
                expect(hold).to_have_text("Hold to speak")
                box = hold.bounding_box()
                assert box is not None and box["height"] >= 64  # a big button, for a thumb held down
                page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                page.mouse.down()
                expect(page.locator("#mic-status")).to_have_text("Listening… release the button when you have said it.")
                page.screenshot(path=str(tmp_path / "holding.png"))
                page.wait_for_timeout(3200)  # the lead-in, the line, and a moment after it
                page.mouse.up()
                expect(page.locator("#mic-status")).to_have_text("✓ " + line, timeout=15000)
                assert wait_for_moves(table, 0, 1)["moves"] == 1
                expect(page.locator("#whose")).not_to_have_text("Your turn")
                page.screenshot(path=str(tmp_path / "heard.png"))
                assert page.evaluate("document.documentElement.scrollWidth") <= 360
                assert not errors
            finally:
                browser.close()
    led = [r for r in table.session.records if r.get("event") == "lead"]
    assert led and led[0]["verdict"] == "correct" and led[0]["rank"] == first["leads"][0]
