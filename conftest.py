"""Collection from the repository's root: the training's modules need the train extra (torch, transformers), which
the tests' environment does not install; without it their doctests are not collected."""

from __future__ import annotations

import importlib.util

collect_ignore_glob = (
    [] if importlib.util.find_spec("torch") else ["voice_earl/training/decoder.py", "voice_earl/training/fit.py"]
)
