"""The formula drill: a random position and rank, you recite, it scores and explains.

The drill is pure apart from its two injected functions: ``recite`` (what the player said,
and how long they took) and ``show`` (a line for the player).

>>> import random
>>> answers = iter(["There's a Five as good as he", "there's the best of all the three"])
>>> drill = Drill(random.Random(4))
>>> prompt = drill.next_prompt()
>>> prompt.position, prompt.rank.word
(2, 'Five')
>>> drill.grade(prompt, next(answers), seconds=1.5).verdict.value
'correct'
>>> drill.streak
1
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import EARL, POSITIONS, ChantSet
from voice_earl.i18n import _, current_language, rank_name, rank_plural
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import LineGrade, Strictness, Verdict, grade_line


@dataclass(frozen=True)
class Prompt:
    position: int
    rank: Rank

    @property
    def text(self) -> str:
        ranks = rank_plural(self.rank)
        if self.position == 1:
            return _("Lead the {ranks}").format(ranks=ranks.lower())
        text = {2: _("{ranks}, second card"), 3: _("{ranks}, third card"), 4: _("{ranks}, fourth card")}[self.position]
        return text.format(ranks=ranks)

    def context(self, chant: ChantSet) -> ListenContext:
        return ListenContext(self.position, (self.rank,), chant, language=current_language())


@dataclass
class LineStats:
    attempts: int = 0
    correct: int = 0
    seconds: float = 0.0

    @property
    def accuracy(self) -> float:
        return self.correct / self.attempts if self.attempts else 0.0

    @property
    def mean_seconds(self) -> float:
        return self.seconds / self.attempts if self.attempts else 0.0


@dataclass
class Drill:
    rng: random.Random
    chant: ChantSet = EARL
    strictness: Strictness = Strictness.NORMAL
    streak: int = 0
    best_streak: int = 0
    per_line: dict[int, LineStats] = field(default_factory=lambda: {p: LineStats() for p in POSITIONS})

    def next_prompt(self) -> Prompt:
        return Prompt(self.rng.choice(POSITIONS), self.rng.choice(RANKS))

    def grade_only(self, prompt: Prompt, transcript: str) -> LineGrade:
        """The verdict, without counting it."""
        return grade_line(transcript, prompt.context(self.chant), self.strictness)

    def grade(self, prompt: Prompt, transcript: str, seconds: float) -> LineGrade:
        """The verdict, counted in the streak and the per-line statistics."""
        grade = self.grade_only(prompt, transcript)
        stats = self.per_line[prompt.position]
        stats.attempts += 1
        stats.seconds += seconds
        if grade.verdict is Verdict.CORRECT:
            stats.correct += 1
            self.streak += 1
            self.best_streak = max(self.best_streak, self.streak)
        else:
            self.streak = 0
        return grade

    def summary(self) -> list[str]:
        """Tries, share right and mean time per line; a line never asked shows dashes, not 0%."""
        lines = [f"{_('line'):<44}{_('tries'):>6}{_('right'):>7}{_('mean s'):>8}"]
        for position, stats in self.per_line.items():
            label = self.chant.lines[position - 1].replace("{rank}", "RANK")
            right, mean = (f"{stats.accuracy:.0%}", f"{stats.mean_seconds:.1f}") if stats.attempts else ("—", "—")
            lines.append(f"{position}. {label:<41}{stats.attempts:>6}{right:>7}{mean:>8}")
        lines.append(_("best streak: {streak}").format(streak=self.best_streak))
        return lines


def run_drill(
    drill: Drill,
    rounds: int,
    recite: Callable[[Prompt], tuple[str, float] | None],
    show: Callable[[str], None],
) -> Drill:
    """``rounds`` prompts (0: until ``recite`` returns None)."""
    done = 0
    while rounds == 0 or done < rounds:
        prompt = drill.next_prompt()
        show(f"\n{prompt.text}")
        answer = recite(prompt)
        if answer is None:
            break
        transcript, seconds = answer
        grade = drill.grade(prompt, transcript, seconds)
        show(feedback_line(grade, drill.streak, seconds, prompt))
        done += 1
    return drill


def feedback_line(grade: LineGrade, streak: int, seconds: float, prompt: Prompt | None = None) -> str:
    if grade.verdict is Verdict.CORRECT:
        text = _("correct ({score}) in {seconds}s · streak {streak}")
        shown = "  " + text.format(score=grade.score, seconds=f"{seconds:.1f}", streak=streak)
        slip = grade.slip()  # accepted, and still worth knowing
        return f"{shown} · {slip}" if slip else shown
    said = _("heard '{heard}'").format(heard=grade.heard) if grade.heard else _("heard nothing")
    detail = grade.feedback() or _("the line is '{line}'").format(line=grade.expected)
    if prompt is not None and grade.verdict is Verdict.WRONG_RANK and grade.heard_rank is not None:
        # The game's words for it ("not a rank you can lead now") are the table's, not the drill's.
        asked = _("you said {rank}, but the drill asked for {ranks}")
        detail = asked.format(rank=rank_name(grade.heard_rank), ranks=rank_plural(prompt.rank))
    return f"  {verdict_name(grade.verdict)}: {said}; {detail}"


def verdict_name(verdict: Verdict) -> str:
    """``wrong line``, in the current language."""
    return {
        Verdict.CORRECT: _("correct"),
        Verdict.WRONG_LINE: _("wrong line"),
        Verdict.WRONG_RANK: _("wrong rank"),
        Verdict.PASS: _("pass"),
        Verdict.UNCLEAR: _("unclear"),
        Verdict.SILENT: _("silent"),
    }[verdict]
