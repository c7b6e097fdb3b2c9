"""A phone as a microphone in real headless Chromium (Debian's ``chromium``, driven by Playwright) at
360x640, over HTTPS: a formula said into the phone's (fake) microphone while Hold to speak is held
plays the card."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.listening_audio import needs_espeak, padded, speak, write_wav
from support.phones_browser import CHROMIUM, CHROMIUM_ARGS, fake_microphone
from support.phones_table import phone_table, view, wait_for


@pytest.mark.slow
@needs_espeak
def test_a_phone_is_a_microphone_held_to_speak_in_real_chromium(tmp_path: Path) -> None:
    """Over HTTPS, with Chromium's fake microphone playing a synthesized formula: the player holds the
    button while it plays, lets go, the phone shows the verdict and the game applies the lead."""
    from playwright.sync_api import expect, sync_playwright
    from support.phone_voices import hearing

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
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS + fake_microphone(wav)
            )
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
                assert box is not None and box["height"] >= 44  # at a lead, beside the note: still thumb-sized
                page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                page.mouse.down()
                expect(page.locator("#mic-status")).to_have_text("Listening… release the button when you have said it.")
                page.screenshot(path=str(tmp_path / "holding.png"))
                page.wait_for_timeout(3200)  # the lead-in, the line, and a moment after it
                page.mouse.up()
                expect(page.locator("#mic-status")).to_have_text("✓ " + line)
                assert wait_for(table, lambda s: s["moves"] >= 1)["moves"] == 1
                expect(page.locator("#whose")).not_to_have_text("Your turn")
                page.screenshot(path=str(tmp_path / "heard.png"))
                assert page.evaluate("document.documentElement.scrollWidth") <= 360
                assert not errors
            finally:
                browser.close()
    led = [r for r in table.session.records if r.get("event") == "lead"]
    assert led and led[0]["verdict"] == "correct" and led[0]["rank"] == first["leads"][0]


@pytest.mark.slow
def test_with_phone_mics_the_buttons_sit_at_the_bottom_of_a_small_phone(tmp_path: Path) -> None:
    """Hold to speak joins Pass and Play at the foot of the screen, and the hand has the rest: no band
    of empty felt under the buttons squeezes the page into the top of a 360x640 phone."""
    from playwright.sync_api import expect, sync_playwright
    from support.phones_browser import PHONE, PhonePage

    from voice_earl.table.phones.mics import MicLimits
    from voice_earl.table.phones.tls import certificate_for

    certificate = certificate_for("127.0.0.1", tmp_path)
    with (
        phone_table(seed=5, mics=MicLimits(), certificate=certificate) as table,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, "--ignore-certificate-errors"]
        )
        try:
            waiting = next(seat for seat in range(3) if not view(table, seat)["turn"]["yours"])
            with PhonePage(browser, table.url(waiting)) as phone:
                expect(phone.page.locator("#hold")).to_be_visible()
                expect(phone.page.locator("#hand .card").first).to_be_visible()
                footer = phone.box("#actions")
                assert footer["y"] + footer["height"] == PHONE["height"], footer  # at the foot of the screen
                assert phone.box("#page")["height"] >= PHONE["height"] / 2  # the hand's part is most of it
                assert not phone.errors
        finally:
            browser.close()


@pytest.mark.slow
def test_a_lead_with_phone_mics_leaves_a_hand_of_13_cards_in_view(tmp_path: Path) -> None:
    """Two rows of rank buttons and Hold to speak at a lead: on a 360x640 phone the whole hand of 13
    cards is still in view above them, with every button at least 44 px high, and no rank button
    where Play was."""
    from playwright.sync_api import expect, sync_playwright
    from support.phones_browser import PHONE, PhonePage
    from support.phones_table import FAST

    from voice_earl.table.phones.mics import MicLimits

    # 127.0.0.1 is a secure origin for the browser: plain HTTP is enough for the page's layout.
    with (
        phone_table(("Ann", "Ben", "Cy", "Di"), seed=2, limits=FAST, mics=MicLimits()) as table,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            leader = wait_for(table, lambda s: bool(s["turn"] and s["turn"]["id"]))["turn"]["seat"]
            start = view(table, leader)
            assert len(start["hand"]) == 13 and len(start["leads"]) > 7  # two rows of rank buttons
            with PhonePage(browser, table.url(leader)) as phone:
                page = phone.page
                expect(page.locator("#leads button")).to_have_count(len(start["leads"]))
                expect(page.locator("#hold")).to_be_visible()
                page.screenshot(path=str(tmp_path / "lead-13-cards.png"))
                footer = phone.box("#actions")
                cards = [card.bounding_box() for card in page.locator("#hand .card").all()]
                assert len(cards) == 13
                for card in cards:  # the whole hand, without scrolling
                    assert card is not None and card["y"] >= 0 and card["y"] + card["height"] <= footer["y"], card
                buttons = [b.bounding_box() for b in page.locator("#leads button, #hold").all()]
                assert all(b is not None and b["height"] >= 44 for b in buttons), buttons
                note, ranks = phone.box("#lead-note"), phone.box("#leads")
                assert ranks["y"] + ranks["height"] <= note["y"]  # the ranks end above the place where Play was
                assert note["x"] <= 0.55 * PHONE["width"] and note["x"] + note["width"] >= 0.9 * PHONE["width"]
                assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
                assert not phone.errors
        finally:
            browser.close()


@pytest.mark.slow
def test_a_lead_on_a_real_packs_phone_says_to_say_the_lead() -> None:
    """With a real pack the phone is a microphone and a Pass button: no rank buttons at a lead, so the
    note under where they would be says to hold the button and say the lead, not to tap a rank."""
    from playwright.sync_api import expect, sync_playwright
    from support.phones_browser import PhonePage
    from support.phones_table import FAST

    from voice_earl.game.rules import DeckMode
    from voice_earl.table.phones.mics import MicLimits

    with (
        phone_table(("Ann", "Ben", "Cy"), seed=2, limits=FAST, mics=MicLimits(), deck=DeckMode.PHYSICAL) as table,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            leader = wait_for(table, lambda s: bool(s["turn"] and s["turn"]["id"]))["turn"]["seat"]
            with PhonePage(browser, table.url(leader)) as phone:
                page = phone.page
                expect(page.locator("#lead-note")).to_have_text("Hold the button and say your lead")
                expect(page.locator("#leads button").first).to_be_hidden()
                expect(page.locator("#hold")).to_be_visible()
                assert not phone.errors
        finally:
            browser.close()


@pytest.mark.slow
def test_with_phone_mics_a_double_tap_on_play_that_ends_a_quartet_leads_no_rank_and_holds_nothing() -> None:
    from playwright.sync_api import expect, sync_playwright
    from support.phones_browser import PhonePage
    from support.phones_table import FAST, choose, keys_until

    from voice_earl.table.phones.mics import MicLimits

    with phone_table(seed=5, limits=FAST, mics=MicLimits()) as table, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            due = keys_until(table, lambda s: s["due"]["position"] == 4 and choose(s) == ("play", None))
            with PhonePage(browser, table.url(due["seat"])) as phone:
                page = phone.page
                expect(page.locator("#play")).to_be_enabled()
                x, y = phone.centre("#play")
                page.touchscreen.tap(x, y)
                expect(page.locator("#leads button").first).to_be_visible()  # the lead is on the screen
                page.touchscreen.tap(x, y)  # the finger comes down again at once
                assert phone.at(x, y)["id"] == "lead-note", phone.at(x, y)
                wait_for(table, lambda state: state["moves"] > due["moves"], due["seat"])  # the Play
                page.wait_for_timeout(1500)  # time enough for a lead, if the second touch made one
                after = view(table, due["seat"])
                assert after["moves"] == due["moves"] + 1 and after["legal"] == ["lead"]  # the Play, and no lead
                expect(page.locator("#mic-status")).to_be_hidden()  # and no hold, no question for the microphone
                assert not phone.errors
        finally:
            browser.close()


@pytest.mark.slow
@needs_espeak
def test_a_wrong_line_said_into_a_phone_plays_the_card_and_the_phone_does_not_ask_again(tmp_path: Path) -> None:
    """A stumbled formula costs nothing (hoyle): the card is played and the turn moves on, so the
    phone says the line was wrong, and not "Say it again" to a player whose turn is over."""
    from playwright.sync_api import expect, sync_playwright
    from support.phone_voices import hearing
    from support.phones_table import FAST, choose, keys_until

    from voice_earl.table.phones.mics import MicLimits
    from voice_earl.table.phones.tls import certificate_for

    certificate = certificate_for("127.0.0.1", tmp_path)
    with phone_table(seed=5, limits=FAST, mics=MicLimits(), hear=hearing(), certificate=certificate) as table:
        due = keys_until(table, lambda s: s["due"]["position"] == 2 and choose(s) == ("play", None))
        said = speak("There's the best of all the three", tmp_path / "line.wav")  # the third card's line
        wav = write_wav(tmp_path / "wrong.wav", padded(said, before_s=0.8, after_s=3.0))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS + fake_microphone(wav)
            )
            try:
                page = browser.new_page(viewport={"width": 360, "height": 640})
                errors: list[str] = []
                page.on("pageerror", lambda error: errors.append(str(error)))
                page.goto(table.url(due["seat"]))
                expect(page.locator("#whose")).to_have_text("Your turn")
                box = page.locator("#hold").bounding_box()
                assert box is not None
                page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                page.mouse.down()
                page.wait_for_timeout(3200)  # the lead-in, the line, and a moment after it
                page.mouse.up()
                wait_for(table, lambda s: s["moves"] == due["moves"] + 1)
                expect(page.locator("#whose")).not_to_have_text("Your turn")
                status = page.locator("#mic-status")
                expect(status).to_have_text(
                    f"✗ wrong line: that is the third card's line; the second card says '{due['line']}'"
                )
                page.screenshot(path=str(tmp_path / "wrong-line.png"))
                assert not errors
            finally:
                browser.close()
    graded = [r for r in table.session.records if r.get("event") == "play"]
    assert graded and graded[-1]["verdict"] == "wrong_line"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("flags", "why"),
    [
        # A fake device but no fake prompt: Chromium refuses, as a player who taps Block does.
        (
            ["--use-fake-device-for-media-stream"],
            "The browser refused the microphone: allow it in this page's settings, then hold the button again.",
        ),
        ([], "This phone has no microphone the page can use."),  # no device at all
    ],
    ids=["refused", "missing"],
)
def test_a_phone_that_cannot_listen_says_so_in_one_line_and_its_buttons_still_work(
    flags: list[str], why: str, tmp_path: Path
) -> None:
    """One short line says what to do instead, Hold to speak looks unavailable and says why when pressed
    again, Play still plays; and once the microphone is allowed, a hold is heard again."""
    from playwright.sync_api import expect, sync_playwright
    from support.phones_browser import PhonePage
    from support.phones_table import FAST, choose, keys_until

    from voice_earl.table.phones.mics import MicLimits

    with phone_table(seed=5, limits=FAST, mics=MicLimits()) as table, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS + flags)
        try:
            due = keys_until(table, lambda s: s["due"]["rank"] is not None and choose(s) == ("play", None))
            with PhonePage(browser, table.url(due["seat"])) as phone:
                page = phone.page
                hold, status = page.locator("#hold"), page.locator("#mic-status")
                expect(page.locator("#play")).to_be_enabled()
                phone.tap("#hold")
                expect(status).to_have_text("Tap the buttons, or speak to the laptop.")
                expect(hold).to_have_text("Phone can't listen")
                expect(hold).to_have_class("off")
                assert phone.box("#mic-status")["height"] < 30  # one line
                assert hold.evaluate("b => getComputedStyle(b).backgroundColor") == "rgba(0, 0, 0, 0)"
                page.screenshot(path=str(tmp_path / "cannot-listen.png"))
                phone.tap("#hold")  # again: why, and what would make it work
                expect(status).to_have_text(why)
                page.screenshot(path=str(tmp_path / "why.png"))
                if flags:  # the player allows the microphone in the browser's settings, and holds again
                    phone.context.grant_permissions(["microphone"])
                    x, y = phone.centre("#hold")
                    page.mouse.move(x, y)
                    page.mouse.down()
                    expect(status).to_have_text("Listening… release the button when you have said it.")
                    expect(hold).to_have_text("Hold to speak")
                    expect(hold).not_to_have_class("off")
                    page.mouse.up()
                    expect(status).not_to_have_text("Listening… release the button when you have said it.")
                phone.tap("#play")  # the buttons work all along
                wait_for(table, lambda s: s["moves"] == due["moves"] + 1)
                assert not phone.errors
        finally:
            browser.close()
