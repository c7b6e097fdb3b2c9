"""QR codes of the players' addresses (segno): half-block characters for the terminal, SVG for the
join page.

>>> text = terminal_code("http://127.0.0.1:8765/p/abc")
>>> text.plain.count("\\n") < 20 and "▀" in text.plain
True
>>> svg("http://127.0.0.1:8765/p/abc").startswith("<svg")
True
"""

from __future__ import annotations

import segno
from rich.style import Style
from rich.text import Text

_BORDER = 2  # modules of quiet zone around the code (scanners read 2 well on a screen)
_DARK = "#000000"
_LIGHT = "#ffffff"


def _code(url: str) -> segno.QRCode:
    return segno.make(url, error="m", micro=False)


def terminal_code(url: str) -> Text:
    """The code drawn with half blocks, two rows of modules per line, in fixed black on white
    whatever the terminal's colours (a scanner needs dark modules on a light ground)."""
    rows = [tuple(bool(m) for m in row) for row in _code(url).matrix_iter(border=_BORDER)]
    if len(rows) % 2:
        rows.append((False,) * len(rows[0]))
    text = Text(no_wrap=True)
    for top, bottom in zip(rows[::2], rows[1::2], strict=True):
        for upper, lower in zip(top, bottom, strict=True):
            text.append("▀", Style(color=_DARK if upper else _LIGHT, bgcolor=_DARK if lower else _LIGHT))
        text.append("\n")
    text.rstrip()
    return text


def svg(url: str) -> str:
    """The code as an inline ``<svg>`` element that scales with its box."""
    return str(_code(url).svg_inline(scale=1, border=_BORDER, svgclass="qr", omitsize=True, dark=_DARK, light=_LIGHT))
