"""Grading a line: how a transcript compares with the line due (a :class:`LineGrade`, with its :class:`Verdict`).

>>> from voice_earl.game.cards import Rank
>>> from voice_earl.words.context import ListenContext
>>> queens = ListenContext(2, (Rank.QUEEN,))
>>> grade_line("There's a Queen as good as he", queens).verdict
<Verdict.CORRECT: 'correct'>
>>> grade_line("there's a king as good as he", queens).feedback()
'you said King, but the rank is Queen'
>>> grade_line("there's the best of all the three", queens).feedback()
"that is the third card's line; the second card says 'There's a Queen as good as he'"
>>> grade_line("there's a queen as good as me", queens, Strictness.STRICT).feedback()
"you said 'as good as me', the line ends 'as good as he'"
>>> lead = ListenContext(1, (Rank.SEVEN, Rank.KING))
>>> grade = grade_line("there's as good a 7 can be", lead)
>>> grade.verdict.value, grade.rank, grade.expected  # the slip is accepted; the line is what is taught
('correct', Rank.SEVEN, "There's as good as Seven can be")
>>> grade_line("there's as good as eleven can be", lead).verdict.value
'unclear'

How a verdict is reached (``score`` is the weighted word match of
:mod:`voice_earl.words.align`, 0-100; ``threshold`` depends on the strictness):

1. nothing left after :func:`normalise` -> ``silent``;
2. pass words and small words only ("pass", "I pass"; with a Dutch or Italian table "pas" or
   "passo" too) -> ``pass`` (kept tight on purpose: table talk that merely contains "pass" is not a pass);
3. the due line scores at least the threshold, no worse than any other line: its rank word
   decides: the due rank (at a lead: one of ``context.ranks``) -> ``correct``; another rank
   -> ``wrong_rank``; no rank word where the rank goes -> ``unclear`` (``lenient`` lets a
   missing rank pass at positions 2-4, where the rank is known, but never a different one);
4. another position's line scores at least the threshold -> ``wrong_line``;
5. otherwise -> ``unclear`` (below 50 no line counts as heard: ``heard_position`` is None).

Thresholds: ``lenient`` 60 (about two whole words wrong in a seven-word line), ``normal`` 75
(one word wrong, or a couple of small words dropped), ``strict`` 90 (one small word, or a
near-miss spelling of a word, such as "coventree").
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from rapidfuzz.distance import Levenshtein

from voice_earl.game.cards import Rank
from voice_earl.game.chants import POSITIONS, ChantSet
from voice_earl.i18n import _, rank_name
from voice_earl.words.align import SMALL_WORDS, Alignment, align
from voice_earl.words.context import PASS_SAYING, ListenContext
from voice_earl.words.text import RANK_BY_WORD, RANK_HOMOPHONES, SLOT, normalise, template_words


class Verdict(enum.Enum):
    CORRECT = "correct"
    WRONG_LINE = "wrong_line"  # another position's line
    WRONG_RANK = "wrong_rank"  # the due line naming another rank (at a lead: a rank not open)
    PASS = "pass"
    UNCLEAR = "unclear"  # nothing close enough, or no rank word heard where it is needed
    SILENT = "silent"  # nothing left after normalisation


class Strictness(enum.Enum):
    LENIENT = "lenient"
    NORMAL = "normal"
    STRICT = "strict"

    @property
    def threshold(self) -> int:
        """The lowest score at which a line (or a pass) counts as heard."""
        return _THRESHOLDS[self]


_THRESHOLDS = {Strictness.LENIENT: 60, Strictness.NORMAL: 75, Strictness.STRICT: 90}

DiffKind = Literal["equal", "replace", "insert", "delete"]


@dataclass(frozen=True)
class DiffOp:
    """One stretch of the word diff, seen from the speaker: ``insert`` is words said that the line
    does not have, ``delete`` is words of the line that were not said."""

    kind: DiffKind
    said: tuple[str, ...]
    due: tuple[str, ...]


@dataclass(frozen=True)
class LineGrade:
    verdict: Verdict
    heard: str  # the transcript, normalised
    score: int  # 0-100: how closely the words matched the line heard (the rank word is graded apart)
    position: int  # the position due
    rank: Rank | None  # the due rank, or at a lead the rank heard (None if no rank was heard)
    heard_position: int | None  # the position whose line the transcript came closest to (None: none close)
    heard_rank: Rank | None  # the rank word heard where that line names its rank
    expected: str  # the due line as displayed, for ``rank`` ("RANK" when a lead's rank is unknown), or
    # "I pass" when passing is all the player may do and nothing clear was heard
    diff: tuple[DiffOp, ...]  # what was said against ``expected``, word by word
    must_pass: bool = False  # passing was all the player might do (ListenContext.must_pass)
    or_pass: bool = False  # not heard clearly, from a player who may pass instead (ListenContext.may_pass)

    @property
    def accepted(self) -> bool:
        return self.verdict is Verdict.CORRECT

    def feedback(self) -> str:
        """One sentence for the player; "" when there is nothing to correct (correct, or a pass)."""
        said = self._feedback()
        if self.or_pass:
            return _("{feedback}; or, to pass, say '{saying}'").format(feedback=said, saying=PASS_SAYING)
        return said

    def slip(self) -> str:
        """A line accepted with a word not its own: the first such change, as :meth:`feedback` words it
        ("you said 'as good as me', the line ends 'as good as he'"); "" when it was word-perfect or not
        accepted (then :meth:`feedback` says what to correct)."""
        return _diff_sentence(self.diff) if self.verdict is Verdict.CORRECT else ""

    def _feedback(self) -> str:
        if self.verdict in (Verdict.CORRECT, Verdict.PASS):
            return ""
        if self.must_pass and self.verdict in (Verdict.SILENT, Verdict.UNCLEAR):
            return _("nothing clear was heard; to pass, say '{saying}'").format(saying=self.expected)
        if self.verdict is Verdict.SILENT:
            return _("nothing was heard; the line is '{line}'").format(line=self.expected)
        if self.verdict is Verdict.WRONG_RANK and self.heard_rank is not None:
            said = rank_name(self.heard_rank)
            if self.position == 1:
                return _("you said {rank}, which is not a rank you can lead now").format(rank=said)
            due = rank_name(self.rank) if self.rank is not None else _("another")
            return _("you said {rank}, but the rank is {due}").format(rank=said, due=due)
        if self.verdict is Verdict.WRONG_LINE and self.heard_position is not None:
            return _("that is the {heard}'s line; the {due} says '{line}'").format(
                heard=_card_name(self.heard_position), due=_card_name(self.position), line=self.expected
            )
        if self.heard_position is None:
            return _("that did not sound like the line '{line}'").format(line=self.expected)
        return _diff_sentence(self.diff) or _("that was not clear; the line is '{line}'").format(line=self.expected)


def _card_name(position: int) -> str:
    return {1: _("lead"), 2: _("second card"), 3: _("third card"), 4: _("fourth card")}[position]


# Shown in place of the rank when a lead's rank was not heard.
UNKNOWN_RANK = "RANK"


@dataclass(frozen=True)
class _Wording:
    position: int
    text: str  # display text, "{rank}" where the rank goes
    words: tuple[str, ...]  # normalised, SLOT where the rank goes


@dataclass(frozen=True)
class _Heard:
    wording: _Wording
    alignment: Alignment

    @property
    def rank(self) -> Rank | None:
        filler = self.alignment.filler
        if filler is None:
            return None
        return RANK_BY_WORD.get(filler) or RANK_HOMOPHONES.get(filler)


@lru_cache(maxsize=32)
def _wordings(chant: ChantSet) -> tuple[_Wording, ...]:
    return tuple(
        _Wording(position, text, template_words(text)) for position in POSITIONS for text in chant.templates(position)
    )


# Below this score nothing was close: no line is reported as heard.
NOTHING_CLOSE = 50


def grade_line(transcript: str, context: ListenContext, strictness: Strictness = Strictness.NORMAL) -> LineGrade:
    """Judge what the recognizer heard against the line ``context`` has due.

    Well under a millisecond for a typical context: one small edit-distance table per wording.
    """
    heard = normalise(transcript)
    said = tuple(heard.split())
    wordings = _wordings(context.chant)
    if not said:
        return _line_grade(Verdict.SILENT, said, context, context.due_rank, 0, None, None)
    if _only_pass_words(said, context):
        return _line_grade(Verdict.PASS, said, context, context.due_rank, 100, None, None)

    best_by_position: dict[int, _Heard] = {}
    for wording in wordings:
        match = _Heard(wording, align(said, wording.words))
        current = best_by_position.get(wording.position)
        if current is None or match.alignment.score > current.alignment.score:
            best_by_position[wording.position] = match
    due = best_by_position[context.position]
    best = max(best_by_position.values(), key=lambda h: (h.alignment.score, h is due))
    score = best.alignment.score
    if best is due and score >= strictness.threshold:
        verdict, rank = _grade_rank(due, context, strictness)
    elif score >= strictness.threshold:
        verdict, rank = Verdict.WRONG_LINE, _settled_rank(best.rank, context)
    elif score >= NOTHING_CLOSE:
        verdict, rank = Verdict.UNCLEAR, _settled_rank(best.rank, context)
    else:
        return _line_grade(Verdict.UNCLEAR, said, context, context.due_rank, score, None, None)
    return _line_grade(verdict, said, context, rank, score, best.wording.position, best.rank)


def _only_pass_words(said: tuple[str, ...], context: ListenContext) -> bool:
    """ "pass", "I pass", "pass, pass": a pass word and small words only."""
    words = [word for word in said if word not in SMALL_WORDS]
    return bool(words) and all(word in context.pass_words for word in words)


def _grade_rank(due: _Heard, context: ListenContext, strictness: Strictness) -> tuple[Verdict, Rank | None]:
    """The due line was heard: now its rank word decides."""
    if not due.alignment.has_slot:
        # A custom lead wording without {rank} cannot settle a lead's rank by itself.
        return (Verdict.CORRECT if context.due_rank is not None else Verdict.UNCLEAR), context.due_rank
    heard = due.rank
    if heard is None:
        missing = due.alignment.filler is None
        if missing and strictness is Strictness.LENIENT and context.position > 1:
            return Verdict.CORRECT, context.due_rank
        return Verdict.UNCLEAR, context.due_rank
    if heard in context.ranks:
        return Verdict.CORRECT, heard
    return Verdict.WRONG_RANK, heard if context.position == 1 else context.due_rank


def _settled_rank(heard: Rank | None, context: ListenContext) -> Rank | None:
    if context.position == 1 and heard in context.ranks:
        return heard
    return context.due_rank


def _line_grade(
    verdict: Verdict,
    said: tuple[str, ...],
    context: ListenContext,
    rank: Rank | None,
    score: int,
    heard_position: int | None,
    heard_rank: Rank | None,
) -> LineGrade:
    """The grade, with the due line as taught (never an accepted slip) as ``expected`` and ``diff``; when
    passing is all the player may do and nothing clear was heard, "I pass"."""
    must_pass = context.must_pass and verdict in (Verdict.SILENT, Verdict.UNCLEAR)
    if must_pass:
        expected = PASS_SAYING
        due_words = tuple(normalise(expected).split())
    elif rank is not None:
        expected = context.chant.line(context.position, rank)
        due_words = tuple(normalise(expected).split())
    else:
        template = context.chant.lines[context.position - 1]
        expected = template.replace(SLOT, UNKNOWN_RANK)
        due_words = tuple(UNKNOWN_RANK if word == SLOT else word for word in template_words(template))
    return LineGrade(
        verdict=verdict,
        heard=" ".join(said),
        score=score,
        position=context.position,
        rank=rank,
        heard_position=heard_position,
        heard_rank=heard_rank,
        expected=expected,
        diff=word_diff(said, due_words),
        must_pass=must_pass,
        or_pass=context.may_pass and verdict in (Verdict.SILENT, Verdict.UNCLEAR),
    )


def word_diff(said: tuple[str, ...], due: tuple[str, ...]) -> tuple[DiffOp, ...]:
    """Word-level diff, neighbouring changes merged into one stretch.

    >>> [op.kind for op in word_diff(("as", "good", "me"), ("as", "good", "as", "he"))]
    ['equal', 'replace']
    """
    ops: list[DiffOp] = []
    for opcode in Levenshtein.opcodes(list(said), list(due)):
        part_said = said[opcode.src_start : opcode.src_end]
        part_due = due[opcode.dest_start : opcode.dest_end]
        if opcode.tag != "equal" and ops and ops[-1].kind != "equal":
            part_said, part_due = ops[-1].said + part_said, ops[-1].due + part_due
            ops.pop()
        ops.append(DiffOp(_kind(opcode.tag, part_said, part_due), part_said, part_due))
    return tuple(ops)


def _kind(tag: str, said: tuple[str, ...], due: tuple[str, ...]) -> DiffKind:
    if tag == "equal":
        return "equal"
    if said and due:
        return "replace"
    return "insert" if said else "delete"


# How many matching words to quote before a change, so the player can place it.
_CONTEXT_WORDS = 3


def _diff_sentence(diff: tuple[DiffOp, ...]) -> str:
    """ "you said 'as good as me', the line ends 'as good as he'" for the first change."""
    for index, op in enumerate(diff):
        if op.kind == "equal":
            continue
        before = diff[index - 1].due[-_CONTEXT_WORDS:] if index > 0 else ()
        after: tuple[str, ...] = ()
        if op.kind != "replace" and index + 1 < len(diff):
            after = diff[index + 1].due[:1]
        said = " ".join((*before, *op.said, *after))
        due = " ".join((*before, *op.due, *after))
        due_start = sum(len(o.due) for o in diff[:index]) - len(before)
        due_end = due_start + len(before) + len(op.due) + len(after)
        due_total = sum(len(o.due) for o in diff)
        where = _where(due_start == 0, due_end == due_total)
        if not said or not due:
            return where.format(due=due) if due else _("'{said}' is not in the line").format(said=said)
        return _("you said '{said}', {line}").format(said=said, line=where.format(due=due))
    return ""


def _where(at_start: bool, at_end: bool) -> str:
    """Where the change is in the line, with ``{due}`` for the line's words there."""
    if at_start and at_end:
        return _("the line is '{due}'")
    if at_start:
        return _("the line starts '{due}'")
    return _("the line ends '{due}'") if at_end else _("the line goes '{due}'")
