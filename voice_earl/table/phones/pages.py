"""The pages the phones load, from package data: HTML, CSS and JavaScript, no CDN.

The text on them follows the table's language: the labels are translated here and handed to the
page as JSON, and the player's own address parts are filled in when a page is served.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from string import Template

from voice_earl.game.cards import RANKS
from voice_earl.i18n import _, current_language, rank_plural

ASSETS = {
    "phone.css": "text/css",
    "phone.js": "text/javascript",
    "mic.css": "text/css",
    "mic.js": "text/javascript",
    "mic-worklet.js": "text/javascript",
}


@functools.cache
def _read(name: str) -> str:
    return resources.files(__package__).joinpath("web", name).read_text(encoding="utf-8")


def asset(name: str) -> tuple[str, str] | None:
    """A static file's text and content type (only the few that exist)."""
    content_type = ASSETS.get(name)
    return (_read(name), content_type) if content_type is not None else None


@functools.cache
def digest(name: str) -> str:
    """A short hash of a static file's text: its address changes whenever the file does."""
    return hashlib.sha256(_read(name).encode("utf-8")).hexdigest()[:12]


def asset_url(base: str, name: str) -> str:
    """A static file's address below ``base``, with its :func:`digest` in the query string: a phone
    that loads a page after an upgrade never uses a file kept from before it."""
    return f"{base}/{name}?v={digest(name)}"


@functools.cache
def build() -> str:
    """A short hash of every file the pages are made of: a page open across an upgrade sees that the
    laptop's differs from its own, and loads itself again."""
    whole = hashlib.sha256()
    for name in ("phone.html", "join.html", *sorted(ASSETS)):
        whole.update(_read(name).encode("utf-8") + b"\0")
    return whole.hexdigest()[:12]


def labels() -> dict[str, object]:
    """The page's words in the current language."""
    return {
        "waiting": _("Waiting for the game to begin…"),
        "your_turn": _("Your turn"),
        "their_turn": _("{player}'s turn"),
        "say": _("Say:"),
        "pass": _("Pass"),
        "play": _("Play"),
        "lead": _("Tap the rank you lead"),
        "lead_said": _("Hold the button and say your lead"),
        "hand": _("Your hand"),
        "no_hand": _("Your cards are in your hand: the deck is a real one."),
        "no_cards": _("No cards left."),
        "open_rank": _("rank: {ranks}"),
        "any_rank": _("lead: any rank"),
        "finished": _("finished: {ranks}"),
        "deal_of": _("Deal {deal} of {deals}"),
        "deal": _("Deal {deal}"),
        "players": _("Players"),
        "cards": _("cards"),
        "total": _("total"),
        "dealer": _("dealer"),
        "bot": _("bot"),
        "deal_over": _("Deal {deal} is over: {winner} won."),
        "pays": _("{player} pays {amount}"),
        "takes": _("{player} takes {amount}"),
        "standings": _("Standings"),
        "final": _("Final standings"),
        "game_won": _("{winner} wins the game."),
        "game_won_you": _("You win the game."),
        "game_shared": _("{players} share first place."),
        "paused": _("Paused"),
        "pause_key": _("The laptop's p goes on with the game."),
        "offline": _("Connection lost: trying again…"),
        "ended": _("The game has ended."),
        "stopped": _("Stopped at the laptop."),
        "resume": _("{command} goes on with the series, and this page comes back by itself then."),
        "deal_over_you": _("Deal {deal} is over: you won."),
        "you_pay": _("You pay {amount}"),
        "you_take": _("You take {amount}"),
        "next_deal": _("The next deal begins at the laptop."),
        "joined": _("Here: {players}"),
        "not_joined": _("not yet: {players}"),
        "ranks": {rank.value: rank_plural(rank) for rank in RANKS},
    }


def _json_for_html(value: object) -> str:
    """JSON that can sit inside a <script type="application/json"> element."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def mic_labels(laptop_listens: bool = True) -> dict[str, object]:
    """The words of the Hold to speak button and its line (--phone-mics); ``laptop_listens``: whether
    the laptop's own microphone hears the table too (a phone that cannot listen sends its player there)."""
    return {
        "hold": _("Hold to speak"),
        "listening": _("Listening… release the button when you have said it."),
        "judging": _("Listening to what you said…"),
        "passed": _("Pass"),
        "again": _("Say it again:"),
        # After the turn moved on: the card was played (or taken back) all the same, as the table screen says.
        "verdicts": {"wrong_line": _("✗ wrong line"), "wrong_rank": _("✗ wrong rank")},
        "asking": _("Allow the microphone to speak into this phone."),
        "ready": _("The microphone is on: hold the button while you speak."),
        "no_turn": _("Nothing to say yet: wait for the game."),
        # While the phone cannot listen: the button's word, and one line above the buttons on what to do.
        "off": _("Phone can't listen"),
        "instead": _("Tap the buttons, or speak to the laptop.") if laptop_listens else _("Tap the buttons."),
        # Why, when the button is pressed again.
        "refused": _(
            "The browser refused the microphone: allow it in this page's settings, then hold the button again."
        ),
        "missing": _("This phone has no microphone the page can use."),
        "insecure": _("This browser gives the page no microphone here."),
        "unsupported": _("This browser cannot record on this page."),
        "failed": _("The microphone did not start."),
    }


def certificate_warning() -> str:
    """What each player sees the first time, with --phone-mics, in one sentence."""
    return _(
        "The first time, each phone's browser warns that the connection is not private: tap Advanced, then "
        "Proceed; the game runs only on this laptop."
    )


def fingerprint_line(fingerprint: str) -> str:
    """The fingerprint (``AB:CD:...``) in groups of eight bytes, so that a narrow screen breaks it
    between groups.

    >>> fingerprint_line(":".join(["AB"] * 32)).split(": ", 1)[1].count(" ")
    3
    """
    parts = fingerprint.split(":")
    grouped = " ".join(":".join(parts[i : i + 8]) for i in range(0, len(parts), 8))
    return _("Certificate fingerprint (SHA-256): {fingerprint}").format(fingerprint=grouped)


def phone_page(base: str, player: str, mics: bool = False, laptop_listens: bool = True) -> str:
    """A player's page; ``base`` is the path of the player's address (``/p/TOKEN``). With ``mics``
    the page has a Hold to speak button (mic.js)."""
    words: dict[str, object] = {**labels(), "base": base, "build": build()}
    mic = ""
    if mics:
        words["mic"] = {**mic_labels(laptop_listens), "worklet": asset_url(base, "mic-worklet.js")}
        mic = (
            f'<link rel="stylesheet" href="{html.escape(asset_url(base, "mic.css"))}">\n'
            f'<script src="{html.escape(asset_url(base, "mic.js"))}" defer></script>'
        )
    return Template(_read("phone.html")).substitute(
        lang=html.escape(current_language()),
        title=html.escape(player),
        css=html.escape(asset_url(base, "phone.css")),
        js=html.escape(asset_url(base, "phone.js")),
        labels=_json_for_html(words),
        waiting=html.escape(_("Waiting for the game to begin…")),
        mic=mic,
    )


@dataclass(frozen=True)
class JoinEntry:
    name: str
    url: str
    svg: str  # the address as a QR code, an inline <svg> element


def join_page(base: str, entries: Sequence[JoinEntry], fingerprint: str | None = None) -> str:
    """Every player's code and address, for a laptop or tablet browser to show at the table: one
    code a screen, so that a camera aimed at one never catches a neighbour's (and their hand); each
    address a link, for a phone that opened this page itself (it cannot scan its own screen); over
    HTTPS, what each browser will say first and the certificate's ``fingerprint``."""
    intro = html.escape(_("Each player scans their own code with their phone's camera."))
    cards = "\n".join(
        '<section class="join"><p class="intro">{intro}</p><div class="face"><h2>{title}</h2>{svg}'
        '<p class="url"><a href="{url}">{url}</a></p></div><p class="next">{next}</p></section>'.format(
            intro=intro,
            title=html.escape(_("{player}, scan this").format(player=entry.name)),
            svg=entry.svg,
            url=html.escape(entry.url),
            next=html.escape(_("Next: {player}, further down").format(player=after.name)) if after else "",
        )
        for entry, after in zip(entries, [*entries[1:], None], strict=True)
    )
    return Template(_read("join.html")).substitute(
        lang=html.escape(current_language()),
        title=html.escape(_("Join the game")),
        css=html.escape(asset_url(base, "phone.css")),
        note=_certificate_note(fingerprint),
        cards=cards,
    )


def _certificate_note(fingerprint: str | None) -> str:
    if fingerprint is None:
        return ""
    warning, line = html.escape(certificate_warning()), html.escape(fingerprint_line(fingerprint))
    return f'<p class="intro">{warning}</p><p class="fingerprint">{line}</p>'
