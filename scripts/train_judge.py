#!/usr/bin/env python3
"""Trains the judge's Whisper decoder on the game's own words (see :mod:`voice_earl.training.fit`).

.venv/bin/pip install -e '.[judge,train]'     # once: torch, transformers and hibari-tts
.venv/bin/python scripts/train_judge.py       # about an hour on 2 cores; writes models/whisper-tiny.en-earl/
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Training alone needs these: playing and the tests never install them.
TRAIN_EXTRA = ("torch", "transformers")

if __name__ == "__main__":
    try:
        from voice_earl.training.fit import main
    except ModuleNotFoundError as missing:
        if missing.name not in TRAIN_EXTRA:
            raise
        print(
            f"train_judge.py: {missing.name} is not installed. Training needs the train extra, once:\n"
            "    .venv/bin/pip install -e '.[judge,train]'",
            file=sys.stderr,
        )
        sys.exit(2)
    sys.exit(main())
