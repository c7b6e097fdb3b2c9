#!/usr/bin/env python3
"""A whole voice series, measured: memory over six deals, start to ready, and the demo's formulas heard.

Runs ``voice-earl demo --deals 6`` (bots recite every formula in their own espeak-ng voices,
through the real listener) with and without the judge, samples the process's resident memory
twice a second, and reads the game log for what was heard. Separately, it times a fresh
process from its start until its listener is ready.

    .venv/bin/python scripts/bench_series.py
    .venv/bin/python scripts/bench_series.py --players 4 --seed 2 --deals 6

Goals (issue 9): RSS flat over the series, at most 400 MB with the judge and 150 MB without;
start to ready at most 1.5 s with the judge; at least 98% of the bots' formulas heard correctly.
Timings on a shared 2-core machine are pessimistic.
"""

from __future__ import annotations

import argparse
import json
import selectors
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

VOICE_EARL = Path(sys.executable).with_name("voice-earl")
READY_PROBE = """
import sys, time
from voice_earl.listening.chain import open_listener
chain = open_listener(judge={judge})
print("ready", flush=True)
"""


@dataclass(frozen=True)
class SeriesRun:
    rss_mb: list[tuple[float, float]]  # (seconds since start, MB)
    deal_ends: list[float]  # seconds since start
    formulas: int
    correct: int
    passes: int
    passes_heard: int
    latencies: list[int]


def rss_mb(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return None


def run_series(args: argparse.Namespace, judge: bool) -> SeriesRun:
    command = [
        str(VOICE_EARL),
        "demo",
        "--jsonl",
        "--players",
        str(args.players),
        "--seed",
        str(args.seed),
        "--deals",
        str(args.deals),
    ] + ([] if judge else ["--no-judge"])
    started = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    samples: list[tuple[float, float]] = []
    deal_ends: list[float] = []
    events: list[dict[str, object]] = []
    assert child.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(child.stdout, selectors.EVENT_READ)
    last_sample = 0.0
    while True:
        now = time.monotonic() - started
        if now - last_sample >= 0.5:
            value = rss_mb(child.pid)
            if value is not None:
                samples.append((now, value))
            last_sample = now
        if selector.select(timeout=0.1):
            line = child.stdout.readline()
            if not line:
                break
            event = json.loads(line)
            events.append(event)
            if event.get("event") == "settle":
                deal_ends.append(now)
    child.wait()
    formulas = [e for e in events if e.get("event") in ("lead", "play") and "verdict" in e]
    passes = [e for e in events if e.get("event") == "pass" and "verdict" in e]
    latencies = [int(str(e["latency_ms"])) for e in formulas + passes if e.get("latency_ms") is not None]
    return SeriesRun(
        samples,
        deal_ends,
        len(formulas),
        sum(e["verdict"] == "correct" for e in formulas),
        len(passes),
        sum(e["verdict"] == "pass" for e in passes),
        latencies,
    )


def ready_seconds(judge: bool, tries: int) -> list[float]:
    times = []
    for _ in range(tries):
        started = time.monotonic()
        child = subprocess.Popen(
            [sys.executable, "-c", READY_PROBE.format(judge=judge)], stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None
        child.stdout.readline()
        times.append(time.monotonic() - started)
        child.wait()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tries", type=int, default=5, help="fresh processes timed to ready (default 5)")
    args = parser.parse_args()
    print(
        f"{'listener':22} {'ready p50':>9} {'RSS first deal':>14} {'RSS last':>9} {'RSS peak':>9} "
        f"{'formulas ok':>12} {'passes ok':>10} {'lat p50':>8} {'lat p90':>8}"
    )
    for judge in (False, True):
        ready = ready_seconds(judge, args.tries)
        run = run_series(args, judge)
        first = [mb for t, mb in run.rss_mb if not run.deal_ends or t <= run.deal_ends[0]]
        peak = max(mb for _t, mb in run.rss_mb) if run.rss_mb else 0.0
        ordered = sorted(run.latencies)
        p50 = ordered[len(ordered) // 2] if ordered else 0
        p90 = ordered[int(len(ordered) * 0.9)] if ordered else 0
        name = "pocketsphinx + judge" if judge else "pocketsphinx alone"
        print(
            f"{name:22} {statistics.median(ready):8.2f}s {max(first or [0.0]):13.0f}M {run.rss_mb[-1][1]:8.0f}M "
            f"{peak:8.0f}M {run.correct:5}/{run.formulas:<5} {run.passes_heard:4}/{run.passes:<4} {p50:8} {p90:8}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
