"""`voice-earl models` (not built yet)."""

from __future__ import annotations

import argparse

from voice_earl.errors import VoiceEarlError

HELP = "models (coming soon)"


def configure(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise VoiceEarlError("'models' is not available yet")
