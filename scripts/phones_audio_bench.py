"""The phones' audio path for ``bench_phones.py --audio``: six phones streaming at once on localhost.

This process runs the table as ``play --phone-mics`` does (the session on its own thread, the
aiohttp server over HTTPS on another, the real listener with its judge); a second process holds six
phones. At every turn all six hold Hold to speak at once and stream what they say in 40 ms frames,
at the pace it is spoken, as the page does: the player on turn their line (synthesized by
espeak-ng), the five others table talk (answered "not your turn", and streamed all the same, as a
page that paid no heed would). Measured:

- from the release to the verdict on the phone of the player on turn (median, p90, max);
- the server's CPU while the six stream (its loop and TLS; the judge waits for the release), from
  this process's CPU time sampled every 100 ms, over the spans in which all six held;
- the judge's own time per utterance, and memory: the listener, and the server with it.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import queue
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

PLAYERS = tuple(f"P{n}" for n in range(1, 7))
FRAME_S = 0.04
TALK = (
    "I think I'll pass on dessert tonight",
    "whose turn is it now",
    "can you deal the cards again",
    "is there any more wine",
    "the dog wants to go out",
    "let me count my cards",
)


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


def _say(text: str, folder: Path, cache: dict[str, bytes]) -> bytes:
    """``text`` as a phone sends it: espeak-ng at 16 kHz, with a moment of quiet either side."""
    if text not in cache:
        import numpy as np

        from voice_earl.listening.stream.audio import SAMPLE_RATE, read_wav

        path = folder / f"{len(cache)}.wav"
        subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), text], check=True, capture_output=True)
        quiet = np.zeros(int(0.25 * SAMPLE_RATE), dtype=np.int16)
        cache[text] = np.concatenate([quiet, read_wav(path), quiet]).astype("<i2").tobytes()
    return cache[text]


def _line_for(state: dict[str, Any]) -> str:
    from voice_earl.game.cards import Rank
    from voice_earl.game.chants import EARL

    due = state["due"]
    if due["rank"] is None:
        return EARL.line(1, Rank.parse(state["leads"][0]))
    held = {card[:-1] for card in state["hand"]}
    return EARL.line(due["position"], Rank.parse(due["rank"])) if due["rank"] in held else "pass"


class _Phone:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.answers: asyncio.Queue[tuple[dict[str, Any], float]] = asyncio.Queue()

    async def listen(self) -> None:
        import aiohttp

        while True:
            message = await self.ws.receive()
            arrived = time.monotonic()
            if message.type is not aiohttp.WSMsgType.TEXT:
                return
            data = json.loads(message.data)
            if data["type"] == "state":
                self.state = data["state"]
            elif data["type"] != "listening":
                await self.answers.put((data, arrived))

    async def speak(self, turn: str, pcm: bytes) -> float:
        """Hold, stream ``pcm`` as it is spoken, release; returns when the release was sent."""
        await self.ws.send_str(json.dumps({"type": "hold", "turn": turn}))
        frame = int(FRAME_S * 16000) * 2
        started = time.monotonic()
        for number, at in enumerate(range(0, len(pcm), frame)):
            await asyncio.sleep(max(0.0, started + (number + 1) * FRAME_S - time.monotonic()))
            await self.ws.send_bytes(pcm[at : at + frame])
        await self.ws.send_str(json.dumps({"type": "release", "turn": turn}))
        return time.monotonic()


async def _phones(urls: list[str], turns: int, connected: Any) -> dict[str, Any]:
    import aiohttp

    folder = Path(tempfile.mkdtemp())
    said: dict[str, bytes] = {}
    unchecked = ssl.create_default_context()
    unchecked.check_hostname, unchecked.verify_mode = False, ssl.CERT_NONE  # self-signed, on localhost
    results: dict[str, Any] = {"latency_ms": [], "windows": [], "verdicts": [], "again": 0}
    async with aiohttp.ClientSession() as client:
        phones = [_Phone(await client.ws_connect(url + "/ws", ssl=unchecked)) for url in urls]
        tasks = [asyncio.create_task(phone.listen()) for phone in phones]
        while not all(p.state.get("turn") and p.state["turn"]["id"] for p in phones):
            await asyncio.sleep(0.01)
        connected.set()
        spoken = 0
        while spoken < turns and phones[0].state["phase"] == "playing":
            turn = phones[0].state["turn"]
            mover = phones[turn["seat"]]
            while not (mover.state["turn"]["id"] == turn["id"] and mover.state["turn"]["yours"]):
                await asyncio.sleep(0.005)
            before = mover.state["moves"]
            texts = [
                _line_for(mover.state) if p is mover else TALK[(i + spoken) % len(TALK)] for i, p in enumerate(phones)
            ]
            audio = [_say(text, folder, said) for text in texts]
            began = time.monotonic()
            released = await asyncio.gather(*(p.speak(turn["id"], pcm) for p, pcm in zip(phones, audio, strict=True)))
            results["windows"].append((began, min(released)))
            answer, arrived = await asyncio.wait_for(mover.answers.get(), 60)
            for phone in phones:  # the others' "not your turn"
                while not phone.answers.empty():
                    phone.answers.get_nowait()
            if answer["type"] == "heard":
                results["latency_ms"].append((arrived - released[phones.index(mover)]) * 1000)
                results["verdicts"].append(answer["verdict"])
            if answer.get("verdict") not in ("correct", "pass"):
                results["again"] += 1
                continue
            spoken += 1
            for phone in phones:
                while phone.state["moves"] <= before and phone.state["phase"] == "playing":
                    await asyncio.sleep(0.005)
        for phone in phones:
            await phone.ws.close()
        for task in tasks:
            task.cancel()
    return results


def phones_process(urls: list[str], turns: int, connected: Any, out: Any) -> None:
    out.put(asyncio.run(_phones(urls, turns, connected)))


# ---------------------------------------------------------------------------- the table (this process)


def _cpu_within(samples: list[tuple[float, float]], windows: list[tuple[float, float]]) -> float:
    """The share of a core this process used within the windows, from (time, CPU seconds) samples."""
    used = spent = 0.0
    for start, end in windows:
        inside = [(t, c) for t, c in samples if start <= t <= end]
        if len(inside) >= 2:
            used += inside[-1][1] - inside[0][1]
            spent += inside[-1][0] - inside[0][0]
    return used / spent if spent else float("nan")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def bench_audio(turns: int) -> int:
    from voice_earl.game.rules import HOYLE, DeckMode
    from voice_earl.table.phones.mic_gate import HeldHearing
    from voice_earl.table.session import TableSession
    from voice_earl.table.session_events import Seat, TableSettings
    from voice_earl.table.table_app import open_table  # noqa: F401  (what `play` has loaded anyway)
    from voice_earl.table.turns import LineCommands
    from voice_earl.table.voice_input import open_listener

    baseline = rss_mb()
    listener, description = open_listener(argparse_like())
    warm_up(HeldHearing(listener))
    with_listener = rss_mb()
    from voice_earl.table.phones.hub import serve_phones
    from voice_earl.table.phones.mics import DEFAULT_MIC_LIMITS
    from voice_earl.table.phones.tls import certificate_for
    from voice_earl.table.phones.tokens import PhoneTokens

    settings = TableSettings(
        seats=tuple(Seat(name) for name in PLAYERS), profile=HOYLE, deck=DeckMode.VIRTUAL, deals=1, seed=2
    )
    commands: queue.Queue[str | None] = queue.Queue()
    lines = LineCommands(iter(commands.get, None), lambda text: None)
    certificate = certificate_for("127.0.0.1", Path(tempfile.mkdtemp()))
    samples: list[tuple[float, float]] = []
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.is_set():
            samples.append((time.monotonic(), cpu_s()))
            time.sleep(0.1)

    tokens = PhoneTokens.new(PLAYERS)
    with serve_phones(
        PLAYERS, range(len(PLAYERS)), tokens, "127.0.0.1", 0, mics=DEFAULT_MIC_LIMITS, certificate=certificate
    ) as phones:
        source = phones.beside(lines, HeldHearing(listener))
        session = TableSession(settings, dict.fromkeys(range(len(PLAYERS)), source))
        session.listeners = [phones.follow(session)]
        game = threading.Thread(target=session.run, name="game", daemon=True)
        game.start()
        context = multiprocessing.get_context("spawn")
        connected, out = context.Event(), context.Queue()
        urls = [phones.server.url(seat) for seat in range(len(PLAYERS))]
        child = context.Process(target=phones_process, args=(urls, turns, connected, out))
        child.start()
        if not connected.wait(120):
            print("the phones did not connect", file=sys.stderr)
            return 1
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        results = out.get(timeout=3600)
        sampling.set()
        child.join(timeout=30)
        after = rss_mb()
        judged = [r["latency_ms"] for r in session.records if "latency_ms" in r]
        commands.put("quit")
        commands.put(None)

    latency = results["latency_ms"]
    verdicts = results["verdicts"]
    rows = [
        ("phones streaming at once", f"{len(PLAYERS)}", ""),
        ("turns spoken (say it again)", f"{len(verdicts) - results['again']} ({results['again']})", ""),
        ("release -> verdict on the phone, median", f"{statistics.median(latency):.0f} ms", ""),
        ("release -> verdict on the phone, p90", f"{percentile(latency, 0.9):.0f} ms", "<= 250 ms"),
        ("release -> verdict on the phone, max", f"{max(latency):.0f} ms", ""),
        ("the judge's time per utterance, median", f"{statistics.median(judged):.0f} ms", ""),
        (
            "server CPU while 6 phones stream (TLS)",
            f"{100 * _cpu_within(samples, results['windows']):.1f} % of a core",
            "",
        ),
        ("the listener's memory (first pass + judge, warmed up)", f"{with_listener - baseline:.0f} MB", ""),
        ("the server's extra memory, audio and all", f"{after - with_listener:.1f} MB", ""),
    ]
    width = max(len(name) for name, _, _ in rows)
    print(f"listening with {description.split(':')[0]}\n")
    print(f"{'measure':<{width}}  {'value':>18}  goal")
    for name, value, goal in rows:
        print(f"{name:<{width}}  {value:>18}  {goal}")
    print(
        f"\n{os.cpu_count()} cores; the phones run in a second process on the same machine: the figures include "
        "sharing the CPU with them (and with anything else running), so they are pessimistic."
    )
    return 0


def warm_up(hearing: Any) -> None:
    """One utterance judged before measuring: the judge's first run sets up what every later one reuses."""
    from voice_earl.game.cards import Rank
    from voice_earl.words.context import ListenContext

    pcm = _say("There's a Queen as good as he", Path(tempfile.mkdtemp()), {})
    hearing(pcm, ListenContext(2, (Rank.QUEEN,)))


def argparse_like() -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(recognizer="pocketsphinx", model=None, judge_model=None, no_judge=False)
