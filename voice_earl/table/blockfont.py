"""A small block font for text that must be read from across a table.

Each glyph is 5 pixels tall and 1-5 wide; two pixel rows share one terminal row through the half-block
characters, so a line of big text takes 3 terminal rows and about 4 columns a letter.

>>> for row in banner("Q 10", width=40):
...     print(row.rstrip())
▄▀▄   ▄█  █▀█
█▄▀    █  █ █
 ▀▀   ▀▀▀ ▀▀▀
>>> banner("There's the best of all the three", width=20) is None  # "THERE'S" alone is 25 columns wide
True
>>> len(banner("There's a Queen as good as he", width=80) or ())
6
"""

from __future__ import annotations

import unicodedata

PIXEL_ROWS = 5
TEXT_ROWS = 3
_LETTER_GAP = 1

# '#' is a lit pixel; rows run top to bottom. Widths vary so that M, N and W stay readable.
_GLYPHS: dict[str, tuple[str, str, str, str, str]] = {
    "A": (".#.", "#.#", "###", "#.#", "#.#"),
    "B": ("##.", "#.#", "##.", "#.#", "##."),
    "C": (".##", "#..", "#..", "#..", ".##"),
    "D": ("##.", "#.#", "#.#", "#.#", "##."),
    "E": ("###", "#..", "##.", "#..", "###"),
    "F": ("###", "#..", "##.", "#..", "#.."),
    "G": (".##", "#..", "#.#", "#.#", ".##"),
    "H": ("#.#", "#.#", "###", "#.#", "#.#"),
    "I": ("###", ".#.", ".#.", ".#.", "###"),
    "J": ("..#", "..#", "..#", "#.#", ".#."),
    "K": ("#.#", "#.#", "##.", "#.#", "#.#"),
    "L": ("#..", "#..", "#..", "#..", "###"),
    "M": ("#...#", "##.##", "#.#.#", "#...#", "#...#"),
    "N": ("#..#", "##.#", "#.##", "#..#", "#..#"),
    "O": (".#.", "#.#", "#.#", "#.#", ".#."),
    "P": ("##.", "#.#", "##.", "#..", "#.."),
    "Q": (".#.", "#.#", "#.#", "##.", ".##"),
    "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "S": (".##", "#..", ".#.", "..#", "##."),
    "T": ("###", ".#.", ".#.", ".#.", ".#."),
    "U": ("#.#", "#.#", "#.#", "#.#", "###"),
    "V": ("#.#", "#.#", "#.#", "#.#", ".#."),
    "W": ("#...#", "#...#", "#.#.#", "##.##", "#...#"),
    "X": ("#.#", "#.#", ".#.", "#.#", "#.#"),
    "Y": ("#.#", "#.#", ".#.", ".#.", ".#."),
    "Z": ("###", "..#", ".#.", "#..", "###"),
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("##.", "..#", ".#.", "#..", "###"),
    "3": ("##.", "..#", ".#.", "..#", "##."),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "##.", "..#", "##."),
    "6": (".##", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "##."),
    " ": (".", ".", ".", ".", "."),
    "'": ("#", "#", ".", ".", "."),
    '"': ("#.#", "#.#", "...", "...", "..."),
    ".": (".", ".", ".", ".", "#"),
    ",": (".", ".", ".", "#", "#"),
    "!": ("#", "#", "#", ".", "#"),
    "?": ("##.", "..#", ".#.", "...", ".#."),
    ":": (".", "#", ".", "#", "."),
    ";": (".", "#", ".", "#", "#"),
    "-": ("...", "...", "###", "...", "..."),
    "_": ("...", "...", "...", "...", "###"),
    "+": ("...", ".#.", "###", ".#.", "..."),
    "=": ("...", "###", "...", "###", "..."),
    "/": ("..#", "..#", ".#.", "#..", "#.."),
    "(": (".#", "#.", "#.", "#.", ".#"),
    ")": ("#.", ".#", ".#", ".#", "#."),
    "&": (".#.", "#.#", ".#.", "#.#", ".##"),
}
# Typographic forms the font draws with a plain glyph.
_SUBSTITUTES = {"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "..."}
# Half-block character for (upper pixel lit, lower pixel lit).
_HALF_BLOCKS = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}


def normalize(text: str) -> str | None:
    """``text`` in the font's alphabet (upper case, accents dropped), or None if a character has no glyph."""
    plain = "".join(_SUBSTITUTES.get(char, char) for char in text)
    decomposed = unicodedata.normalize("NFKD", plain)
    upper = "".join(char for char in decomposed if not unicodedata.combining(char)).upper()
    return upper if all(char in _GLYPHS for char in upper) else None


def text_width(text: str, scale: int = 1) -> int:
    """Columns that ``text`` (already normalized) takes in the big font."""
    if not text:
        return 0
    return scale * (sum(len(_GLYPHS[char][0]) for char in text) + _LETTER_GAP * (len(text) - 1))


def render_line(text: str, scale: int = 1) -> tuple[str, ...]:
    """The terminal rows (``TEXT_ROWS`` times ``scale``) that draw normalized ``text`` in the big font."""
    gap = "." * _LETTER_GAP
    pixel_rows = [gap.join(_GLYPHS[char][row] for char in text) for row in range(PIXEL_ROWS)]
    scaled = ["".join(pixel * scale for pixel in row) for row in pixel_rows for _ in range(scale)]
    if len(scaled) % 2:
        scaled.append("." * len(scaled[0]))  # an unlit row under the odd last one
    return tuple(
        "".join(_HALF_BLOCKS[(top == "#", bottom == "#")] for top, bottom in zip(upper, lower, strict=True))
        for upper, lower in zip(scaled[0::2], scaled[1::2], strict=True)
    )


def wrap(text: str, width: int, scale: int = 1) -> list[str] | None:
    """Split normalized ``text`` at spaces into lines no wider than ``width`` columns; None if a word is wider."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if text_width(candidate, scale) <= width:
            current = candidate
            continue
        if text_width(word, scale) > width:
            return None
        lines.append(current)
        current = word
    if current:
        lines.append(current)
    return lines


def banner(text: str, width: int, max_lines: int = 2, line_gap: int = 0, scale: int = 1) -> list[str] | None:
    """Terminal rows drawing ``text`` big within ``width`` columns in at most ``max_lines`` lines of text.

    None when the text has a character the font lacks or does not fit. ``line_gap`` blank rows go between
    lines of text; ``scale`` 2 draws every pixel twice as wide and tall.
    """
    normalized = normalize(text)
    if normalized is None:
        return None
    lines = wrap(normalized, width, scale)
    if not lines or len(lines) > max_lines:
        return None
    rows: list[str] = []
    for index, line in enumerate(lines):
        if index:
            rows.extend([""] * line_gap)
        rows.extend(render_line(line, scale))
    return rows
