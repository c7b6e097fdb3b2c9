#!/usr/bin/env python3
"""Start-up: whole commands as new processes, median of several runs, against a bare Python.

Each row is a new process from start to exit, as a player or a script runs it:

- ``--help``: builds only the top parser (goal: at most ``HELP_GOAL`` times a bare ``python -c pass``);
- ``simulate --deals 1``: one bot deal, the lightest command that plays;
- ``hear one.wav``: one synthesized formula through the listener, and beside it a process that only
  loads the listener as ``hear`` does (the first pass and the judge), so that the difference is
  ``hear``'s own work (goal: well under ``HEAR_OWN_GOAL_S``);
- ``doctor``: the machine check (its exit status is ignored: a machine without sound fails it).

Usage: .venv/bin/python scripts/bench_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HELP_GOAL = 3.0
HEAR_OWN_GOAL_S = 0.5
BIN = Path(sys.executable).parent
LOAD_LISTENER = "from voice_earl.listening.chain import open_listener; open_listener()"


def seconds(command: Sequence[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def median_s(command: Sequence[str], env: dict[str, str], runs: int) -> float:
    seconds(command, env)  # warm the file cache once
    return statistics.median(seconds(command, env) for _ in range(runs))


def one_formula(folder: Path) -> Path | None:
    """'There's a Queen as good as he', synthesized with espeak-ng (None without it)."""
    if shutil.which("espeak-ng") is None:
        return None
    path = folder / "one.wav"
    subprocess.run(["espeak-ng", "-w", str(path), "There's a Queen as good as he"], check=True)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command (default 7)")
    args = parser.parse_args()
    voice_earl = str(BIN / "voice-earl")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        env = {**os.environ, "VOICE_EARL_DATA_DIR": str(folder / "data"), "VOICE_EARL_CONFIG_DIR": str(folder)}
        rows: dict[str, float] = {
            "python -c pass": median_s([sys.executable, "-c", "pass"], env, args.runs),
            "voice-earl --help": median_s([voice_earl, "--help"], env, args.runs),
            "simulate --deals 1": median_s(
                [voice_earl, "simulate", "--players", "4", "--deals", "1", "--seed", "1"], env, args.runs
            ),
        }
        wav = one_formula(folder)
        if wav is not None:
            hear = [voice_earl, "hear", str(wav), "--position", "2", "--rank", "Q", "--json"]
            rows["hear one.wav"] = median_s(hear, env, args.runs)
            rows["  loading the listener alone"] = median_s([sys.executable, "-c", LOAD_LISTENER], env, args.runs)
        rows["doctor"] = median_s([voice_earl, "doctor"], env, max(3, args.runs // 2))
    bare = rows["python -c pass"]
    print(f"whole processes, median of {args.runs} runs")
    print(f"{'command':<32}{'seconds':>10}{'x bare python':>16}")
    for name, value in rows.items():
        print(f"{name:<32}{value:>10.3f}{value / bare:>16.1f}")
    help_ratio = rows["voice-earl --help"] / bare
    print(
        f"--help: {help_ratio:.1f}x a bare python ({'meets' if help_ratio <= HELP_GOAL else 'misses'} "
        f"the {HELP_GOAL:.0f}x goal)"
    )
    if wav is not None:
        own = rows["hear one.wav"] - rows["  loading the listener alone"]
        print(
            f"hear's own work beyond loading the listener: {own:.3f} s "
            f"({'meets' if own < HEAR_OWN_GOAL_S else 'misses'} the {HEAR_OWN_GOAL_S} s goal)"
        )
    else:
        print("hear: espeak-ng is not installed, so there is no formula to hear")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
