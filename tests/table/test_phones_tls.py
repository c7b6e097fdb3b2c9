"""--phone-mics serves the pages over HTTPS: the self-signed certificate kept in the data directory,
what the table screen and the join page say about it, and plain HTTP without it."""

from __future__ import annotations

import asyncio
import ssl
import stat
from pathlib import Path

import aiohttp
from support.phones_table import phone_table

from voice_earl.table.phones.hub import serve_phones
from voice_earl.table.phones.join import certificate_lines
from voice_earl.table.phones.mics import MicLimits
from voice_earl.table.phones.tls import CERT_FILE, KEY_FILE, certificate_for
from voice_earl.table.phones.tokens import PhoneTokens

NAMES = ("Ann", "Ben")


def test_the_certificate_is_made_once_for_the_address_and_kept(tmp_path: Path) -> None:
    first = certificate_for("192.168.1.20", tmp_path)
    assert first.cert == tmp_path / CERT_FILE and first.key == tmp_path / KEY_FILE
    assert stat.S_IMODE(first.key.stat().st_mode) == 0o600  # the key is the laptop owner's alone
    assert len(first.fingerprint.split(":")) == 32 and first.fingerprint == first.fingerprint.upper()
    assert certificate_for("192.168.1.20", tmp_path) == first  # kept: a phone that accepted it sees it again
    key = first.key.read_bytes()
    moved = certificate_for("10.0.0.7", tmp_path)  # another network: a certificate for the new address
    assert moved.fingerprint != first.fingerprint and moved.key.read_bytes() == key
    (tmp_path / CERT_FILE).write_text("not a certificate")
    assert certificate_for("10.0.0.7", tmp_path).fingerprint not in ("", first.fingerprint)


def test_a_key_loosened_since_it_was_made_is_tightened_when_next_used(tmp_path: Path) -> None:
    first = certificate_for("192.168.1.20", tmp_path)
    first.key.chmod(0o644)  # a backup tool, a copy, a hand
    assert certificate_for("192.168.1.20", tmp_path) == first  # the same key and certificate, kept
    assert stat.S_IMODE(first.key.stat().st_mode) == 0o600


def test_with_phone_mics_the_pages_are_served_over_https_and_say_what_the_browser_will(tmp_path: Path) -> None:
    certificate = certificate_for("127.0.0.1", tmp_path)
    tokens = PhoneTokens.new(NAMES)

    async def fetch(url: str, join: str) -> tuple[str, str, str]:
        trusted = ssl.create_default_context(cafile=str(certificate.cert))  # the name must match: 127.0.0.1
        async with aiohttp.ClientSession() as client:
            async with client.get(url, ssl=trusted) as response:
                page = await response.text()
            async with client.get(join, ssl=trusted) as response:
                joined = await response.text()
            async with client.get(url + "/mic-worklet.js", ssl=trusted) as response:
                worklet = await response.text()
        return page, joined, worklet

    with serve_phones(NAMES, range(2), tokens, "127.0.0.1", 0, mics=MicLimits(), certificate=certificate) as phones:
        server = phones.server
        assert server.url(0).startswith("https://127.0.0.1:") and server.join_url().startswith("https://")
        page, joined, worklet = asyncio.run(fetch(server.url(0), server.join_url()))
        lines = [text.plain for text in certificate_lines(server)]
    assert "/mic.js" in page and '"hold": "Hold to speak"' in page
    assert "registerProcessor" in worklet
    warning = (
        "The first time, each phone's browser warns that the connection is not private: tap Advanced, then "
        "Proceed; the game runs only on this laptop."
    )
    eight = certificate.fingerprint.split(":")[:8]
    assert lines[0] == warning and lines[1].startswith(f"Certificate fingerprint (SHA-256): {':'.join(eight)} ")
    assert lines[1].replace(" ", ":").endswith(certificate.fingerprint)
    assert warning.replace("'", "&#x27;") in joined and lines[1] in joined


def test_without_phone_mics_the_pages_stay_plain_http_with_no_microphone() -> None:
    async def fetch(url: str) -> str:
        async with aiohttp.ClientSession() as client, client.get(url) as response:
            return await response.text()

    with phone_table() as table:
        server = table.phones.server
        assert server.url(0).startswith("http://") and server.certificate is None
        page = asyncio.run(fetch(table.url(0)))
        assert certificate_lines(server) == []
    assert "mic.js" not in page and "Hold to speak" not in page
