#!/usr/bin/env python3
"""How the phones' server keeps up: 13 phones on localhost, a parlour game played by their taps.

This process runs the table as `play --phones` does (the session on its own thread, the aiohttp
server on another); a second process holds the 13 phones (aiohttp WebSocket clients), each tapping
when its turn comes. Measured:

- from a move applied by the session to the update arriving on each phone (median, p95, max;
  goal: p95 at most 50 ms), both sides on the system-wide monotonic clock;
- the server's extra memory: this process's resident size with the server, 13 phones and a
  played game, less its size with the table's own modules loaded (as `play` has them) but before
  the phones' modules were imported (goal: at most 30 MB);
- CPU while idle: this process's CPU time while 13 phones are connected and the game waits.

With ``--audio``, the phones as microphones instead (scripts/phones_audio_bench.py): six phones
streaming at once over HTTPS, the server's CPU and memory, and the time from release to verdict.

    .venv/bin/python scripts/bench_phones.py [--deals 3] [--idle 10] [--pace-ms 15]
    .venv/bin/python scripts/bench_phones.py --audio [--turns 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import queue
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

PLAYERS = tuple(f"P{n}" for n in range(1, 14))


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_s() -> float:
    times = os.times()
    return times.user + times.system


# ---------------------------------------------------------------------------- the phones (another process)


def choose(state: dict[str, Any]) -> dict[str, Any]:
    if state["due"]["rank"] is None:
        return {"action": "lead", "rank": state["leads"][0]}
    held = {card[:-1] for card in state["hand"]}
    return {"action": "play" if state["due"]["rank"] in held else "pass"}


class _Phone:
    """One phone: records when each state arrives and taps when its turn comes (once "go" is given)."""

    def __init__(self, ws: Any, go: Any, pace: float) -> None:
        self.ws = ws
        self.go = go
        self.pace = pace
        self.state: dict[str, Any] = {}
        self.seen: list[tuple[int, float]] = []
        self.tapped: str | None = None

    async def run(self) -> None:
        import aiohttp

        while True:
            message = await self.ws.receive()
            arrived = time.monotonic()
            if message.type is not aiohttp.WSMsgType.TEXT:
                return
            data = json.loads(message.data)
            if data["type"] != "state":
                continue
            self.state = data["state"]
            self.seen.append((self.state["moves"], arrived))
            if self.state["phase"] == "over":
                return
            await self.maybe_tap()

    async def maybe_tap(self) -> None:
        turn = self.state.get("turn")
        if turn and turn["yours"] and turn["id"] and turn["id"] != self.tapped and self.go.is_set():
            self.tapped = turn["id"]
            await asyncio.sleep(self.pace)  # let every phone take the last update before the next move
            await self.ws.send_str(json.dumps({"type": "tap", "turn": turn["id"], **choose(self.state)}))


async def _phones(urls: list[str], go: Any, pace: float, connected: Any) -> list[list[tuple[int, float]]]:
    import aiohttp

    async with aiohttp.ClientSession() as client:
        phones = [_Phone(await client.ws_connect(url + "/ws"), go, pace) for url in urls]
        tasks = [asyncio.create_task(phone.run()) for phone in phones]
        while not all(phone.state for phone in phones):
            await asyncio.sleep(0.01)
        connected.set()
        while not go.is_set():
            await asyncio.sleep(0.05)
        for phone in phones:  # the phone whose turn it is saw it before "go"
            await phone.maybe_tap()
        await asyncio.gather(*tasks)
        for phone in phones:
            await phone.ws.close()
        return [phone.seen for phone in phones]


def phones_process(urls: list[str], go: Any, pace: float, connected: Any, out: Any) -> None:
    out.put(asyncio.run(_phones(urls, go, pace, connected)))


# ---------------------------------------------------------------------------- the table (this process)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU measurement")
    parser.add_argument("--pace-ms", type=float, default=15.0, help="pause before each tap")
    parser.add_argument("--audio", action="store_true", help="six phones as microphones, streaming at once")
    parser.add_argument("--turns", type=int, default=30, help="with --audio: turns spoken into the phones")
    args = parser.parse_args()
    if args.audio:
        from phones_audio_bench import bench_audio

        return bench_audio(args.turns)

    from voice_earl.game.rules import PARLOUR, DeckMode
    from voice_earl.table.session import TableSession
    from voice_earl.table.session_events import RulesApplied, Seat, TableEvent, TableSettings
    from voice_earl.table.table_app import open_table  # noqa: F401  (what `play` has loaded anyway)
    from voice_earl.table.turns import LineCommands

    baseline = rss_mb()  # the table without phones: the phones' modules are not imported yet
    from voice_earl.table.phones.hub import serve_phones
    from voice_earl.table.phones.limits import Limits
    from voice_earl.table.phones.tokens import PhoneTokens

    settings = TableSettings(
        seats=tuple(Seat(name) for name in PLAYERS), profile=PARLOUR, deck=DeckMode.VIRTUAL, deals=args.deals, seed=1
    )
    applied: dict[int, float] = {}
    commands: queue.Queue[str | None] = queue.Queue()
    lines = LineCommands(iter(commands.get, None), lambda text: None)
    # The phones tap at machine speed, faster than the limit meant for people: lift it.
    limits = Limits(taps_per_second=1000.0, tap_burst=1000.0)
    with serve_phones(PLAYERS, range(len(PLAYERS)), PhoneTokens.new(PLAYERS), "127.0.0.1", 0, limits) as phones:
        source = phones.beside(lines)
        session = TableSession(settings, dict.fromkeys(range(len(PLAYERS)), source))

        def stamp(event: TableEvent) -> None:
            if isinstance(event, RulesApplied):
                applied.setdefault(len(session.moves), time.monotonic())  # the move, not the next deal's start

        session.listeners = [stamp, phones.follow(session)]
        game = threading.Thread(target=session.run, name="game", daemon=True)
        game.start()

        context = multiprocessing.get_context("spawn")
        go, connected, out = context.Event(), context.Event(), context.Queue()
        urls = [phones.server.url(seat) for seat in range(len(PLAYERS))]
        child = context.Process(target=phones_process, args=(urls, go, args.pace_ms / 1000, connected, out))
        child.start()
        if not connected.wait(60):
            print("the phones did not connect", file=sys.stderr)
            return 1
        time.sleep(0.5)
        cpu_before, wall_before = cpu_s(), time.monotonic()
        time.sleep(args.idle)
        idle_cpu = (cpu_s() - cpu_before) / (time.monotonic() - wall_before)
        go.set()
        seen = out.get(timeout=600)
        child.join(timeout=30)
        game.join(timeout=30)
        after = rss_mb()
        moves = len(session.moves)

    latencies = []
    for phone in seen:
        for move, at in applied.items():
            if move == 0:
                continue
            first = next((when for count, when in phone if count >= move), None)
            if first is not None:
                latencies.append((first - at) * 1000)
    latencies.sort()
    p95 = latencies[max(0, round(0.95 * len(latencies)) - 1)]
    rows = [
        ("phones connected", f"{len(seen)}", ""),
        ("moves applied (by the phones' taps)", f"{moves}", ""),
        ("updates timed (moves x phones)", f"{len(latencies)}", ""),
        ("move applied -> update on a phone, median", f"{statistics.median(latencies):.1f} ms", ""),
        ("move applied -> update on a phone, p95", f"{p95:.1f} ms", "<= 50 ms"),
        ("move applied -> update on a phone, max", f"{latencies[-1]:.1f} ms", ""),
        ("server's extra memory (resident)", f"{after - baseline:.1f} MB", "<= 30 MB"),
        (f"CPU while idle, {len(PLAYERS)} phones connected", f"{idle_cpu * 100:.2f} % of a core", ""),
    ]
    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure':<{width}}  {'value':>18}  goal")
    for name, value, goal in rows:
        print(f"{name:<{width}}  {value:>18}  {goal}")
    print(
        f"\n{os.cpu_count()} cores; the phones run in a second process on the same machine, so the figures "
        "include sharing the CPU with them (and with anything else running): they are pessimistic."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
