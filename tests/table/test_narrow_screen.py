"""A narrow terminal keeps every card of a shown hand: where no column of the players' table has room for
it, the hand goes under the table instead of into a column squeezed to nothing."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from support.table_views import screen_text

from voice_earl.game.cards import full_deck
from voice_earl.table.screen_result import body
from voice_earl.table.screen_sections import DealResult, PlayerRow, ResultRow, TableSnapshot

HAND = tuple(card.pretty for card in full_deck()[:13])


def practice_snapshot(name: str) -> TableSnapshot:
    """Practice against three bots: only the human's hand is shown, and it is their turn."""
    players = (
        PlayerRow(name, 13, 0, to_move=True, hand=HAND),
        PlayerRow("Ann (bot)", 13, 0, note="bot"),
        PlayerRow("Ben (bot)", 13, 0, dealer=True, note="bot"),
        PlayerRow("Cy (bot)", 12, 0, note="bot"),
    )
    return TableSnapshot(
        title="Deal 1 of 6 · hoyle · virtual deck",
        players=players,
        rank="5",
        in_quartet=1,
        due_player=name,
        due_line="There's a Five as good as he",
    )


@pytest.mark.parametrize("width", [40, 50, 60, 80])
@pytest.mark.parametrize("name", ["Ann", "🎩 Ālexandra-Maximiliana von Coventry"])
def test_every_card_of_the_hand_is_on_a_narrow_screen(width: int, name: str) -> None:
    text = screen_text(practice_snapshot(name), width=width)
    rows = text.rstrip("\n").split("\n")
    assert len(rows) <= 24 and max(len(row) for row in rows) <= width, text
    shown = text.split()
    missing = [card for card in HAND if card not in shown]
    assert not missing, f"{missing} are not on the screen at {width} columns:\n{text}"


def test_two_columns_of_players_are_not_squeezed_until_the_counts_are_cut() -> None:
    text = screen_text(practice_snapshot("Ann"), width=40)
    for bot, cards in (("Ann (bot)", 13), ("Ben (bot)", 13), ("Cy (bot)", 12)):
        assert re.search(rf"{re.escape(bot)}\s+{cards}\s+0", text), f"{bot} has no whole row:\n{text}"


@pytest.mark.parametrize("width", [40, 50, 80])
def test_the_standings_keep_every_place_and_figure_whole_on_a_narrow_screen(width: int) -> None:
    """At 40 columns the deal's figures and the totals were cut to "…", and the headings to "pl…"."""
    rows = (
        ResultRow(1, "Ann", 3, 12, shared=True),
        ResultRow(1, "Ben (bot)", -1, 12, shared=True),
        ResultRow(3, "Alexandra-Maximiliana", -2, -24),
    )
    result = DealResult("Final standings", "Ann, Ben share first place.", rows, deal=6, final=True)
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(body(result))
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert all(len(line) <= width for line in lines)
    assert lines[2].split() == ["place", "player", "deal", "6", "total"]
    for place, change, total in (("1", "+3", "12"), ("1", "-1", "12"), ("3", "-2", "-24")):
        row = rf"^\s*{place}\.\s+\S+.*\s{re.escape(change)}\s+{re.escape(total)}(\s|$)"
        assert re.search(row, "\n".join(lines), re.MULTILINE), (place, change, total, lines)
