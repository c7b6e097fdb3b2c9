"""The training clips as the laptop hears them: each utterance synthesized (espeak-ng, festival or
hibari) or read from its recording, then put in its room (quiet, babble of the split's own talkers,
pink or white noise, reverb with noise), the same every time for the same clip."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from voice_earl.bench.corpus import Voice, speech_power, synthesize
from voice_earl.bench.rooms import room_talk
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16, read_wav
from voice_earl.training.data import BABBLE, TRAIN_CACHE, Clip, Utterance, split_voices


def speech(utterance: Utterance, cache: Path = TRAIN_CACHE) -> Pcm16:
    """What the utterance sounds like alone (16 kHz); the room alone is nothing."""
    if utterance.path is not None:
        return read_wav(utterance.path)
    if utterance.voice is None:
        return np.zeros(3 * SAMPLE_RATE, dtype=np.int16)
    if utterance.voice.engine == "hibari":
        return _hibari(utterance.text, utterance.voice, cache)
    return synthesize(utterance.text, utterance.voice, cache)


def _hibari(text: str, voice: Voice, cache: Path) -> Pcm16:
    key = hashlib.sha1(f"{voice.label}|{text}".encode()).hexdigest()[:20]
    path = cache / f"hibari-{key}.npy"
    if not path.exists():
        import soxr

        cache.mkdir(parents=True, exist_ok=True)
        audio = _hibari_engine()(text, speed=100 / voice.speed, seed=0)
        samples = soxr.resample(np.asarray(audio, dtype=np.float32), 24_000, SAMPLE_RATE)
        np.save(path, np.clip(samples * 32767, -32768, 32767).astype(np.int16))
    return np.asarray(np.load(path), dtype=np.int16)


@functools.cache
def _hibari_engine() -> Any:
    from hibari import Hibari  # the train extra's only voice whose weights ship in its package

    return Hibari()


def hibari_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("hibari") is not None


def heard_in_room(clip: Clip, split: str, cache: Path = TRAIN_CACHE) -> Pcm16:
    """The clip as the laptop hears it: quiet before and after the speech, then the room."""
    rng = np.random.default_rng(clip.seed)
    said = speech(clip.utterance, cache).astype(np.float64)
    lead, tail = (0.4, 1.2) if split == "report" else (rng.uniform(0.15, 0.6), rng.uniform(0.3, 1.2))
    audio = np.concatenate([np.zeros(int(lead * SAMPLE_RATE)), said, np.zeros(int(tail * SAMPLE_RATE))])
    power = speech_power(audio) or 4e6  # the room alone: as loud as a typical voice's room would be
    kind, _, level = clip.room.partition(" ")
    if kind == "reverb":
        audio = _reverberant(audio, rng)
    if kind != "quiet":
        noise = _noise(kind, len(audio), rng, split, cache)
        snr = float(level.split()[0])
        noise *= np.sqrt(power / 10 ** (snr / 10) / (float(np.mean(noise**2)) or 1.0))
        audio = audio + noise
    else:
        audio = audio + rng.normal(0.0, 3.0, len(audio))
    return np.asarray(np.clip(audio, -32768, 32767), dtype=np.int16)


def _noise(kind: str, length: int, rng: np.random.Generator, split: str, cache: Path) -> np.ndarray:
    if kind == "white" or kind == "reverb":
        return (
            rng.normal(0.0, 1.0, length) if kind == "white" else _pink(length, rng) * 0.5 + rng.normal(0, 0.1, length)
        )
    if kind == "pink":
        return _pink(length, rng)
    track = room_talk("babble", cache) if split == "report" else _babble(split, int(rng.integers(3, 7)), cache)
    start = int(rng.integers(0, max(1, len(track) - length)))
    return np.resize(track[start:].astype(np.float64), length)


def _pink(length: int, rng: np.random.Generator) -> np.ndarray:
    spectrum = np.fft.rfft(rng.normal(0.0, 1.0, length))
    spectrum /= np.sqrt(np.maximum(np.arange(len(spectrum)), 1.0))
    return np.fft.irfft(spectrum, length)


def _reverberant(audio: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The audio in a room that rings for 0.2-0.8 s (an impulse response of decaying noise)."""
    seconds = rng.uniform(0.2, 0.8)
    steps = np.arange(int(seconds * SAMPLE_RATE))
    response = rng.normal(0.0, 1.0, len(steps)) * np.exp(-6.9 * steps / len(steps))
    response[0] = 1.0 / rng.uniform(0.3, 0.7)  # the direct sound
    response /= np.sqrt(np.sum(response**2))
    size = len(audio) + len(response) - 1
    wet = np.fft.irfft(np.fft.rfft(audio, size) * np.fft.rfft(response, size), size)[: len(audio)]
    return np.asarray(wet, dtype=np.float64)


@functools.cache
def _babble(split: str, talkers: int, cache: Path) -> Pcm16:
    """``talkers`` of the split's own voices talking at once (the report's rooms are the benchmark's)."""
    voices = split_voices(0)[split][: talkers + 2]
    parts = [synthesize(text, voices[i % len(voices)], cache).astype(np.float64) for i, text in enumerate(BABBLE)]
    length = sum(len(p) for p in parts) // 2
    streams = [np.resize(np.concatenate(parts[i:] + parts[:i]), length) for i in range(talkers)]
    return np.asarray(sum(streams) / talkers, dtype=np.int16)
