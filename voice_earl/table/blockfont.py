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

import functools
import itertools
import unicodedata

PIXEL_ROWS = 5
TEXT_ROWS = 3
_LETTER_GAP = 1

# '#' is a lit pixel; rows run top to bottom. Widths vary so that M, N and W stay readable. Every printable ASCII
# character has a glyph: a player's name is drawn as typed, brackets and slashes too.
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
    "<": ("..#", ".#.", "#..", ".#.", "..#"),
    ">": ("#..", ".#.", "..#", ".#.", "#.."),
    "[": ("##", "#.", "#.", "#.", "##"),
    "]": ("##", ".#", ".#", ".#", "##"),
    "{": (".##", ".#.", "#..", ".#.", ".##"),
    "}": ("##.", ".#.", "..#", ".#.", "##."),
    "@": (".##.", "#..#", "#.##", "#...", ".###"),
    "#": (".#.#.", "#####", ".#.#.", "#####", ".#.#."),
    "$": (".##", "##.", ".#.", ".##", "##."),
    "%": ("#.#", "..#", ".#.", "#..", "#.#"),
    "*": ("...", "#.#", ".#.", "#.#", "..."),
    "\\": ("#..", "#..", ".#.", "..#", "..#"),
    "|": ("#", "#", "#", "#", "#"),
    "~": ("....", ".#.#", "#.#.", "....", "...."),
    "^": (".#.", "#.#", "...", "...", "..."),
    "`": ("#.", ".#", "..", "..", ".."),
}
# Typographic forms the font draws with a plain glyph.
_SUBSTITUTES = {"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "..."}
_PHRASE_ENDS = (",", ":", ";", ".", "!", "?")
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


def line_rows(scale: int = 1) -> int:
    """Terminal rows one line of big text takes (two pixel rows share a terminal row).

    >>> line_rows(1), line_rows(2)
    (3, 5)
    """
    return (PIXEL_ROWS * scale + 1) // 2


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


def wrap(text: str, width: int, scale: int = 1, max_lines: int = 3, min_lines: int = 1) -> list[str] | None:
    """Split normalized ``text`` at spaces into as few lines as fit ``width`` columns (``min_lines`` to
    ``max_lines``; fewer only when there are fewer words).

    Among the splits into that many lines, the one that breaks after punctuation, then the one with
    the most even lines, is chosen, so that a line never ends with a lone word the next one needed
    ("CARD 4 OF" over "4"). None if the text needs more lines, or a word is wider than ``width``.

    >>> wrap("BEN: EIGHTS, CARD 4 OF 4", 50)
    ['BEN: EIGHTS,', 'CARD 4 OF 4']
    >>> wrap("CY: TWOS, CARD 2 OF 4", 80, min_lines=2)
    ['CY: TWOS,', 'CARD 2 OF 4']
    """
    words = text.split()
    if not words or any(text_width(word, scale) > width for word in words):
        return None
    for count in range(min(min_lines, len(words)), min(max_lines, len(words)) + 1):
        splits = [_lines_of(words, cuts) for cuts in itertools.combinations(range(1, len(words)), count - 1)]
        fitting = [lines for lines in splits if all(text_width(line, scale) <= width for line in lines)]
        if fitting:
            return min(fitting, key=lambda lines: _raggedness(lines, scale))
    return None


def _lines_of(words: list[str], cuts: tuple[int, ...]) -> list[str]:
    bounds = (0, *cuts, len(words))
    return [" ".join(words[start:end]) for start, end in itertools.pairwise(bounds)]


def _raggedness(lines: list[str], scale: int) -> tuple[int, int]:
    """Lines that do not end a phrase (a break after "," or ":" reads best), then the widest line."""
    unbroken = sum(not line.endswith(_PHRASE_ENDS) for line in lines[:-1])
    return unbroken, max(text_width(line, scale) for line in lines)


@functools.lru_cache(maxsize=4096)
def banner(
    text: str, width: int, max_lines: int = 2, line_gap: int = 0, scale: int = 1, min_lines: int = 1
) -> tuple[str, ...] | None:
    """Terminal rows drawing ``text`` big within ``width`` columns in ``min_lines`` to ``max_lines`` lines.

    None when the text has a character the font lacks or does not fit. ``line_gap`` blank rows go between
    lines of text; ``scale`` 2 draws every pixel twice as wide and tall. Kept for the next frame: the
    screen tries the same texts at each redraw.
    """
    normalized = normalize(text)
    if normalized is None:
        return None
    lines = wrap(normalized, width, scale, max_lines, min_lines)
    if not lines:
        return None
    rows: list[str] = []
    for index, line in enumerate(lines):
        if index:
            rows.extend([""] * line_gap)
        rows.extend(render_line(line, scale))
    return tuple(rows)
