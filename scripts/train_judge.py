#!/usr/bin/env python3
"""Trains the judge's Whisper decoder on the game's own words (see :mod:`voice_earl.training.fit`).

.venv/bin/pip install -e '.[judge,train]'     # once: torch, transformers and hibari-tts
.venv/bin/python scripts/train_judge.py       # about 40 minutes on 2 cores; writes models/whisper-tiny.en-earl/
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_earl.training.fit import main

if __name__ == "__main__":
    sys.exit(main())
