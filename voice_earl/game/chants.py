"""Chant sets: the line each position of a quartet calls for (custom ones are read by ``keep.chant_files``).

A chant set names four lines; ``{rank}`` in a line stands for the rank's word.

>>> EARL.line(1, Rank.QUEEN)
"There's as good as Queen can be"
>>> EARL.line(4, Rank.QUEEN)
"And there's the Earl of Coventry"
>>> SNIP_SNAP_SNORUM.accepted(4, Rank.TWO)
('Snorum', 'Snorem')
"""

from __future__ import annotations

from dataclasses import dataclass

from voice_earl.game.cards import Rank

POSITIONS = (1, 2, 3, 4)


@dataclass(frozen=True)
class ChantSet:
    """Four lines, and for each position the other wordings that count as the same line."""

    name: str
    lines: tuple[str, str, str, str]
    alternates: tuple[tuple[str, ...], ...] = ((), (), (), ())

    def line(self, position: int, rank: Rank) -> str:
        """The line due at ``position`` (1-4) for ``rank``."""
        return self.lines[_index(position)].replace("{rank}", rank.word)

    def accepted(self, position: int, rank: Rank) -> tuple[str, ...]:
        """The line due and every wording accepted as the same line."""
        i = _index(position)
        return tuple(text.replace("{rank}", rank.word) for text in (self.lines[i], *self.alternates[i]))

    @property
    def names_rank(self) -> tuple[bool, bool, bool, bool]:
        """For each position, whether its line says the rank (so a wrong rank can be heard)."""
        return tuple("{rank}" in line for line in self.lines)  # type: ignore[return-value]


def _index(position: int) -> int:
    if position not in POSITIONS:
        raise ValueError(f"position must be 1-4, not {position}")
    return position - 1


EARL = ChantSet(
    name="earl",
    lines=(
        "There's as good as {rank} can be",
        "There's a {rank} as good as he",
        "There's the best of all the three",
        "And there's the Earl of Coventry",
    ),
    # The common slip is accepted as the same line (rules README, "Both profiles").
    alternates=(("There's as good a {rank} can be",), (), (), ()),
)

SNIP_SNAP_SNORUM = ChantSet(
    name="snip-snap-snorum",
    lines=("{rank}", "Snip", "Snap", "Snorum"),
    alternates=((), (), (), ("Snorem",)),
)

BUILTIN: dict[str, ChantSet] = {chant.name: chant for chant in (EARL, SNIP_SNAP_SNORUM)}
