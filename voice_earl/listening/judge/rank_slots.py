"""Reading a line's rank slot off Whisper's next-token distribution: the first token of every spelling
of every rank, "a" also tried as "an" before a vowel, and the numbers that are no rank."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from voice_earl.game.cards import Rank
from voice_earl.listening.judge.candidates import Candidate, Template, rank_spellings
from voice_earl.listening.judge.scores import Slot
from voice_earl.words.text import RANK_BY_WORD, normalise

# Said where a rank goes, these are no rank ("eleven" is never "seven"). "one" is left out: it may mean the Ace.
NOT_RANKS = (" eleven", " 11", " twelve", " 12", " thirteen", " 13", " zero", " 0", " twenty")


class RankTokens:
    """The first token of every spelling of every rank, to read a slot's ranks off one distribution."""

    def __init__(self, tokens: Callable[[str], list[int]]) -> None:
        self._first: dict[str, int] = {}
        for rank in RANK_BY_WORD.values():
            for spelling in rank_spellings(rank):
                self._first[spelling] = tokens(spelling)[0]
        self._others = {spelling: tokens(spelling)[0] for spelling in NOT_RANKS}

    def ranked(self, at_slot: Mapping[str, Any], template: Template, due_ranks: tuple[Rank, ...] = ()) -> list[Slot]:
        """Every rank the slot may take, likeliest first, each in its likeliest spelling (and whether
        it is due: any is, when none is named)."""
        befores = articles(template.before)
        best: dict[Rank, tuple[float, str, str]] = {}
        for rank in template.ranks:
            for spelling in rank_spellings(rank):
                before = befores[-1] if _starts_with_vowel(spelling) else befores[0]
                logprob = float(at_slot[before][self._first[spelling]])
                if rank not in best or logprob > best[rank][0]:
                    best[rank] = (logprob, spelling, before)
        plain = at_slot[befores[0]]
        other, other_logprob = max(
            ((s, float(plain[token])) for s, token in self._others.items()), key=lambda item: item[1]
        )
        order = sorted(best.items(), key=lambda item: item[1][0], reverse=True)
        top = order[0][1][0]
        runner_up = order[1][1][0] if len(order) > 1 else float("-inf")
        top_due = max((best[rank][0] for rank in due_ranks if rank in best), default=float("-inf"))
        return [
            Slot(
                before,
                spelling,
                logprob,
                normalise(other),
                other_logprob - logprob,
                rank,
                place,
                logprob - (runner_up if place == 0 else top),
                not due_ranks or rank in due_ranks,
                logprob - top_due,
            )
            for place, (rank, (logprob, spelling, before)) in enumerate(order)
        ]


def spelled_out(phrase: str, templates: Sequence[Template]) -> list[Candidate]:
    """The line with a rank that ``phrase`` (normalised, from the first pass) is, if any."""
    return [
        candidate
        for template in templates
        for rank in template.ranks
        if (candidate := template.fill(rank_spellings(rank)[0])).phrase == phrase
    ]


def articles(before: str) -> tuple[str, ...]:
    """The words before a slot, and with "a" as "an" when they end in "a"."""
    return (before, f"{before}n") if before.endswith(" a") else (before,)


def _starts_with_vowel(spelling: str) -> bool:
    word = spelling.strip().lower()
    return word[:1] in ("a", "e", "i", "o", "u") or word.startswith(("8", "11", "18"))


def logsumexp(values: Any) -> float:
    peak = float(np.max(values))
    return peak + float(np.log(np.sum(np.exp(values - peak))))
