"""`voice-earl stats` (not built yet)."""

from __future__ import annotations

import argparse

from voice_earl.errors import VoiceEarlError

HELP = "stats (coming soon)"


def configure(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise VoiceEarlError("'stats' is not available yet")
