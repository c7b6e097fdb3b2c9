"""Text wrapped to the terminal between words, for the commands that print more than a line.

A word longer than a line, such as a path, is broken after one of its slashes, so that its
parts stay whole:

>>> wrap("bundled en-us model at /home/ann/.venv/lib/python3.11/site-packages/pocketsphinx/model/en-us", 40)
['bundled en-us model at /home/ann/.venv/', 'lib/python3.11/site-packages/', 'pocketsphinx/model/en-us']
>>> wrap("wrong line: you said 'as good as me', the line ends 'as good as he'", 30, indent="    ")
["wrong line: you said 'as good", "    as me', the line ends 'as", "    good as he'"]

A command in backticks is kept on one line, to be copied whole:

>>> wrap("Series 1 is unfinished: `voice-earl play --resume 1` goes on with it", 40, indent="  ")
['Series 1 is unfinished:', '  `voice-earl play --resume 1` goes on', '  with it']
"""

from __future__ import annotations

import re
import shutil
import textwrap
from typing import TextIO

_AFTER_SLASH = re.compile(r"(?<=/)(?=[^/\s])")
_BACKTICKED = re.compile(r"`[^`]+`")
_KEPT_SPACE = "\xa0"  # a space textwrap does not break at


class _Wrapper(textwrap.TextWrapper):
    """textwrap's wrapper, with a place to break after each slash inside a word."""

    def _split(self, text: str) -> list[str]:
        return [piece for chunk in super()._split(text) for piece in _AFTER_SLASH.split(chunk) if piece]


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` columns (at least one line); lines after the first start with
    ``indent``. Leading spaces are kept."""
    lead = text[: len(text) - len(text.lstrip(" "))]
    wrapper = _Wrapper(max(width, 10), initial_indent=lead, subsequent_indent=indent or lead, break_on_hyphens=False)
    kept = _BACKTICKED.sub(lambda quoted: quoted[0].replace(" ", _KEPT_SPACE), text.strip(" "))
    return [line.replace(_KEPT_SPACE, " ") for line in wrapper.wrap(kept)] or [text]


def print_wrapped(text: str, file: TextIO | None = None) -> None:
    """Print ``text`` wrapped to the terminal's width (to ``file``: standard output when None); each line
    of it on its own, a continued line indented."""
    width = shutil.get_terminal_size().columns
    for line in text.split("\n"):
        lead = line[: len(line) - len(line.lstrip(" "))]
        print("\n".join(wrap(line, width, lead + "  ")) if line.strip() else line, file=file)
