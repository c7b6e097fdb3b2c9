"""Practice statistics: accuracy and speed per formula and per rank, word-level slips, trends.

Like is compared with like: the score is how close what was said came to the line that was due (so a
perfect line for the wrong position scores low, as its verdict says), and a slip is either a word said
differently within the line due, or a whole line said for another (never "'king' for 'earl'").

>>> slips("There's a Queen as good as he", "there's a queen as good as me")
[Slip(expected='he', heard='me')]
>>> Slip("the", None).describe()
"dropped 'the'"
>>> LineSlip(due=4, said=2).describe()
"line 2 'as good as he' for line 4 'the Earl'"
>>> bar(0.5, 1.0, 8)
'████    '
"""

from __future__ import annotations

import difflib
import enum
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from voice_earl.game.cards import RANKS
from voice_earl.game.chants import POSITIONS
from voice_earl.keep.storage_values import Utterance
from voice_earl.words.align import align
from voice_earl.words.text import normalise

FORMULA_NAMES = {1: "1 lead", 2: "2 as good as he", 3: "3 best of three", 4: "4 the Earl"}
LINE_NAMES = {1: "the lead", 2: "as good as he", 3: "best of three", 4: "the Earl"}
# Below this score (the verdicts' own) nothing was close to any line: no slip is read into it.
NOTHING_CLOSE = 50
_BLOCKS = " ▏▎▍▌▋▊▉█"  # eighths of a character cell
K = TypeVar("K")


class TrendBy(enum.Enum):
    DAY = "day"
    SESSION = "session"


@dataclass(frozen=True)
class Tally:
    """How a group of utterances went."""

    label: str
    count: int
    correct: int
    mean_score: float
    median_latency_ms: float | None

    @property
    def accuracy(self) -> float:
        return self.correct / self.count if self.count else 0.0


@dataclass(frozen=True)
class Slip:
    """One word said differently from the line due: a substitution, a dropped or an added word."""

    expected: str | None
    heard: str | None

    def describe(self) -> str:
        if self.heard is None:
            return f"dropped '{self.expected}'"
        if self.expected is None:
            return f"added '{self.heard}'"
        return f"'{self.heard}' for '{self.expected}'"


@dataclass(frozen=True)
class LineSlip:
    """A whole line said for another: ``said`` None when it is not known which (kept before that was saved)."""

    due: int
    said: int | None

    def describe(self) -> str:
        due = f"line {self.due} '{LINE_NAMES[self.due]}'"
        if self.said is None:
            return f"another line for {due}"
        return f"line {self.said} '{LINE_NAMES[self.said]}' for {due}"


def line_score(utterance: Utterance) -> int:
    """How close what was heard came to the line due, 0-100, its rank word included.

    The verdicts score what was heard against the line it came closest to; that is the same thing only
    when the line due was said with the rank due.
    """
    if utterance.correct:
        return utterance.score
    said = tuple(words(utterance.heard))
    if not said:
        return 0
    return align(said, tuple(words(utterance.expected))).score


def tally(label: str, utterances: Sequence[Utterance]) -> Tally:
    latencies = [u.latency_ms for u in utterances if u.latency_ms is not None]
    return Tally(
        label=label,
        count=len(utterances),
        correct=sum(u.correct for u in utterances),
        mean_score=statistics.fmean(line_score(u) for u in utterances) if utterances else 0.0,
        median_latency_ms=statistics.median(latencies) if latencies else None,
    )


def by_formula(utterances: Iterable[Utterance]) -> list[Tally]:
    """One tally per formula position that has utterances, in order 1-4."""
    groups = _group(utterances, lambda u: u.position)
    return [tally(FORMULA_NAMES[p], groups[p]) for p in POSITIONS if p in groups]


def by_rank(utterances: Iterable[Utterance]) -> list[Tally]:
    """One tally per rank that has utterances, Ace to King."""
    groups = _group((u for u in utterances if u.rank is not None), lambda u: u.rank)
    return [tally(rank.word, groups[rank]) for rank in RANKS if rank in groups]


def trend(utterances: Iterable[Utterance], by: TrendBy = TrendBy.DAY) -> list[Tally]:
    """Tallies over time, oldest first: per local calendar day, or per practice session."""
    ordered = sorted(utterances, key=lambda u: u.at)
    if by is TrendBy.DAY:
        groups = _group(ordered, lambda u: u.at.astimezone().strftime("%Y-%m-%d"))
    else:
        groups = _group(ordered, _session)
    return [tally(label, items) for label, items in groups.items()]


def _session(utterance: Utterance) -> str:
    """A drill's own session, or the series a line was said in, or (kept before either was) its day."""
    if utterance.session:
        return utterance.session
    if utterance.series_id is not None:
        return f"series {utterance.series_id}"
    return utterance.at.astimezone().strftime("%Y-%m-%d")


def words(text: str) -> list[str]:
    """The words as the verdicts compare them (``There's`` and ``there is`` are the same words)."""
    return normalise(text).split()


def slips(expected: str, heard: str) -> list[Slip]:
    """The word-level differences between the line due and what was heard."""
    want, got = words(expected), words(heard)
    found: list[Slip] = []
    matcher = difflib.SequenceMatcher(a=want, b=got, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        lost, said = want[a0:a1], got[b0:b1]
        paired = min(len(lost), len(said))
        found += [Slip(e, h) for e, h in zip(lost[:paired], said[:paired], strict=True)]
        found += [Slip(e, None) for e in lost[paired:]]
        found += [Slip(None, h) for h in said[paired:]]
    return found


def utterance_slips(utterance: Utterance) -> list[Slip | LineSlip]:
    """What went wrong in one utterance, like with like: word slips within the line due, or a line slip.

    Silence, a spoken pass, and talk close to no line at all are not attempts at a line: no slips.
    """
    u = utterance
    if u.verdict in ("silent", "pass") or not u.heard.strip():
        return []
    if u.verdict == "wrong_line" or (u.heard_position is not None and u.heard_position != u.position):
        return [LineSlip(u.position, u.heard_position)]
    if u.heard_position is None and u.score < NOTHING_CLOSE:
        return []
    return list(slips(u.expected, u.heard))


def common_slips(utterances: Iterable[Utterance], top: int = 10) -> list[tuple[Slip | LineSlip, int]]:
    """The most frequent slips, words and whole lines alike."""
    counts: Counter[Slip | LineSlip] = Counter()
    for u in utterances:
        counts.update(utterance_slips(u))
    return counts.most_common(top)


def bar(value: float, maximum: float, width: int) -> str:
    """A horizontal bar ``width`` cells wide, in eighths of a cell, padded with spaces."""
    share = 0.0 if maximum <= 0 else min(max(value / maximum, 0.0), 1.0)
    eighths = round(share * width * 8)
    full, rest = divmod(eighths, 8)
    text = "█" * full + (_BLOCKS[rest] if rest else "")
    return text.ljust(width)


def bar_chart(
    rows: Sequence[tuple[str, float]], maximum: float, value_text: Callable[[float], str], width: int = 80
) -> list[str]:
    """``label  ████▌   value`` lines, each at most ``width`` characters."""
    if not rows:
        return []
    label_width = min(max(len(label) for label, _ in rows), width // 3)
    value_width = max(len(value_text(value)) for _, value in rows)
    bar_width = max(width - label_width - value_width - 4, 1)
    return [
        f"{label[:label_width].ljust(label_width)}  {bar(value, maximum, bar_width)}  "
        f"{value_text(value).rjust(value_width)}"
        for label, value in rows
    ]


def _group(items: Iterable[Utterance], key: Callable[[Utterance], K]) -> dict[K, list[Utterance]]:
    groups: dict[K, list[Utterance]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups
