"""Argument types of the command line: argparse refuses a bad value with one line and exit status 2.

Numbers are read in ASCII digits only: ``str.isdigit()`` and ``int()`` accept other scripts' digits
and such characters as "²", which then fail, or mean something nobody typed.

>>> whole_number(1, 1000)("6"), seconds("2.5"), device("2"), device("USB Audio")
(6, 2.5, 2, 'USB Audio')
>>> whole_number(1, 1000)("1" + "0" * 30)
Traceback (most recent call last):
argparse.ArgumentTypeError: must be from 1 to 1000, not 1000000000000000000000000000000
>>> device("²")
Traceback (most recent call last):
argparse.ArgumentTypeError: '²' is not a device index (write it with the digits 0-9) nor part of a device name
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from pathlib import Path

from voice_earl.keep.storage_values import MAX_SERIES_ID, MIN_SERIES_ID
from voice_earl.names import is_printable_name
from voice_earl.paths import kept_by_the_game, path_problem, shown_path

_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")

_MAX_DIGITS = 40  # longer numbers are out of every range here, and int() of thousands of digits is refused
MAX_SEED = 2**63 - 1  # a seed is stored with the series, as a 64-bit integer
MAX_DEALS = 1000  # a series at the table (hoyle plays 6)
MAX_SIMULATED_DEALS = 1_000_000  # bot games: minutes, not forever
MAX_STACK = 1_000_000
MAX_REMINDER_SECONDS = 3600.0


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """A whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        cleaned = text.strip()
        if not _WHOLE.fullmatch(cleaned):
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (write it with the digits 0-9)")
        digits = cleaned.lstrip("+-").lstrip("0")
        if len(digits) > _MAX_DIGITS or not low <= int(cleaned) <= high:
            shown = cleaned if len(digits) <= _MAX_DIGITS else f"a number of {len(digits)} digits"
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, not {shown}")
        return int(cleaned)

    return parse


def decimal(text: str, what: str) -> float:
    """A finite number in ASCII digits (no "nan" or "inf")."""
    cleaned = text.strip()
    value = float(cleaned) if _DECIMAL.fullmatch(cleaned) else math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    return value


def seconds(text: str) -> float:
    """A time in seconds, more than 0 and at most an hour."""
    value = decimal(text, "a number of seconds")
    if not 0 < value <= MAX_REMINDER_SECONDS:
        raise argparse.ArgumentTypeError(
            f"must be more than 0 seconds and at most {MAX_REMINDER_SECONDS:.0f}, not {text.strip()}"
        )
    return value


def probability(text: str) -> float:
    value = decimal(text, "a number")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a probability is between 0 and 1, not {text.strip()}")
    return value


def device(text: str) -> int | str:
    """A sound device: its index in ASCII digits, or (part of) its name."""
    cleaned = text.strip()
    if _WHOLE.fullmatch(cleaned):
        return whole_number(0, 10_000)(cleaned)
    if cleaned.isdigit() or not is_printable_name(cleaned):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a device index (write it with the digits 0-9) nor part of a device name"
        )
    return cleaned


def player_name(text: str) -> str:
    """A name to show and say: not empty, no control characters."""
    cleaned = text.strip()
    if not cleaned:
        raise argparse.ArgumentTypeError(f"{text!r} is not a name: give a name with letters in it, such as Ann")
    if not is_printable_name(cleaned):  # letters there are: what is wrong is a character the screen cannot show
        raise argparse.ArgumentTypeError(f"{text!r} holds a control or invisible character: type the name without it")
    return cleaned


def path_text(text: str) -> str:
    """A file or folder name as typed, refused when no system could open it (too long, a NUL in it)."""
    problem = path_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{shown_path(text)!r}: {problem}")
    return text


def file_path(text: str) -> Path:
    """:func:`path_text`, as a path."""
    return Path(path_text(text))


def output_file(text: str) -> Path:
    """:func:`file_path` of a file to write (an export, a picture), refused when it is one the game keeps."""
    path = file_path(text)
    if kept_by_the_game(path):
        raise argparse.ArgumentTypeError(
            f"{shown_path(text)!r} is one of the files voice-earl keeps its games in: writing it would destroy them,"
            " give another file"
        )
    return path


SEED = whole_number(0, MAX_SEED)
SERIES_ID = whole_number(MIN_SERIES_ID, MAX_SERIES_ID)  # a saved series' number, as `voice-earl history` lists it
