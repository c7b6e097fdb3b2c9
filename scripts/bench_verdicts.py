"""Speed and accuracy of the fuzzy verdicts, on generated transcripts.

    .venv/bin/python scripts/bench_verdicts.py [--seed N] [--cases N]

Each generated transcript is labelled with what the player really did (said the due line, said
another line, named another rank, passed, talked, or stayed silent) and then perturbed the way
a recognizer garbles speech: small words dropped, words swapped for sound-alikes, chatter
around the line, the rank word misheard as a non-rank word. The tables give line grades per
second and, for each strictness, per-verdict precision and recall against those labels.

A rank misheard as a non-rank word ("seven" -> "eleven") is labelled ``correct`` (the player
said it right) although the judge is meant to answer ``unclear`` there: those cases show up as
the price of never accepting a rank it did not hear.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import EARL, SNIP_SNAP_SNORUM, ChantSet
from voice_earl.words.context import ListenContext
from voice_earl.words.text import normalise
from voice_earl.words.verdicts import Strictness, Verdict, grade_line

SOUND_ALIKES = {
    "there": ("their", "where"),
    "good": ("could", "goods"),
    "best": ("bess", "bast"),
    "all": ("awl", "call"),
    "three": ("tree", "free"),
    "earl": ("oil", "pearl"),
    "coventry": ("coventree", "covent"),
    "he": ("we", "she"),
    "can": ("kin", "and"),
    "be": ("bee", "me"),
    "snip": ("snipe", "ship"),
    "snap": ("snaps", "slap"),
    "snorum": ("snore", "storm"),
    "snorem": ("snore", "storm"),
    "and": ("an", "in"),
    "the": ("a", "this"),
    "of": ("off", "on"),
    "as": ("is", "has"),
    "a": ("the", "uh"),
}
MISHEARD_RANKS = {
    Rank.ACE: "a",
    Rank.TWO: "do",
    Rank.THREE: "free",
    Rank.FOUR: "floor",
    Rank.FIVE: "fire",
    Rank.SIX: "sticks",
    Rank.SEVEN: "eleven",
    Rank.EIGHT: "late",
    Rank.NINE: "mine",
    Rank.TEN: "then",
    Rank.JACK: "jacket",
    Rank.QUEEN: "green",
    Rank.KING: "keen",
}
SMALL = frozenset({"a", "an", "the", "as", "of", "and", "is", "be"})
CHATTER = (
    "whose turn is it",
    "pass me the crisps please",
    "I have no idea",
    "what did you say",
    "hold on a second",
    "that's not fair",
    "good game everyone",
    "can you see my cards",
    "is it my go now",
    "the queen of hearts",
    "three of a kind",
    "hang on I dropped one",
    "who dealt this mess",
    "I think it's your turn",
    "okay okay",
)
PASS_SAYINGS = ("pass", "Pass!", "I pass", "pass.", "pass pass")
SILENCE = ("", "[unk]", "<unk> <unk>", "uh", "  ", "++NOISE++")


@dataclass(frozen=True)
class Case:
    truth: Verdict
    kind: str
    transcript: str
    context: ListenContext


def _words(text: str) -> list[str]:
    return normalise(text).split()


def drop_small(words: list[str], rng: random.Random) -> list[str]:
    small = [i for i, word in enumerate(words) if word in SMALL]
    if not small:
        return words
    i = rng.choice(small)
    return words[:i] + words[i + 1 :]


def sound_alike(words: list[str], rng: random.Random, skip: str | None) -> list[str]:
    choices = [i for i, word in enumerate(words) if word in SOUND_ALIKES and word != skip]
    if not choices:
        return words
    i = rng.choice(choices)
    return [*words[:i], rng.choice(SOUND_ALIKES[words[i]]), *words[i + 1 :]]


def wrap(words: list[str], rng: random.Random) -> list[str]:
    before = rng.choice(((), ("um", "well"), ("okay",), ("right", "so")))
    after = rng.choice(((), ("i", "think"), ("ha",)))
    return [*before, *words, *after]


def _lead_ranks(rank: Rank, rng: random.Random) -> tuple[Rank, ...]:
    if rng.random() < 0.5:
        return RANKS
    others = rng.sample([r for r in RANKS if r is not rank], rng.randint(0, 4))
    return (rank, *others)


def _perturbations(rank: Rank, rng: random.Random) -> list[tuple[str, Callable[[list[str]], list[str]]]]:
    word = rank.word.lower()
    return [
        ("clean", lambda w: w),
        ("small word dropped", lambda w: drop_small(w, rng)),
        ("sound-alike", lambda w: sound_alike(w, rng, word)),
        ("chatter around", lambda w: wrap(w, rng)),
        ("two slips", lambda w: sound_alike(drop_small(w, rng), rng, word)),
    ]


def generate(count: int, rng: random.Random) -> list[Case]:
    cases: list[Case] = []
    while len(cases) < count:
        chant: ChantSet = rng.choice((EARL, EARL, EARL, SNIP_SNAP_SNORUM))
        position = rng.randint(1, 4)
        rank = rng.choice(RANKS)
        context = ListenContext(position, _lead_ranks(rank, rng) if position == 1 else (rank,), chant)
        due = rng.choice(chant.accepted(position, rank))
        for kind, perturb in _perturbations(rank, rng):
            text = " ".join(perturb(_words(due)))
            cases.append(Case(Verdict.CORRECT, kind, text, context))
        if chant.names_rank[position - 1]:
            misheard = " ".join(MISHEARD_RANKS[rank] if w == rank.word.lower() else w for w in _words(due))
            cases.append(Case(Verdict.CORRECT, "rank misheard", misheard, context))
            wrong = [r for r in RANKS if r not in context.ranks]
            if wrong:
                other = rng.choice(wrong)
                text = rng.choice(chant.accepted(position, other))
                cases.append(Case(Verdict.WRONG_RANK, "wrong rank", text, context))
                slipped = " ".join(drop_small(_words(text), rng))
                cases.append(Case(Verdict.WRONG_RANK, "wrong rank, slip", slipped, context))
        other_position = rng.choice([p for p in (1, 2, 3, 4) if p != position])
        other_line = rng.choice(chant.accepted(other_position, rank))
        cases.append(Case(Verdict.WRONG_LINE, "other line", other_line, context))
        slipped = " ".join(sound_alike(_words(other_line), rng, rank.word.lower()))
        cases.append(Case(Verdict.WRONG_LINE, "other line, slip", slipped, context))
        cases.append(Case(Verdict.PASS, "pass", rng.choice(PASS_SAYINGS), context))
        cases.append(Case(Verdict.UNCLEAR, "chatter", rng.choice(CHATTER), context))
        cases.append(Case(Verdict.SILENT, "silence", rng.choice(SILENCE), context))
    return cases[:count]


def speed_table() -> None:
    contexts = {
        "second card, 1 rank": (ListenContext(2, (Rank.QUEEN,)), "there's a queen as good as he"),
        "lead, 13 ranks": (ListenContext(1, RANKS), "there's as good a seven can be"),
        "chatter, lead": (ListenContext(1, RANKS), "um well hang on there's as good as i think"),
        "snip snap snorum": (ListenContext(4, (Rank.TWO,), SNIP_SNAP_SNORUM), "snorem"),
    }
    print(f"{'context':24} {'grades/s':>13} {'us each':>8}")
    for name, (context, transcript) in contexts.items():
        rounds = 3000
        start = time.perf_counter()
        for _ in range(rounds):
            grade_line(transcript, context)
        elapsed = time.perf_counter() - start
        print(f"{name:24} {rounds / elapsed:13,.0f} {elapsed / rounds * 1e6:8.0f}")


def accuracy_table(cases: list[Case]) -> None:
    print(
        f"\n{len(cases)} generated transcripts: "
        + ", ".join(f"{v.value} {n}" for v, n in Counter(c.truth for c in cases).items())
    )
    header = f"{'strictness':10} {'verdict':11} {'precision':>9} {'recall':>7} {'support':>8}"
    print(header)
    for strictness in Strictness:
        answers = [grade_line(case.transcript, case.context, strictness).verdict for case in cases]
        for verdict in Verdict:
            said = sum(1 for a in answers if a is verdict)
            real = sum(1 for c in cases if c.truth is verdict)
            hits = sum(1 for a, c in zip(answers, cases, strict=True) if a is verdict and c.truth is verdict)
            precision = f"{hits / said:9.3f}" if said else f"{'-':>9}"
            recall = f"{hits / real:7.3f}" if real else f"{'-':>7}"
            print(f"{strictness.value:10} {verdict.value:11} {precision} {recall} {real:8}")
        accepted_wrongly = sum(
            1 for a, c in zip(answers, cases, strict=True) if a is Verdict.CORRECT and c.truth is not Verdict.CORRECT
        )
        print(f"{strictness.value:10} {'(false correct)':11} {accepted_wrongly:>9}")
    print("\nrecall of 'correct' by perturbation (lenient / normal / strict):")
    kinds = sorted({c.kind for c in cases if c.truth is Verdict.CORRECT})
    for kind in kinds:
        subset = [c for c in cases if c.kind == kind]
        rates = [
            sum(grade_line(c.transcript, c.context, s).verdict is Verdict.CORRECT for c in subset) / len(subset)
            for s in Strictness
        ]
        print(f"  {kind:20} " + " / ".join(f"{r:.3f}" for r in rates) + f"   (n={len(subset)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cases", type=int, default=4000)
    args = parser.parse_args()
    speed_table()
    accuracy_table(generate(args.cases, random.Random(args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
