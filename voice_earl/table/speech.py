"""Speech synthesis: text to audio with pyttsx3 (espeak-ng), never played here.

The synthesizers themselves are in :mod:`voice_earl.table.speech_synth`.

Voices are espeak-ng names: a language or voice file (``en``, ``en-us``, ``gmw/en-gb-x-rp``),
optionally with a variant (``en+m3``, ``en-us+f2``).

>>> normalize_voice("gmw/en-US+F2")
'en-us+f2'
>>> bot_voices(2, exclude="en-us+f4")
['en-gb-scotland+m2', 'en-us+f5']
"""

from __future__ import annotations

import functools
import io
import itertools
import logging
import shutil
import wave
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from voice_earl.errors import UsageError
from voice_earl.i18n import language_voice
from voice_earl.table.speech_synth import Backend, RenderRequest, SpeechError, VoiceInfo, check_variant, synthesizer

log = logging.getLogger(__name__)

DEFAULT_VOICE = "en"
DEFAULT_RATE = 175  # words per minute: espeak-ng's own default
MIN_RATE, MAX_RATE = 80, 450  # espeak-ng's range
RECOGNIZER_RATE = 16_000

# English voices for bots: distinct-sounding, most different from each other first, and each one the
# listener hears well (every line due and every pass: scripts/bench_bot_voices.py --variants; the
# American accent is heard best, and the only women's voices heard as well are American).
_BOT_VOICES = (
    "en-us+f4",
    "en-gb-scotland+m2",
    "en-us+f5",
    "en-029+m5",
    "en-us+f3",
    "en-us-nyc+m2",
    "en-us+f1",
    "en-gb-x-gbclan+m6",
    "en-us+m4",
    "en+m2",
    "en-gb-x-rp+m1",
    "en-029+m8",
    "en-gb-x-rp+m8",
    "en-us+m6",
    "en-us-nyc+m5",
    "en-gb-x-gbclan+m2",
)


@dataclass(frozen=True, eq=False)
class Audio:
    """Mono 16-bit audio. The samples are read-only."""

    samples: npt.NDArray[np.int16]
    sample_rate: int

    def __post_init__(self) -> None:
        if self.samples.ndim != 1 or self.samples.dtype != np.int16:
            raise ValueError("Audio holds mono int16 samples (a 1-D int16 array)")
        if self.sample_rate <= 0:
            raise ValueError(f"sample rate must be positive, not {self.sample_rate}")
        if self.samples.flags.writeable:
            frozen = self.samples.view()  # a read-only view leaves the caller's array as it was
            frozen.flags.writeable = False
            object.__setattr__(self, "samples", frozen)

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return len(self.samples) / self.sample_rate

    @classmethod
    def from_wav(cls, data: bytes) -> Audio:
        """Read mono 16-bit WAV bytes (tolerates the unknown-length header of ``espeak-ng --stdout``)."""
        with wave.open(io.BytesIO(data)) as wav:
            if wav.getnchannels() != 1 or wav.getsampwidth() != 2:
                raise ValueError("expected mono 16-bit WAV")
            frames = wav.readframes(wav.getnframes())
            rate = wav.getframerate()
        usable = len(frames) - len(frames) % 2
        return cls(np.frombuffer(frames[:usable], dtype="<i2").astype(np.int16), rate)


def render(text: str, voice: str | None = None, rate: int | None = None) -> Audio:
    """Synthesize ``text`` (``voice`` defaults to ``en``, ``rate`` to 175 words per minute).

    Raises ``UnknownVoice`` for a voice that is not installed, ``UsageError`` for a rate out of
    range, and ``SpeechError`` when no synthesizer works.
    """
    check_rate(rate)
    request = RenderRequest(text.strip(), voice or DEFAULT_VOICE, rate or DEFAULT_RATE)
    if not request.text:
        return Audio(np.zeros(0, dtype=np.int16), 22_050)
    return Audio.from_wav(synthesizer.wav(request))


def check_rate(rate: int | None) -> None:
    if rate is not None and not MIN_RATE <= rate <= MAX_RATE:
        raise UsageError(f"speech rate {rate} is out of range: use {MIN_RATE}-{MAX_RATE} words per minute")


def check_voice(voice: str | None) -> None:
    """Raise ``UnknownVoice`` unless ``voice`` (``None`` = the default) can speak as it is named."""
    render("a", voice)
    if voice:
        check_variant(voice)


def list_voices() -> list[VoiceInfo]:
    """The installed voices (mbrola voices only when mbrola is installed)."""
    voices = synthesizer.voices()
    if shutil.which("mbrola") is None:
        voices = [v for v in voices if not v.id.startswith("mb/")]
    return voices


def normalize_voice(voice: str) -> str:
    """A voice's comparable form: lower case, without the language family (``gmw/en`` is ``en``)."""
    base, plus, variant = voice.strip().lower().partition("+")
    return base.rpartition("/")[2] + plus + variant


def bot_voices(count: int, exclude: str | None = None) -> list[str]:
    """``count`` voices for bots, each different from the others and from ``exclude`` (the narrator's).

    Past the 15 or so distinct voices, the list starts again.
    """
    excluded = normalize_voice(exclude or DEFAULT_VOICE)
    pool = [v for v in _BOT_VOICES if normalize_voice(v) != excluded]
    return list(itertools.islice(itertools.cycle(pool), count))


def to_16k_mono(audio: Audio) -> Audio:
    """What the recognizers take: 16 kHz mono int16."""
    return resample(audio, RECOGNIZER_RATE)


def resample(audio: Audio, sample_rate: int) -> Audio:
    if audio.sample_rate == sample_rate:
        return audio
    import soxr

    resampled = soxr.resample(audio.samples, audio.sample_rate, sample_rate)
    return Audio(np.asarray(resampled, dtype=np.int16), sample_rate)


def active_backend() -> Backend:
    """The synthesizer in use: pyttsx3 until it hangs or fails twice running (``synthesizer.fallback_reason``: why)."""
    return synthesizer.backend


def shutdown() -> None:
    """Stop the pyttsx3 thread and release its engine. A later render starts it again, pyttsx3 first."""
    synthesizer.shutdown()


def narrator_voice_for(code: str) -> str | None:
    """The installed espeak-ng voice that speaks the language; None: the default voice (English), or none installed."""
    voice = language_voice(code)
    return voice if voice is not None and _installed(voice) else None


@functools.cache
def _installed(voice: str) -> bool:
    try:
        installed = {normalize_voice(info.id) for info in list_voices()}
    except (SpeechError, OSError) as error:
        log.warning("cannot list the voices (%s): the narrator keeps its default voice", error)
        return False
    if voice not in installed:
        log.warning("no espeak-ng voice %r installed: the narrator keeps its default voice", voice)
    return voice in installed
