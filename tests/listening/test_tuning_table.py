"""The tuning sweep's table (scripts/listening_tuning.py): every setting has a heading of its own."""

from __future__ import annotations

import doctest

import listening_tuning
from listening_tuning import GRID, abbreviations


def test_every_setting_swept_has_a_heading_of_its_own() -> None:
    headings = abbreviations(GRID)
    assert list(headings) == list(GRID)
    assert len(set(headings.values())) == len(GRID)
    assert (headings["sure_floor"], headings["stop_floor"]) == ("sf", "stf")


def test_the_sweeps_examples_hold() -> None:
    """scripts/ is not among pytest's doctest paths: its examples are run here."""
    results = doctest.testmod(listening_tuning)
    assert (results.attempted > 0, results.failed) == (True, 0)
