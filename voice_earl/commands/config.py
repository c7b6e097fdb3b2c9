"""`voice-earl config` (not built yet)."""

from __future__ import annotations

import argparse

from voice_earl.errors import VoiceEarlError

HELP = "config (coming soon)"


def configure(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise VoiceEarlError("'config' is not available yet")
