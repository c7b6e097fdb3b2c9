#!/usr/bin/env python3
"""Replays the judge's decision on the golden corpus (see :mod:`voice_earl.bench.golden_replay`)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_earl.bench.golden_replay import main
from voice_earl.bench.looks_replay import replay_looks

if __name__ == "__main__":
    sys.exit(main(looks=replay_looks))
