"""Chant sets: the line each position of a quartet calls for (custom ones are read by ``keep.chant_files``).

A chant set names four lines; ``{rank}`` in a line stands for the rank's word. Before a rank
that starts with a vowel sound the article reads "an" ("There's an Ace as good as he"); "a" is
accepted too.

>>> EARL.line(1, Rank.QUEEN)
"There's as good as Queen can be"
>>> EARL.line(2, Rank.EIGHT)
"There's an Eight as good as he"
>>> EARL.accepted(2, Rank.ACE)
("There's an Ace as good as he", "There's a Ace as good as he")
>>> EARL.line(4, Rank.QUEEN)
"And there's the Earl of Coventry"
>>> SNIP_SNAP_SNORUM.accepted(4, Rank.TWO)
('Snorum', 'Snorem')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from voice_earl.game.cards import Rank

POSITIONS = (1, 2, 3, 4)
RANK_SLOT = "{rank}"

# "a {rank}" as a word of its own ("There's a {rank}", "A {rank}"), not the end of "Ina {rank}".
_A_BEFORE_RANK = re.compile(r"(?<![\w'])([Aa]) \{rank\}")
# The rank words that start with a vowel sound (Ace, Eight).
_VOWEL_SOUND = tuple("AEIOU")


@dataclass(frozen=True)
class ChantSet:
    """Four lines, and for each position the other wordings that count as the same line."""

    name: str
    lines: tuple[str, str, str, str]
    alternates: tuple[tuple[str, ...], ...] = ((), (), (), ())

    def line(self, position: int, rank: Rank) -> str:
        """The line due at ``position`` (1-4) for ``rank``: what is shown, spoken and taught."""
        return _fill(_with_article(self.lines[_index(position)], rank), rank)

    def accepted(self, position: int, rank: Rank) -> tuple[str, ...]:
        """The line due first, then every wording accepted as the same line (both articles before a vowel)."""
        i = _index(position)
        wordings = (self.lines[i], *self.alternates[i])
        proper = [_fill(_with_article(text, rank), rank) for text in wordings]
        return tuple(dict.fromkeys([*proper, *(_fill(text, rank) for text in wordings)]))

    def templates(self, position: int) -> tuple[str, ...]:
        """The wordings of ``position`` with ``{rank}`` unfilled, the line first; each "a {rank}" also as
        "an {rank}", so that whichever article is said, the wording matches."""
        i = _index(position)
        wordings = (self.lines[i], *self.alternates[i])
        with_an = (_A_BEFORE_RANK.sub(r"\1n {rank}", text) for text in wordings)
        return tuple(dict.fromkeys((*wordings, *with_an)))

    @property
    def names_rank(self) -> tuple[bool, bool, bool, bool]:
        """For each position, whether its line says the rank (so a wrong rank can be heard)."""
        return tuple(RANK_SLOT in line for line in self.lines)  # type: ignore[return-value]


def _with_article(template: str, rank: Rank) -> str:
    """ "a {rank}" becomes "an {rank}" before a rank that starts with a vowel sound."""
    if not rank.word.startswith(_VOWEL_SOUND):
        return template
    return _A_BEFORE_RANK.sub(r"\1n {rank}", template)


def _fill(template: str, rank: Rank) -> str:
    return template.replace(RANK_SLOT, rank.word)


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
    # The common slip is accepted as the same line (rules README, "Both profiles"), never taught.
    alternates=(("There's as good a {rank} can be",), (), (), ()),
)

SNIP_SNAP_SNORUM = ChantSet(
    name="snip-snap-snorum",
    lines=("{rank}", "Snip", "Snap", "Snorum"),
    alternates=((), (), (), ("Snorem",)),
)

BUILTIN: dict[str, ChantSet] = {chant.name: chant for chant in (EARL, SNIP_SNAP_SNORUM)}
