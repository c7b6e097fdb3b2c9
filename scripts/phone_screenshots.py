#!/usr/bin/env python3
"""Pictures of the phones for the docs, taken from the real thing in Debian's headless chromium.

- docs/images/phones-page.png: a player's page at 360x640 (CSS pixels) when it is their turn;
- docs/images/phones-qr.png: the table screen's QR code for the first player (80x24 terminal, drawn by rich);
- docs/images/phones-join.png: the join page, which shows one player's code a screen.

    .venv/bin/python scripts/phone_screenshots.py [--out docs/images]
"""

from __future__ import annotations

import argparse
import io
import json
import queue
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
NAMES = ("Ann", "Ben", "Cy", "Di")


def view(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "/state.json") as response:
        result: dict[str, Any] = json.load(response)
        return result


def advance(commands: queue.Queue[str | None], urls: list[str], seat: int, moves: int) -> None:
    """Play from the keyboard (as a script would) until ``seat`` is due the second card of a rank it holds."""
    for _ in range(moves):
        state = view(urls[0])
        on_turn = view(urls[state["turn"]["seat"]])
        held = {card[:-1] for card in on_turn["hand"]}
        due = on_turn["due"]["rank"]
        if on_turn["seat"] == seat and due in held and state["moves"] >= 6:
            return
        commands.put(f"lead {on_turn['leads'][0]}" if due is None else ("play" if due in held else "pass"))
        while view(urls[0])["moves"] == state["moves"]:
            time.sleep(0.01)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    from voice_earl.game.rules import HOYLE, DeckMode
    from voice_earl.table.console import text_console
    from voice_earl.table.phones.hub import serve_phones
    from voice_earl.table.phones.join import code_screen
    from voice_earl.table.phones.limits import Limits
    from voice_earl.table.phones.tokens import PhoneTokens
    from voice_earl.table.session import TableSession
    from voice_earl.table.session_events import Seat, TableSettings
    from voice_earl.table.turns import LineCommands

    settings = TableSettings(tuple(Seat(n) for n in NAMES), HOYLE, DeckMode.VIRTUAL, deals=2, seed=12)
    commands: queue.Queue[str | None] = queue.Queue()
    fast = Limits(requests_per_second=1000.0, request_burst=1000.0)  # the script polls state.json quickly
    with (
        serve_phones(NAMES, range(len(NAMES)), PhoneTokens.new(NAMES), "127.0.0.1", 0, fast) as phones,
        sync_playwright() as playwright,
    ):
        source = phones.beside(LineCommands(iter(commands.get, None), print))
        session = TableSession(settings, dict.fromkeys(range(len(NAMES)), source))
        session.listeners = [phones.follow(session)]
        game = threading.Thread(target=session.run, daemon=True)
        game.start()
        urls = [phones.server.url(seat) for seat in range(len(NAMES))]
        advance(commands, urls, seat=1, moves=60)

        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 360, "height": 640}, device_scale_factor=2)
        page.goto(urls[1])
        page.wait_for_selector("#play:not([disabled])")  # the buttons go live a moment after the turn shows
        page.screenshot(path=str(args.out / "phones-page.png"))

        join = browser.new_page(viewport={"width": 1100, "height": 560})
        join.goto(phones.server.join_url())
        join.wait_for_timeout(300)
        join.screenshot(path=str(args.out / "phones-join.png"))  # one code a screen

        # The terminal's QR screen, as rich draws it at 80x24, with a laptop's address on a home network.
        phones.server.host = "192.168.1.23"
        phones.server.port = 8765
        console = text_console(
            record=True, width=80, height=24, force_terminal=True, color_system="truecolor", file=io.StringIO()
        )  # only its record is kept
        console.print(code_screen(phones.server, 0, 1, len(NAMES)))
        with tempfile.TemporaryDirectory() as folder:
            svg = Path(folder) / "qr.svg"
            svg.write_text(console.export_svg(title="voice-earl play --phones"), encoding="utf-8")
            terminal = browser.new_page(viewport={"width": 1000, "height": 760})
            terminal.goto(svg.as_uri())
            terminal.locator("svg").screenshot(path=str(args.out / "phones-qr.png"))
        browser.close()
        commands.put("quit")
        game.join(timeout=10)
    for name in ("phones-page.png", "phones-join.png", "phones-qr.png"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
