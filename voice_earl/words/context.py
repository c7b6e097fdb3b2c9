"""What may be said on a turn: the line due, its rivals and a pass.

>>> from voice_earl.game.cards import Rank
>>> second = ListenContext(2, (Rank.QUEEN,))
>>> second.due_lines()
("There's a Queen as good as he",)
>>> second.phrases()  # doctest: +NORMALIZE_WHITESPACE
('there is a queen as good as he', 'there is as good as queen can be', 'there is as good a queen can be',
 'there is the best of all the three', 'and there is the earl of coventry', 'pass')
>>> len(ListenContext.fixed().phrases())  # 13 ranks x 3 rank lines, 2 with "an" (Ace, Eight), 2 fixed lines, pass
46
>>> ListenContext(2, (Rank.QUEEN,), language="it").pass_words
('pass', 'passo')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import EARL, POSITIONS, ChantSet
from voice_earl.i18n import DEFAULT_LANGUAGE
from voice_earl.words.text import normalise

# Kept to the one word the rules name (parlour Gameplay 2: "simply say 'pass'"): every extra
# word here is one more way for table talk to be heard as a pass.
PASS_WORDS: tuple[str, ...] = ("pass",)
# The word the rules in each language name (Dutch "zeg gewoon 'pas'", Italian "dice semplicemente 'passo'"),
# a pass beside "pass" when the table speaks that language: only there, where the players read those rules.
OWN_PASS_WORDS: dict[str, tuple[str, ...]] = {"nl": ("pas",), "it": ("passo",)}
# What the game tells a player to say to pass ("pass" alone is a pass too): two syllables are heard
# far more often than one in a loud room. On the golden corpus in babble at 6 dB, "I pass" 11 of 18
# and "pass" 3 of 18; held to a phone, on the benchmark's held-out voices, 14 of 14 and 9 of 14.
PASS_SAYING = "I pass"
# What the table listens for on every turn besides the lines (the table's session acts on them).
SPOKEN_COMMANDS: tuple[str, ...] = ("undo", "repeat")


@dataclass(frozen=True)
class ListenContext:
    """The turn being listened to: the position due and the rank(s) it may name."""

    position: int  # 1..4, the position due
    ranks: tuple[Rank, ...]  # positions 2-4: exactly the one rank; a lead: every rank the player may lead
    chant: ChantSet = EARL
    commands: tuple[str, ...] = ()  # spoken commands the table also listens for ("undo", "repeat")
    must_pass: bool = False  # passing is all the player may do (a virtual deck: they hold none of the
    # rank), so what they are told to say when not heard is "I pass", not the line
    may_pass: bool = False  # the player may pass or play, and the laptop cannot tell which (a real pack:
    # it does not know the hands), so what they are told to say when not heard is the line or "I pass"
    language: str = DEFAULT_LANGUAGE  # the table's language: its rules' own word passes too ("pas", "passo")

    def __post_init__(self) -> None:
        if self.position not in POSITIONS:
            raise ValueError(f"position must be 1-4, not {self.position}")
        object.__setattr__(self, "ranks", tuple(dict.fromkeys(self.ranks)))
        if not self.ranks:
            raise ValueError("a listening context needs at least one rank")
        if self.position > 1 and len(self.ranks) != 1:
            raise ValueError(f"position {self.position} follows one rank, not {len(self.ranks)}")
        if (self.must_pass or self.may_pass) and self.position == 1:
            raise ValueError("a lead cannot be passed")

    @classmethod
    def fixed(cls, chant: ChantSet = EARL, language: str = DEFAULT_LANGUAGE) -> ListenContext:
        """One grammar for every turn (the baseline): every line for every rank.

        It is a lead with every rank open, whose phrases are every line x every rank; use it
        for a recognizer's grammar, and grade each line against its turn's real context.
        """
        return cls(1, RANKS, chant, language=language)

    @property
    def due_rank(self) -> Rank | None:
        """The rank the due line must name, or None at a lead with a choice of ranks."""
        return self.ranks[0] if len(self.ranks) == 1 else None

    @property
    def pass_words(self) -> tuple[str, ...]:
        """What passes when said alone: "pass", and the word the rules in the table's language name."""
        return (*PASS_WORDS, *OWN_PASS_WORDS.get(self.language, ()))

    def due_lines(self) -> tuple[str, ...]:
        """Every accepted wording of the due line, for each possible rank (display text)."""
        return _unique(text for rank in self.ranks for text in self.chant.accepted(self.position, rank))

    def phrases(self, *, rival_ranks: bool = False) -> tuple[str, ...]:
        """What a recognizer grammar should allow this turn, normalised and deduplicated.

        The due line(s) first, then the other positions' lines for these ranks (so that a wrong
        line is heard as wrong instead of being forced onto the right one), then the pass
        word(s) and any spoken commands. ``rival_ranks=True`` adds the due line for every other rank too, so that a
        wrong rank can be heard as wrong; it makes the grammar larger.
        """
        rival = tuple(rank for rank in RANKS if rank not in self.ranks) if rival_ranks else ()
        due = [text for rank in self.ranks + rival for text in self.chant.accepted(self.position, rank)]
        others = [
            text
            for position in POSITIONS
            if position != self.position
            for rank in self.ranks
            for text in self.chant.accepted(position, rank)
        ]
        return _unique(normalise(text) for text in (*due, *others, *self.pass_words, *self.commands))

    def vocabulary(self, *, rival_ranks: bool = False) -> frozenset[str]:
        """Every word in :meth:`phrases` (with the same ``rival_ranks``)."""
        return frozenset(word for phrase in self.phrases(rival_ranks=rival_ranks) for word in phrase.split())


def _unique(texts: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(texts))
