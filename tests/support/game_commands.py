"""The game's command lines as the subprocess tests start them."""

from __future__ import annotations

import sys

GAME = [sys.executable, "-m", "voice_earl"]


def silent_three(*options: str) -> list[str]:
    """``play`` for Ann, Ben and Cy at a silent table with a virtual pack and no narrator, and ``options``."""
    return [*GAME, "play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--silent", "--no-voice", *options]
