"""The pages' CSS and JavaScript after an upgrade: their addresses carry a digest of their text, so a
phone never keeps a file from before it, and a page left open across it loads itself again."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from typing import Any

import aiohttp
import pytest
from support.patience import WAIT_S
from support.phones_table import FAST, PhoneTable, choose, phone_table, view, wait_for

from voice_earl.table.phones import pages
from voice_earl.table.phones.tokens import PhoneTokens

Upgrade = Callable[[str, str], None]


@pytest.fixture
def upgrade(monkeypatch: pytest.MonkeyPatch) -> Iterator[Upgrade]:
    """``upgrade(name, more)``: from now on the package's file ``name`` ends with ``more``, as after
    installing a newer version while the laptop's server runs."""
    changed: dict[str, str] = {}
    original = pages._read

    def read(name: str) -> str:
        return original(name) + changed.get(name, "")

    def forget() -> None:
        pages.digest.cache_clear()
        pages.build.cache_clear()

    def change(name: str, more: str) -> None:
        changed[name] = more
        forget()

    monkeypatch.setattr(pages, "_read", read)
    yield change
    monkeypatch.undo()
    forget()


def addresses(page: str) -> dict[str, str]:
    """The page's own files, by name: the address each is loaded from."""
    found = re.findall(r'(?:href|src)="([^"]+/([a-z-]+\.(?:css|js))[^"]*)"', page)
    return {name: url.replace("&amp;", "&") for url, name in found}


async def fetch(url: str) -> tuple[str, dict[str, str]]:
    async with aiohttp.ClientSession() as client, client.get(url) as response:
        assert response.status == 200, url
        return await response.text(), dict(response.headers)


def origin(table: PhoneTable) -> str:
    return table.url(0).split("/p/", 1)[0]


def test_a_file_s_address_changes_with_its_text(upgrade: Upgrade) -> None:
    """What a phone loads names every file with its digest; after an upgrade the names are new, and a
    file asked for at its address may be kept, while an address without it is never kept."""
    with phone_table() as table:
        page, _headers = asyncio.run(fetch(table.url(0)))
        before = addresses(page)
        assert set(before) == {"phone.css", "phone.js"}
        for name, url in before.items():
            text, headers = asyncio.run(fetch(origin(table) + url))
            assert url.endswith(f"?v={pages.digest(name)}") and text == pages.asset(name)[0]  # type: ignore[index]
            assert headers["Cache-Control"] == "private, max-age=31536000, immutable"
        _text, plain = asyncio.run(fetch(table.url(0) + "/phone.css"))
        assert plain["Cache-Control"] == "no-store"
        _text, old = asyncio.run(fetch(table.url(0) + "/phone.css?v=0123456789ab"))
        assert old["Cache-Control"] == "no-store"

        upgrade("phone.css", "\nbody header#top #me { color: rgb(1, 2, 3); }\n")
        after = addresses(asyncio.run(fetch(table.url(0)))[0])
        assert after["phone.css"] != before["phone.css"] and after["phone.js"] == before["phone.js"]
        text, _headers = asyncio.run(fetch(origin(table) + after["phone.css"]))
        assert text.endswith("#me { color: rgb(1, 2, 3); }\n")


def test_with_phone_mics_the_microphone_s_files_carry_their_digest_too() -> None:
    page = pages.phone_page("/p/abc", "Ann", mics=True)
    found = addresses(page)
    assert found["mic.css"] == f"/p/abc/mic.css?v={pages.digest('mic.css')}"
    assert found["mic.js"] == f"/p/abc/mic.js?v={pages.digest('mic.js')}"
    assert f'"worklet": "/p/abc/mic-worklet.js?v={pages.digest("mic-worklet.js")}"' in page
    joining = pages.join_page("/j/xyz", [pages.JoinEntry("Ann", "http://x/p/abc", "<svg></svg>")])
    assert addresses(joining) == {"phone.css": f"/j/xyz/phone.css?v={pages.digest('phone.css')}"}


def test_the_socket_names_the_build_of_the_pages() -> None:
    async def first_state(url: str) -> dict[str, Any]:
        async with aiohttp.ClientSession() as client, client.ws_connect(url + "/ws") as ws:
            message: dict[str, Any] = await ws.receive_json(timeout=WAIT_S)
            return message

    with phone_table(tokens=PhoneTokens.new(("Ann", "Ben", "Cy"))) as table:
        message = asyncio.run(first_state(table.url(0)))
    assert message["type"] == "state" and message["build"] == pages.build()


@pytest.mark.slow
def test_a_page_left_open_across_an_upgrade_loads_the_new_files(upgrade: Upgrade) -> None:
    """The laptop is upgraded while a phone's page stays open (a stop, an upgrade, a resume): at the
    next state the page sees that its build is old and loads itself again, with the new CSS."""
    from playwright.sync_api import expect, sync_playwright
    from support.phones_browser import CHROMIUM, CHROMIUM_ARGS, PhonePage

    with phone_table(limits=FAST) as table, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            leader = wait_for(table, lambda s: bool(s["turn"] and s["turn"]["id"]))["turn"]["seat"]
            watcher = (leader + 1) % 3
            with PhonePage(browser, table.url(watcher)) as phone:
                me = phone.page.locator("#me")
                expect(me).to_have_text("Ben" if watcher == 1 else ("Cy" if watcher == 2 else "Ann"))
                old = me.evaluate("e => getComputedStyle(e).color")
                upgrade("phone.css", "\nbody header#top #me { color: rgb(1, 2, 3); }\n")
                table.commands.put(" ".join(filter(None, choose(view(table, leader)))))  # the game goes on
                expect(me).to_have_css("color", "rgb(1, 2, 3)")
                assert old != "rgb(1, 2, 3)"
                phone.page.wait_for_timeout(1000)  # loaded once: the new page's build is the laptop's
                assert phone.page.evaluate("performance.getEntriesByType('navigation')[0].type") == "reload"
                assert phone.page.evaluate("sessionStorage.length") == 1
                assert not phone.errors
        finally:
            browser.close()
