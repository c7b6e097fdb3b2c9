#!/usr/bin/env python3
"""Doctor speed: how long each check takes (median of several runs), and the whole report.

The doctor is run when something is wrong, often more than once, so the whole report should
stay well under ``GOAL_S`` (the microphone test's fixed 2 seconds of recording not included).
In-process times after the first run leave out the imports; the cold row is a new process
running ``voice-earl doctor`` from start to end. The checksum row is per 64 MB of model.

Usage: .venv/bin/python scripts/bench_doctor.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_earl.commands import doctor_audio, doctor_checks, doctor_models, doctor_report, doctor_speech
from voice_earl.keep.config import load_settings

GOAL_S = 2.0


def timed_ms(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    loaded = load_settings()
    settings = loaded.settings
    with tempfile.TemporaryDirectory() as scratch:
        big = Path(scratch) / "final.mdl"
        big.write_bytes(os.urandom(64 * 1024 * 1024))
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        checks: dict[str, Callable[[], object]] = {
            "python + packages": lambda: (doctor_checks.check_python(), doctor_checks.check_packages()),
            "PortAudio + devices": lambda: (doctor_audio.check_portaudio(), doctor_audio.query_audio_devices()),
            "text to speech": lambda: doctor_speech.check_tts(
                doctor_speech.probe_tts(), doctor_speech.espeak_version()
            ),
            "pocketsphinx": doctor_models.probe_pocketsphinx,
            "vosk": lambda: doctor_models.probe_vosk(settings.model),
            "models + checksums": lambda: doctor_models.installed_models(settings.model),
            "config file": load_settings,
            "data directory": lambda: doctor_checks.check_data_dir(Path(scratch)),
            "sha256 of 64 MB": lambda: doctor_models.sha256_of(big),
            "whole report (warm)": lambda: doctor_report.run_checks(loaded),
            "whole report (cold)": lambda: subprocess.run(
                [sys.executable, "-m", "voice_earl", "doctor"], capture_output=True, check=False, env=env
            ),
        }
        rows = []
        for name, check in checks.items():
            times = [timed_ms(check) for _ in range(args.runs)]
            rows.append((name, statistics.median(times), max(times)))
    print(f"{'check':<22} {'median ms':>10} {'max ms':>10}")
    for name, median, worst in rows:
        print(f"{name:<22} {median:>10.1f} {worst:>10.1f}")
    whole = rows[-1][2] / 1000
    verdict = "meets" if whole < GOAL_S else "MISSES"
    print(f"whole report, worst of {args.runs}: {whole:.2f} s ({verdict} the {GOAL_S:.0f} s goal)")
    return 0 if whole < GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
