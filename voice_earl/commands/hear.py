"""`voice-earl hear` (not built yet)."""

from __future__ import annotations

import argparse

from voice_earl.errors import VoiceEarlError

HELP = "hear (coming soon)"


def configure(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise VoiceEarlError("'hear' is not available yet")
