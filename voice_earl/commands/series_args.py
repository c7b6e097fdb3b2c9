"""Arguments that name a saved series: ``history show ID``, ``history abandon ID``, ``play --resume [ID]``."""

from __future__ import annotations

import argparse
import re

from voice_earl.keep.storage_values import MAX_SERIES_ID, MIN_SERIES_ID

HELP = "the series number, as `voice-earl history` lists it"


def series_id(text: str) -> int:
    """A series number as typed: digits (ASCII) only, and small enough to be one.

    >>> series_id("12")
    12
    >>> series_id("99999999999999999999")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: there is no series 99999999999999999999: series numbers go up to 9223372036854775807
    """
    digits = text.strip()
    if not re.fullmatch(r"[0-9]+", digits):
        raise argparse.ArgumentTypeError(f"{text!r} is not a series number (see `voice-earl history`)")
    number = int(digits)
    if not MIN_SERIES_ID <= number <= MAX_SERIES_ID:
        raise argparse.ArgumentTypeError(f"there is no series {digits}: series numbers go up to {MAX_SERIES_ID}")
    return number
