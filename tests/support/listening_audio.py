"""Test audio for the listening tests: formulas spoken by espeak-ng, with optional noise and silence."""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest

from voice_earl.bench.corpus import degrade
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16, read_wav

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
needs_festival = pytest.mark.skipif(shutil.which("text2wave") is None, reason="festival is not installed")


def speak(text: str, path: Path, voice: str = "en-us", speed: int = 150, pitch: int = 50) -> Pcm16:
    """Synthesize ``text`` into ``path`` (espeak-ng's own rate) and return it as 16 kHz mono int16."""
    subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", str(path), text],
        check=True,
        capture_output=True,
    )
    return read_wav(path)


def espeak_finds_variant(voice: str) -> bool:
    """Whether espeak-ng says ``voice`` (``accent+variant``) otherwise than its accent alone: a variant
    it cannot find (a wrong case, "+Linda" for "+linda"; an accent that is a language, not a voice,
    "en-gb+m4") it says in the accent's own voice, without a word of warning."""

    def said(name: str) -> bytes:
        command = ["espeak-ng", "-v", name, "--stdout", "There's a Nine as good as he"]
        return subprocess.run(command, capture_output=True, check=True).stdout

    return said(voice) != said(voice.partition("+")[0])


def speak_kdl(text: str, path: Path) -> Pcm16:
    """Synthesize ``text`` with festival's kdl voice (festvox-kdlpc16k) as 16 kHz mono int16."""
    subprocess.run(
        ["text2wave", "-eval", "(voice_ked_diphone)", "-o", str(path)],
        input=text.encode(),
        check=True,
        capture_output=True,
    )
    return read_wav(path)


def write_wav(path: Path, samples: Pcm16, rate: int = SAMPLE_RATE) -> Path:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.astype(np.int16).tobytes())
    return path


def with_noise(samples: Pcm16, snr_db: float, seed: int = 7) -> Pcm16:
    """Add white noise at ``snr_db`` relative to the speech power."""
    speech = samples.astype(np.float64)
    power = np.mean(speech[np.abs(speech) > 300] ** 2) if np.any(np.abs(speech) > 300) else 1.0
    noise = np.random.default_rng(seed).normal(0.0, np.sqrt(power / 10 ** (snr_db / 10)), len(speech))
    return np.asarray(np.clip(speech + noise, -32768, 32767), dtype=np.int16)


def padded(samples: Pcm16, before_s: float = 0.3, after_s: float = 1.0) -> Pcm16:
    """Silence around the speech, as a microphone would give."""
    zeros = np.zeros
    return np.concatenate(
        [zeros(int(before_s * SAMPLE_RATE), np.int16), samples, zeros(int(after_s * SAMPLE_RATE), np.int16)]
    )


def in_room(audio: Pcm16, condition: str, room: Pcm16, draws: int) -> list[Pcm16]:
    """``audio`` in a benchmark ``condition`` ("babble 6 dB"), over ``draws`` stretches of the ``room``'s
    talk (seeds 0, 1, ...: the same stretches every run)."""
    return [degrade(audio, condition, room, np.random.default_rng(seed)) for seed in range(draws)]
