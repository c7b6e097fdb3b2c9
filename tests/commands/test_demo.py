"""`voice-earl demo` deals a new game each run and says its seed, with which the same cards are dealt again."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from support.patience import WAIT_S

DEMO = [sys.executable, "-m", "voice_earl", "demo", "--jsonl", "--no-judge", "--recognizer", "pocketsphinx"]


def first_deal(*seed: str) -> tuple[str, list[Any]]:
    """The seed the demo said, and the hands of its first deal (then the demo is stopped)."""
    demo = subprocess.Popen([*DEMO, *seed], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert demo.stdout is not None and demo.stderr is not None
    try:
        said = demo.stderr.readline()
        deal = json.loads(demo.stdout.readline())
    finally:
        demo.kill()
        demo.communicate(timeout=WAIT_S)
    assert said.startswith("voice-earl demo: seed "), said
    return said.split()[3].rstrip(":"), deal["hands"]


@pytest.mark.slow
def test_each_demo_deals_a_new_game_and_its_seed_deals_it_again() -> None:
    seed, hands = first_deal()
    other_seed, other_hands = first_deal()
    assert (other_seed, other_hands) != (seed, hands)
    assert first_deal("--seed", seed) == (seed, hands)
