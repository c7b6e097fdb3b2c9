"""The judge's settings the tuning sweep tries (``bench_listening.py --tune``), and its table's headings."""

from __future__ import annotations

from collections.abc import Iterable

GRID = {
    "token_bonus": (3.0, 3.5),
    "line_gain": (0.75, 1.0),
    "line_gain_rank_lead": (0.25, 0.5, 1.0),
    "pass_gain": (0.75, 0.9, 1.0),
    "pass_gain_floor": (-6.0, -5.0),
    "alone_margin": (2.0, 2.5, 3.0),
    "sure_floor": (0.0, -1.5, -2.0),
    "stop_floor": (-99.0, -5.0, -4.5, -4.0),
}


def abbreviations(names: Iterable[str]) -> dict[str, str]:
    """A short column heading for each setting: its words' initials, and where two settings share
    them, more of the first word's letters.

    >>> abbreviations(["line_gain", "sure_floor", "stop_floor"])
    {'line_gain': 'lg', 'sure_floor': 'sf', 'stop_floor': 'stf'}
    """
    short: dict[str, str] = {}
    for name in names:
        first, *rest = name.split("_")
        taken = set(short.values())
        short[name] = next(
            heading for length in range(1, len(first) + 1)
            if (heading := first[:length] + "".join(word[0] for word in rest)) not in taken
        )
    return short
