"""Word alignment of a transcript against one line, with the rank word set aside.

A weighted word-level edit distance: small words ("a", "as", "the") cost half as much to drop
or add as other words; a misheard word costs in proportion to how different it looks (rapidfuzz's
character ratio); words said before or after the line (table talk caught by the microphone) cost
a quarter, less around lines shorter than four words. The rank slot takes any single rank word
for free: whether it is the *right* rank is graded separately, because rank words are decisive.

>>> from voice_earl.words.text import template_words
>>> line = template_words("There's a {rank} as good as he")
>>> align(("there", "is", "a", "king", "as", "good", "as", "he"), line)
Alignment(score=100, filler='king', has_slot=True)
>>> align(("there", "is", "king", "as", "good", "as", "he"), line).score  # "a" dropped
92
>>> align(("there", "is", "a", "as", "good", "as", "he"), line)  # no rank word at all
Alignment(score=83, filler=None, has_slot=True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from voice_earl.words.text import RANK_BY_WORD, RANK_HOMOPHONES, SLOT

SMALL_WORDS = frozenset({"a", "an", "the", "as", "of", "and", "is", "be", "to", "in", "on", "it", "so", "oh", "i"})
SMALL_WEIGHT = 0.5
# Words outside the line (before its first word or after its last) cost this fraction.
EDGE_FACTOR = 0.25
# ... for lines at least this heavy; shorter lines pay proportionally less.
FULL_LINE_WEIGHT = 4.0
# A slot filled with something other than a rank word costs as much as a missing word.
SLOT_WEIGHT = 1.0


@dataclass(frozen=True, slots=True)
class Alignment:
    score: int  # 0-100: 100 - the weighted edit cost as a percentage of the line's weight
    filler: str | None  # the said word standing where the rank goes (None: no slot, or nothing there)
    has_slot: bool


@lru_cache(maxsize=8192)
def weight(word: str) -> float:
    """What dropping or adding ``word`` costs."""
    if word == SLOT:
        return SLOT_WEIGHT
    return SMALL_WEIGHT if len(word) == 1 or word in SMALL_WORDS else 1.0


def is_rank_word(word: str) -> bool:
    return word in RANK_BY_WORD or word in RANK_HOMOPHONES


@lru_cache(maxsize=8192)
def substitution_cost(said: str, due: str) -> float:
    """0 for the same word, up to the heavier word's weight for an unrelated one."""
    if due == SLOT:
        return 0.0 if is_rank_word(said) else SLOT_WEIGHT
    if said == due:
        return 0.0
    # Half the letters different is as bad as a different word: "me" for "he" costs it all.
    difference = min(1.0, 2.0 * (1.0 - fuzz.ratio(said, due) / 100.0))
    return max(weight(said), weight(due)) * difference


@lru_cache(maxsize=8192)
def _costs(said: str, line: tuple[str, ...]) -> tuple[float, ...]:
    return tuple(substitution_cost(said, due) for due in line)


@lru_cache(maxsize=256)
def _line_weights(line: tuple[str, ...]) -> tuple[float, ...]:
    return tuple(weight(word) for word in line)


def align(said: tuple[str, ...], line: tuple[str, ...]) -> Alignment:
    """How closely ``said`` matches ``line`` (normalised words, :data:`SLOT` for the rank)."""
    cols = len(line)
    if not cols:  # a custom line with no words in it ("!!!") matches nothing
        return Alignment(score=0, filler=None, has_slot=False)
    line_weights = _line_weights(line)
    # One row of the edit-distance table at a time; each cell keeps (cost, slot filler index).
    cost = [0.0] * (cols + 1)
    filler = [-1] * (cols + 1)
    for j in range(cols):
        cost[j + 1] = cost[j] + line_weights[j]
    slot = line.index(SLOT) if SLOT in line else -1
    total = sum(line_weights)
    # Table talk around a one-word line ("um well snip I think") must not outweigh the line itself.
    edge_factor = EDGE_FACTOR * min(1.0, total / FULL_LINE_WEIGHT)
    for i, word in enumerate(said):
        costs = _costs(word, line)
        extra = weight(word)
        new_cost = [cost[0] + extra * edge_factor]
        new_filler = [filler[0]]
        for j in range(cols):
            best = cost[j] + costs[j]
            best_filler = i if j == slot else filler[j]
            added = cost[j + 1] + (extra * edge_factor if j == cols - 1 else extra)
            if added < best:
                best, best_filler = added, filler[j + 1]
            dropped = new_cost[j] + line_weights[j]
            if dropped < best:
                best, best_filler = dropped, new_filler[j]
            new_cost.append(best)
            new_filler.append(best_filler)
        cost, filler = new_cost, new_filler
    score = round(100.0 * max(0.0, 1.0 - cost[cols] / total))
    found = said[filler[cols]] if filler[cols] >= 0 else None
    return Alignment(score=score, filler=found, has_slot=slot >= 0)
