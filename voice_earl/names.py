"""What a name may hold (a player's, a device's): something to show on screen and say aloud.

>>> is_printable_name("Ann"), is_printable_name("Mary Jo"), is_printable_name("A\\x07nn"), is_printable_name("  ")
(True, True, False, False)
"""

from __future__ import annotations

import unicodedata

_JOINERS = "\u200c\u200d"  # zero-width joiners, which some scripts and emoji need


def is_printable_name(text: str) -> bool:
    """Not blank, and no control, format or line-break characters: format characters can reorder the
    text around them, and control characters can drive the terminal."""
    return bool(text.strip()) and not any(_hidden(char) for char in text)


def _hidden(char: str) -> bool:
    category = unicodedata.category(char)
    return (category.startswith("C") or category in ("Zl", "Zp")) and char not in _JOINERS
