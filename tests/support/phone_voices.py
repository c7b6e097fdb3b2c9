"""Phones as microphones in tests: the listener (with the judge) loaded once, the lines each player
says synthesized by espeak-ng, and a phone that holds, streams and releases as the contract says."""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from support.listening_audio import speak
from support.patience import WAIT_S
from support.phones_table import Phone
from voice_earl.game.cards import Rank
from voice_earl.game.chants import EARL
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16
from voice_earl.listening.stream.listener import Listener
from voice_earl.table.phones.mic_gate import HeldHearing

FRAME_BYTES = 3200  # 100 ms of 16 kHz 16-bit mono: the most a message may hold


@functools.cache
def listener() -> Listener:
    from voice_earl.table.voice_input import open_listener

    loaded, _ = open_listener(SimpleNamespace(recognizer="pocketsphinx"))
    return loaded


def hearing() -> HeldHearing:
    return HeldHearing(listener())


def held(samples: Pcm16, before_s: float = 0.3, after_s: float = 0.25, seed: int = 3) -> bytes:
    """Speech as a phone held to the mouth sends it: the button goes down a moment before the voice
    and comes up a moment after, in a quiet room's faint noise."""
    quiet = np.zeros
    audio = np.concatenate([quiet(int(before_s * SAMPLE_RATE)), samples, quiet(int(after_s * SAMPLE_RATE))])
    noisy = audio + np.random.default_rng(seed).normal(0.0, 30.0, len(audio))
    return np.clip(noisy, -32768, 32767).astype("<i2").tobytes()


class Voices:
    """Every line a player says, synthesized once into ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._said: dict[str, bytes] = {}

    def say(self, text: str) -> bytes:
        if text not in self._said:
            path = self.folder / f"{len(self._said)}.wav"
            self._said[text] = held(speak(text, path))
        return self._said[text]

    def line_for(self, state: dict[str, Any]) -> str:
        """What a player holding this hand says: lead their first rank, play the open rank, or pass."""
        due = state["due"]
        if due["rank"] is None:
            return EARL.line(1, Rank.parse(state["leads"][0]))
        held_ranks = {card[:-1] for card in state["hand"]}
        return EARL.line(due["position"], Rank.parse(due["rank"])) if due["rank"] in held_ranks else "pass"


async def hold(phone: Phone, turn: str, pcm: bytes, frame: int = FRAME_BYTES, release: bool = True) -> None:
    """Hold the button for ``turn``, send ``pcm`` in frames, and (with ``release``) let go."""
    await phone.ws.send_str(json.dumps({"type": "hold", "turn": turn}))
    for start in range(0, len(pcm), frame):
        await phone.ws.send_bytes(pcm[start : start + frame])
    if release:
        await phone.ws.send_str(json.dumps({"type": "release", "turn": turn}))


async def answer(phone: Phone, timeout: float = WAIT_S) -> dict[str, Any]:
    """The next answer to a hold that is not "listening": "heard", "unheard" or "cut-off"."""
    while True:
        message = await phone.reply(timeout)
        if message["type"] != "listening":
            return message


async def settle(seconds: float = 0.3) -> None:
    await asyncio.sleep(seconds)
