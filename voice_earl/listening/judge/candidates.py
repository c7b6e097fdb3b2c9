"""What the judge weighs on a turn: every line it might hear, the pass phrases and the commands.

Candidates are written as Whisper writes them: a leading space, capitals, and for the short
phrases (passes, commands) the full stop at the end. The full stop is scored too, so a phrase
followed by more talk ("Pass me the crisps") scores worse than the phrase said alone. A line's
full stop is scored after its words but kept apart from them (the judge's ``scored_text``): talk
going on around the table after a line must not count against its words, while talk that goes
on past a formula's words makes that stop unlikely. A line that names a rank is a :class:`Template`
whose rank slot the judge fills with the rank it hears, from every rank there is, so that a
wrong rank is heard as wrong instead of being forced onto the rank due.

>>> from voice_earl.game.cards import Rank
>>> turn = turn_candidates(ListenContext(2, (Rank.QUEEN,), commands=("undo",)))
>>> [(t.position, t.before, t.after, len(t.ranks)) for t in turn.templates][:2]
[(2, " There's a", ' as good as he', 13), (1, " There's as good as", ' can be', 1)]
>>> [c.text for c in turn.fixed]  # doctest: +NORMALIZE_WHITESPACE
[" There's the best of all the three", " And there's the Earl of Coventry",
 ' Pass.', ' I pass.', ' Pass, please.', ' Undo.']
>>> [c.phrase for c in turn.fixed][2:], [c.rankless for c in turn.fixed][:3]
(['pass', 'pass', 'pass', 'undo'], [True, True, False])
>>> rank_spellings(Rank.SEVEN)
(' seven', ' Seven', ' 7')
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TypeVar

from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import POSITIONS
from voice_earl.words.context import OWN_PASS_WORDS, PASS_WORDS, ListenContext
from voice_earl.words.text import SLOT, normalise

# Ways of saying "pass" on its own. Each is judged the pass word itself; a sentence that merely
# contains "pass" is none of them (the full stop is scored). A Dutch or Italian table's own word is
# weighed too, alone ("Pas.", "Passo.").
PASS_PHRASES: tuple[str, ...] = ("Pass", "I pass", "Pass, please")
# At a table that speaks another language, its players pass in its words ("pas", "ik pas", "io passo"):
# "Pass, please" is English talk there, and talk in the table's language sounds like it ("dat past niet").
PASS_PHRASES_ABROAD: tuple[str, ...] = ("Pass", "I pass")
# The due line is scored whole with this many of the ranks likeliest in its slot; other lines with one.
DUE_RANKS_SCORED = 3


class Kind(enum.Enum):
    LINE = "line"
    PASS = "pass"
    COMMAND = "command"


@dataclass(frozen=True)
class Candidate:
    kind: Kind
    text: str  # as Whisper would write it: " There's a queen as good as he."
    phrase: str  # what the verdicts judge, normalised: "there is a queen as good as he"
    position: int | None = None  # the position whose line this is
    rankless: bool = False  # a line that names no rank: likely English on its own ("There's the best of all the three")


class Heard(enum.Enum):
    """What accepting a candidate does: each kind has its own operating point."""

    LINE = "line"  # the line due, with a rank due: the move
    WRONG = "wrong"  # another position's line, or the line due with a rank not due: a penalty
    PASS = "pass"
    COMMAND = "command"


def heard_as(candidate: Candidate, rank_due: bool, due_position: int | None) -> Heard:
    """What accepting ``candidate`` would do (``rank_due``: its rank slot holds a rank due, or it has
    none): another position's line is a wrong line, a rank not due a wrong rank."""
    if candidate.kind is Kind.PASS:
        return Heard.PASS
    if candidate.kind is Kind.COMMAND:
        return Heard.COMMAND
    at_due = due_position is None or candidate.position == due_position
    return Heard.LINE if at_due and rank_due else Heard.WRONG


@dataclass(frozen=True)
class Template:
    """A line with a rank slot: ``before`` + a rank's spelling + ``after``."""

    position: int
    before: str
    after: str
    ranks: tuple[Rank, ...]  # the ranks the slot may take (none: the rank heard in the due line's slot)
    keep: int = 1  # how many of the likeliest ranks to score as whole lines

    def fill(self, spelling: str, before: str | None = None) -> Candidate:
        text = f"{self.before if before is None else before}{spelling}{self.after}"
        return Candidate(Kind.LINE, text, normalise(text), self.position)


@dataclass(frozen=True)
class TurnCandidates:
    templates: tuple[Template, ...]  # lines with a rank slot, the due line's first
    fixed: tuple[Candidate, ...]  # lines without a slot, the pass phrases and the commands


def sentence(text: str) -> str:
    """A chant line as Whisper writes it.

    >>> sentence("There's the best of all the three"), sentence("Snorum!")
    (" There's the best of all the three.", ' Snorum!')
    """
    text = " ".join(text.split())
    return f" {text}" if text[-1:] in ".!?" else f" {text}."


def rank_spellings(rank: Rank) -> tuple[str, ...]:
    """How Whisper may write a rank in a line: the word in either case, and digits for 2-10."""
    spellings = [f" {rank.word.lower()}", f" {rank.word}"]
    if rank.value.isdigit():
        spellings.append(f" {rank.value}")
    return tuple(spellings)


def turn_candidates(context: ListenContext) -> TurnCandidates:
    """The turn's candidates: every line with every rank, the pass phrases and the turn's spoken
    commands (a line's rank slot is filled by the judge, so more ranks cost nothing)."""
    chant = context.chant
    templates: list[Template] = []
    fixed: list[Candidate] = []
    order = (context.position, *(p for p in POSITIONS if p != context.position))
    for position in order:
        # The line due may name any rank, and a rank not due must be heard as such. Another
        # position's line is a wrong line whatever its rank: it gets the rank due, or at a lead
        # the rank heard in the lead's own slot (no ranks here), which costs no decoding.
        due = position == context.position
        ranks = RANKS if due else (context.ranks if len(context.ranks) == 1 else ())
        index = position - 1
        for number, wording in enumerate(_wordings(chant.lines[index], chant.alternates[index])):
            if SLOT in wording:
                before, after = (" ".join(part.split()) for part in wording.split(SLOT, 1))
                keep = DUE_RANKS_SCORED if due and number == 0 else 1
                templates.append(Template(position, f" {before}" if before else "", _tail(after), ranks, keep))
            else:
                text = f" {' '.join(wording.split())}"
                fixed.append(Candidate(Kind.LINE, text, normalise(text), position, rankless=True))
    pass_word = normalise(PASS_WORDS[0])
    own = OWN_PASS_WORDS.get(context.language, ())
    phrases = PASS_PHRASES_ABROAD if own else PASS_PHRASES
    fixed.extend(Candidate(Kind.PASS, sentence(phrase), pass_word) for phrase in phrases)
    fixed.extend(Candidate(Kind.PASS, sentence(word.capitalize()), normalise(word)) for word in own)
    fixed.extend(
        Candidate(Kind.COMMAND, sentence(command.capitalize()), normalise(command)) for command in context.commands
    )
    return TurnCandidates(tuple(_unique(templates)), tuple(_unique(fixed)))


def _wordings(line: str, alternates: tuple[str, ...]) -> tuple[str, ...]:
    """A line and those of its other wordings that sound different: "as good a" for "as good as" is
    the same to the ear (and judged the same line), so scoring it too would only cost time."""

    def words(wording: str) -> list[str]:
        return normalise(wording.replace(SLOT, " ")).split()

    main = words(line)
    different = [
        wording
        for wording in alternates
        if len(other := words(wording)) != len(main) or sum(a != b for a, b in zip(main, other, strict=True)) > 1
    ]
    return (line, *different)


def _tail(after: str) -> str:
    """What follows the rank: " can be", or "!"."""
    if not after:
        return ""
    return after if after[0] in ",;:!?." else f" {after}"


T = TypeVar("T")


def _unique(items: list[T]) -> list[T]:
    return list(dict.fromkeys(items))
