"""The training run's figures: per room, the line due and the pass ranked first of the turn's phrases,
the right rank, a word that is no rank heard as itself, and said against talk (AUC); and its table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from voice_earl.training import data


class Measured(Protocol):
    """A clip as measured: what it is, and the label of what was said (None: talk)."""

    @property
    def clip(self) -> data.Clip: ...

    @property
    def said(self) -> str | None: ...


@dataclass(frozen=True)
class Figures:
    """Per room: the line due and the pass ranked first of the turn's phrases, the right rank of
    thirteen, a line said with a word that is no rank heard with that word (not a rank), and one
    threshold-free figure for phrases said against talk's best phrase (AUC)."""

    line_first: float
    pass_first: float
    rank_right: float
    not_rank: float
    auc: float
    trials: int

    def score(self) -> float:
        return sum(x for x in (self.line_first, self.pass_first, self.not_rank, self.auc) if not np.isnan(x))


def figures_of(items: Sequence[tuple[Measured, dict[str, float]]]) -> Figures:
    lines, passes, ranks, not_ranks, said, talk = [], [], [], [], [], []
    for example, means in items:
        best = max(means, key=lambda label: means[label])
        if example.said is None:
            talk.append(max(means.values()))
            continue
        slot = example.said.split(":")[0] + ":"
        in_slot = {label: mean for label, mean in means.items() if label.startswith(slot)}
        heard_in_slot = max(in_slot, key=lambda label: in_slot[label]) if ":" in example.said else None
        if example.clip.utterance.not_rank is not None:
            not_ranks.append(heard_in_slot == example.said)
            continue
        said.append(means[example.said])
        if example.said == "pass":
            passes.append(best == "pass")
        elif example.said.startswith("line"):
            lines.append(best == example.said)
            if heard_in_slot is not None:
                ranks.append(heard_in_slot == example.said)
    return Figures(share(lines), share(passes), share(ranks), share(not_ranks), auc(said, talk), len(items))


def share(hits: Sequence[bool]) -> float:
    return sum(hits) / len(hits) if hits else float("nan")


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    if not positives or not negatives:
        return float("nan")
    pos, neg = np.asarray(positives)[:, None], np.asarray(negatives)[None, :]
    return float(np.mean((pos > neg) + 0.5 * (pos == neg)))


def table(before: dict[str, Figures], after: dict[str, Figures]) -> list[str]:
    lines = [
        f"{'room':14} {'n':>5} {'line 1st':>15} {'pass 1st':>15} {'right rank':>15} {'not a rank':>15} {'AUC':>15}"
    ]
    for room in [*data.REPORT_ROOMS, "all"]:
        if room not in before:
            continue
        b, a = before[room], after[room]
        cells = [
            f"{100 * x:5.1f} → {100 * y:5.1f}"
            for x, y in (
                (b.line_first, a.line_first),
                (b.pass_first, a.pass_first),
                (b.rank_right, a.rank_right),
                (b.not_rank, a.not_rank),
            )
        ]
        cells.append(f"{b.auc:.3f} → {a.auc:.3f}")
        lines.append(f"{room:14} {b.trials:5} " + " ".join(f"{c:>15}" for c in cells))
    return lines
