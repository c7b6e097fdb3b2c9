#!/usr/bin/env python3
"""Narrator speed: how soon an announcement is heard, and how fast speech renders.

For each typical announcement: render time through pyttsx3 (the narrator's path) and through
the ``espeak-ng --stdout`` command line (the fallback), the audio's length, the real-time factor
(render time / audio length; below 1 is faster than real time), and the time from
``Narrator.say()`` to the start of playback ("first audio") on a silent output that keeps real
time. The first row is the cold start: the first render in the process, which opens the engine.

Usage: .venv/bin/python scripts/bench_narrator.py [--repeats N] [--rate WPM]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import threading
import time

from voice_earl.game.cards import Rank
from voice_earl.table import narrator, speech
from voice_earl.table.narrator import Announcement, Narrator, Verbosity
from voice_earl.table.playback import RecordingOutput

GOAL_FIRST_AUDIO_S = 0.25  # an announcement should start within a quarter second of say()

ANNOUNCEMENTS: tuple[tuple[str, Announcement], ...] = (
    ("turn", narrator.turn("Ben", Rank.QUEEN, 2)),
    ("pass", narrator.passed("Cy")),
    ("quartet", narrator.quartet("Di", Rank.QUEEN)),
    ("wrong line", narrator.wrong_line("Ben", "There's a Queen as good as he", "there's a king")),
    ("settlement", narrator.settlement("Ann", [("Ben", 3), ("Cy", 5), ("Di", 2)])),
    ("final standings", narrator.standings([("Ann", 12), ("Ben", 3), ("Cy", 3), ("Di", -2)], final=True)),
)


def timed_render(text: str, rate: int) -> tuple[float, float]:
    started = time.perf_counter()
    audio = speech.render(text, rate=rate)
    return time.perf_counter() - started, audio.duration


def cli_render_seconds(text: str, rate: int) -> float | None:
    command = shutil.which("espeak-ng")
    if command is None:
        return None
    started = time.perf_counter()
    subprocess.run([command, "--stdout", "-s", str(rate)], input=text.encode(), capture_output=True, check=True)
    return time.perf_counter() - started


def first_audio_seconds(announcement: Announcement, rate: int) -> float:
    """From say() to the moment playback starts."""
    started = threading.Event()
    output = RecordingOutput()
    with Narrator(rate=rate, verbosity=Verbosity.CHATTY, printer=lambda line: None, output=output) as voice:
        voice.on_speaking(lambda on: started.set() if on else None)
        begin = time.perf_counter()
        voice.say(announcement)
        started.wait(30)
        latency = time.perf_counter() - begin
        voice.interrupt()
        voice.wait(5)
    return latency


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rate", type=int, default=speech.DEFAULT_RATE)
    args = parser.parse_args()

    cold_render, cold_length = timed_render(ANNOUNCEMENTS[0][1].text, args.rate)
    print(f"backend: {speech.active_backend().value}; rate {args.rate} wpm; median of {args.repeats} runs\n")
    header = f"{'announcement':<16} {'audio s':>8} {'pyttsx3 ms':>11} {'RTF':>7} {'CLI ms':>8} {'first audio ms':>15}"
    print(header)
    print("-" * len(header))
    print(f"{'(cold start)':<16} {cold_length:>8.2f} {cold_render * 1000:>11.1f} {cold_render / cold_length:>7.3f}")
    worst_first = 0.0
    for name, announcement in ANNOUNCEMENTS:
        renders = [timed_render(announcement.text, args.rate) for _ in range(args.repeats)]
        render_s = statistics.median(seconds for seconds, _ in renders)
        length = statistics.median(length for _, length in renders)
        cli = [cli_render_seconds(announcement.text, args.rate) for _ in range(args.repeats)]
        cli_text = (
            f"{statistics.median(s for s in cli if s is not None) * 1000:>8.1f}" if None not in cli else "       -"
        )
        first = statistics.median(first_audio_seconds(announcement, args.rate) for _ in range(args.repeats))
        worst_first = max(worst_first, first)
        print(
            f"{name:<16} {length:>8.2f} {render_s * 1000:>11.1f} {render_s / length:>7.3f} {cli_text} "
            f"{first * 1000:>15.1f}"
        )
    resample = [timed_resample(args.rate) for _ in range(args.repeats)]
    print(f"\nto_16k_mono of a 3-4 s line: {statistics.median(resample) * 1000:.1f} ms")
    verdict = "met" if worst_first <= GOAL_FIRST_AUDIO_S else "NOT met"
    print(
        f"goal: first audio within {GOAL_FIRST_AUDIO_S * 1000:.0f} ms of say(): {verdict} "
        f"(worst median {worst_first * 1000:.1f} ms)"
    )
    speech.shutdown()
    return 0


def timed_resample(rate: int) -> float:
    audio = speech.render(ANNOUNCEMENTS[2][1].text, rate=rate)
    started = time.perf_counter()
    speech.to_16k_mono(audio)
    return time.perf_counter() - started


if __name__ == "__main__":
    raise SystemExit(main())
