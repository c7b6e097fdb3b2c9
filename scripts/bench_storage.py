#!/usr/bin/env python3
"""Journal speed: what one committed game event costs (WAL, synchronous=FULL), and the reads.

A voice game appends one event per turn, seconds apart, so the append must stay far below the
time a player takes to speak; ``GOAL_MS`` is the budget for the 95th percentile.

Usage: .venv/bin/python scripts/bench_storage.py [--events N] [--series S] [--folder DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_earl.keep.storage import Store

GOAL_MS = 50.0


def timed_ms(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def event(seq: int) -> dict[str, object]:
    return {
        "event": "play",
        "deal": 1 + seq // 60,
        "player": seq % 4,
        "card": "QS",
        "position": 2,
        "line": "There's a Queen as good as he",
        "heard": "there's a queen as good as he",
        "verdict": "correct",
        "score": 96,
        "latency_ms": 420,
    }


def _appender(store: Store, series_id: int, seq: int) -> Callable[[], None]:
    return lambda: store.append_event(series_id, seq, event(seq))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=500, help="events appended to one series")
    parser.add_argument("--series", type=int, default=200, help="series in the database for the listing")
    parser.add_argument("--folder", type=Path, help="where to make the database (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        path = Path(folder) / "bench.sqlite3"
        with Store.open(path) as store:
            series_id = store.open_series({"players": ["Ann", "Ben", "Cy", "Di"], "profile": "hoyle"})
            appends = [timed_ms(_appender(store, series_id, seq)) for seq in range(args.events)]
            for _ in range(args.series - 1):
                other = store.open_series({"players": ["Ann", "Ben", "Cy"], "profile": "parlour"})
                store.append_event(other, 0, event(0))
            load = min(timed_ms(lambda: store.load_series(series_id)) for _ in range(5))
            listing = min(timed_ms(store.list_series) for _ in range(5))
        reopen = min(timed_ms(lambda: Store.open(path).close()) for _ in range(5))
    appends.sort()
    p95 = appends[int(0.95 * (len(appends) - 1))]
    rows = [
        ("append_event, median", f"{statistics.median(appends):.2f} ms"),
        ("append_event, 95th percentile", f"{p95:.2f} ms"),
        ("append_event, worst", f"{appends[-1]:.2f} ms"),
        (f"load_series ({args.events} events)", f"{load:.2f} ms"),
        (f"list_series ({args.series} series)", f"{listing:.2f} ms"),
        ("open (integrity check, migrations)", f"{reopen:.2f} ms"),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"{'measure'.ljust(width)}  value")
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")
    verdict = "met" if p95 <= GOAL_MS else "MISSED"
    print(f"goal: 95th percentile append <= {GOAL_MS:.0f} ms: {verdict}")
    return 0 if p95 <= GOAL_MS else 1


if __name__ == "__main__":
    sys.exit(main())
