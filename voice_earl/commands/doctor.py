"""`voice-earl doctor` (not built yet)."""

from __future__ import annotations

import argparse

from voice_earl.errors import VoiceEarlError

HELP = "doctor (coming soon)"


def configure(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise VoiceEarlError("'doctor' is not available yet")
