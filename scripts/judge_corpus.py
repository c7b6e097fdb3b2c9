#!/usr/bin/env python3
"""Writes and reads the judge's golden corpus (see :mod:`voice_earl.bench.golden_corpus`)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_earl.bench.golden_corpus import main

if __name__ == "__main__":
    sys.exit(main())
