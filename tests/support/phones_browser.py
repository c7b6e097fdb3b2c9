"""Real headless Chromium (Debian's ``chromium``, driven by Playwright) for the phones' pages: a
phone is a touch screen of 360x640 CSS pixels, tapped with real touch events."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from support.patience import WAIT_MS

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
PHONE = {"width": 360, "height": 640}


def fake_microphone(wav: Path) -> list[str]:
    """Chromium's flags for a microphone that plays ``wav`` (from its start whenever a page opens it,
    and again and again), allowed without asking, over the table's self-signed HTTPS."""
    return [
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={wav}",
        "--ignore-certificate-errors",
    ]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)  # an expectation waits as long as a busy machine needs, not Playwright's 5 s
    assert CHROMIUM.exists(), "the browser tests need Debian's chromium: bash scripts/setup.sh dev installs it"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


class PhonePage:
    """A page in a touch-screen context of its own (its own network, which can go offline)."""

    def __init__(self, browser: Browser, url: str, viewport: dict[str, int] = PHONE) -> None:
        self.context = browser.new_context(viewport=viewport, has_touch=True, is_mobile=True)
        self.context.set_default_timeout(WAIT_MS)
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(url)

    def __enter__(self) -> PhonePage:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.context.close()

    def centre(self, selector: str) -> tuple[float, float]:
        box = self.page.locator(selector).bounding_box()
        assert box is not None, f"{selector} is not on the screen"
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def tap(self, selector: str) -> None:
        """A finger's tap on the middle of the element (touch events, as a phone sends them)."""
        self.page.touchscreen.tap(*self.centre(selector))

    def at(self, x: float, y: float) -> Any:
        """What a finger at (x, y) would touch: the element's id, tag and text."""
        return self.page.evaluate(
            "([x, y]) => { const e = document.elementFromPoint(x, y);"
            " return e && { id: e.id, tag: e.tagName, text: e.textContent, parent: e.parentElement.id }; }",
            [x, y],
        )

    def box(self, selector: str) -> dict[str, float]:
        found = self.page.locator(selector).bounding_box()
        assert found is not None, f"{selector} is not on the screen"
        return found
