"""The tuning sweep's table (voice_earl/bench/sweep.py, printed by scripts/listening_tuning.py): every setting
has a heading of its own."""

from __future__ import annotations

from voice_earl.bench.sweep import GRID, abbreviations


def test_every_setting_swept_has_a_heading_of_its_own() -> None:
    headings = abbreviations(GRID)
    assert list(headings) == list(GRID)
    assert len(set(headings.values())) == len(GRID)
    assert (headings["sure_floor"], headings["stop_floor"]) == ("sf", "stf")
