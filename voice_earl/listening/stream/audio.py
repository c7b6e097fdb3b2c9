"""Audio in: WAV files and the microphone, both turned into 16 kHz mono 16-bit PCM.

Recognizers and the endpointer all want 16 kHz mono int16; everything else (other rates,
stereo, 8/24/32/64-bit or float samples, a microphone's own rate) is converted here with a proper
resampler (soxr), so the rest of the package sees one format.

>>> samples = to_pcm16k(np.zeros((441, 2), dtype=np.float32), 44_100)
>>> samples.dtype, samples.shape
(dtype('int16'), (160,))
>>> [len(chunk) for chunk in pcm_chunks(np.zeros(1000, dtype=np.int16), chunk_ms=40)]
[1280, 720]
"""

from __future__ import annotations

import logging
import os
import queue
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

from voice_earl.errors import VoiceEarlError
from voice_earl.paths import UnreadableFile, open_regular_file

logger = logging.getLogger(__name__)

SAMPLE_RATE = 16_000
BYTES_PER_SAMPLE = 2
Pcm16 = npt.NDArray[np.int16]

_PCM = 1
_IEEE_FLOAT = 3
_EXTENSIBLE = 0xFFFE
SILENT_MODE_HINT = "or play without a microphone: voice-earl play --silent"
# A WAV holds one formula: a few seconds. These bounds keep a wrong file from filling the memory.
MAX_WAV_BYTES = 100 * 1000 * 1000
MAX_WAV_SECONDS = 300
MIN_WAV_RATE = 1000
MAX_WAV_RATE = 384_000  # the highest rate sound cards record at; a header claiming more is damaged
_MAX_CHUNKS = 1000  # a WAV has a handful; a file of a million tiny chunks is not one
_BLOCK_BYTES = 4 * 1024 * 1024  # of the file's samples, decoded at a time


class AudioFileError(VoiceEarlError):
    """A WAV file that is missing or that cannot be read."""


class AudioUnavailableError(VoiceEarlError):
    """PortAudio (the sound library) is missing, so there is no microphone at all."""


class NoInputDeviceError(VoiceEarlError):
    """No microphone, or not the one asked for."""


class DeviceLostError(VoiceEarlError):
    """The microphone stopped delivering sound (unplugged, or taken by another program)."""


@dataclass(frozen=True)
class AudioChunk:
    """A piece of 16 kHz mono int16 audio; ``captured_at`` is time.monotonic() at capture (live input)."""

    pcm: bytes
    captured_at: float | None = None

    @property
    def duration(self) -> float:
        return len(self.pcm) / (BYTES_PER_SAMPLE * SAMPLE_RATE)


# ---------------------------------------------------------------- files


def read_wav(path: Path) -> Pcm16:
    """Read any PCM or float WAV file as 16 kHz mono int16 samples; a file that cannot be is an AudioFileError.

    The samples are read, converted and resampled a block at a time: a 100 MB file never has a
    floating-point copy of itself in memory, only its 16 kHz result (at most 300 s: 9.6 MB)."""
    try:
        with open_regular_file(path, MAX_WAV_BYTES) as (descriptor, size):
            layout = _wav_layout(path, descriptor, size)
            return _decode_blocks(descriptor, layout)
    except UnreadableFile as error:
        raise AudioFileError(str(error)) from None
    except OSError as error:
        raise AudioFileError(f"{path}: cannot read it ({error.strerror or error})") from None
    except (ValueError, struct.error, MemoryError) as error:  # whatever the layout claims, one line per file
        raise AudioFileError(f"{path}: cannot decode this WAV file ({error})") from None


@dataclass(frozen=True)
class _WavLayout:
    tag: int  # _PCM or _IEEE_FLOAT
    channels: int
    rate: int
    width: int  # bytes a sample
    offset: int  # where the samples start in the file
    size: int  # bytes of whole frames


def _wav_layout(path: Path, descriptor: int, size: int) -> _WavLayout:
    """Parse a RIFF/WAVE file's header: where its samples are and how they are laid out."""
    head = os.pread(descriptor, 12, 0)
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        raise AudioFileError(f"{path}: not a WAV file (record or convert it to .wav)")
    chunks = dict(_riff_chunks(descriptor, size))
    fmt_at, data_at = chunks.get(b"fmt "), chunks.get(b"data")
    fmt = os.pread(descriptor, min(fmt_at[1], 64), fmt_at[0]) if fmt_at is not None else b""
    if data_at is None or len(fmt) < 16:
        raise AudioFileError(f"{path}: damaged WAV file (no format or data chunk)")
    tag, channels, rate, _byte_rate, _align, bits = struct.unpack("<HHIIHH", fmt[:16])
    if tag == _EXTENSIBLE and len(fmt) >= 26:
        tag = struct.unpack("<H", fmt[24:26])[0]
    if channels < 1 or not MIN_WAV_RATE <= rate <= MAX_WAV_RATE or bits not in (8, 16, 24, 32, 64):
        raise AudioFileError(
            f"{path}: unsupported WAV layout ({channels} channels, {rate} Hz, {bits}-bit); "
            f"give {MIN_WAV_RATE:,} to {MAX_WAV_RATE:,} Hz, 8 to 64-bit"
        )
    width = bits // 8
    if not (tag == _PCM or (tag == _IEEE_FLOAT and width in (4, 8))):
        raise AudioFileError(f"{path}: unsupported WAV encoding (format {tag}); use PCM or float WAV")
    offset, length = data_at
    if length / (width * channels * rate) > MAX_WAV_SECONDS:
        raise AudioFileError(f"{path}: longer than {MAX_WAV_SECONDS // 60} minutes; give a recording of one formula")
    return _WavLayout(tag, channels, rate, width, offset, length - length % (width * channels))


def _riff_chunks(descriptor: int, size: int) -> Iterator[tuple[bytes, tuple[int, int]]]:
    """Each chunk's id, with where its content starts and how much of it the file holds."""
    offset = 12
    for _ in range(_MAX_CHUNKS):
        header = os.pread(descriptor, 8, offset)
        if len(header) < 8:
            return
        (length,) = struct.unpack("<I", header[4:])
        yield header[:4], (offset + 8, max(0, min(length, size - offset - 8)))
        offset += 8 + length + (length & 1)  # chunks are word aligned


def _decode_blocks(descriptor: int, layout: _WavLayout) -> Pcm16:
    """The samples as 16 kHz mono int16, read and converted a block at a time."""
    import soxr

    frame = layout.width * layout.channels
    block = max(frame, _BLOCK_BYTES - _BLOCK_BYTES % frame)
    resampler = soxr.ResampleStream(layout.rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
    pieces: list[npt.NDArray[np.float32]] = []
    for start in range(0, layout.size, block):
        raw = os.pread(descriptor, min(block, layout.size - start), layout.offset + start)
        raw = raw[: len(raw) - len(raw) % frame]  # the file may have shrunk since
        if layout.tag == _PCM:
            samples = _pcm_to_float(raw, layout.width)
        else:
            samples = np.frombuffer(raw, dtype="<f4" if layout.width == 4 else "<f8").astype(np.float32)
        mono = _finite(samples.reshape(-1, layout.channels).mean(axis=1, dtype=np.float32))
        pieces.append(mono if layout.rate == SAMPLE_RATE else resampler.resample_chunk(mono))
        if len(raw) < block:
            break
    if layout.rate != SAMPLE_RATE:
        pieces.append(resampler.resample_chunk(np.zeros(0, dtype=np.float32), last=True))
    return _to_int16(np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float32))


def _finite(samples: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """NaN as silence, infinities as full scale: a float WAV may hold them, and they would spread."""
    return np.nan_to_num(samples, nan=0.0, posinf=1.0, neginf=-1.0)


def _to_int16(floats: npt.NDArray[np.float32]) -> Pcm16:
    return np.asarray(np.clip(np.round(floats * 32767.0), -32768, 32767), dtype=np.int16)


def _pcm_to_float(raw: bytes, width: int) -> npt.NDArray[np.float32]:
    if width == 1:  # 8-bit WAV is unsigned
        return (np.frombuffer(raw, dtype=np.uint8).astype(np.float32) - 128.0) / 128.0
    if width == 2:
        return np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    if width == 3:
        bytes3 = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        values = bytes3[:, 0] | (bytes3[:, 1] << 8) | (bytes3[:, 2] << 16)
        values = np.where(values >= 1 << 23, values - (1 << 24), values)
        return values.astype(np.float32) / float(1 << 23)
    if width == 4:
        return (np.frombuffer(raw, dtype="<i4").astype(np.float64) / float(1 << 31)).astype(np.float32)
    if width == 8:
        return (np.frombuffer(raw, dtype="<i8").astype(np.float64) / float(1 << 63)).astype(np.float32)
    raise ValueError(f"unsupported PCM width {width}")


def to_pcm16k(samples: npt.NDArray[Any], rate: int) -> Pcm16:
    """Mix to mono and resample to 16 kHz int16. ``samples``: floats in -1..1, or int16; 1-D or frames x channels."""
    import soxr

    floats = samples.astype(np.float32)
    if samples.dtype == np.int16:
        floats /= 32768.0
    mono = _finite(floats.mean(axis=1) if floats.ndim == 2 else floats)
    if rate != SAMPLE_RATE and len(mono):
        mono = soxr.resample(mono, rate, SAMPLE_RATE, quality="HQ")
    return _to_int16(mono)


def pcm_chunks(samples: Pcm16, chunk_ms: int = 40) -> Iterator[bytes]:
    """Cut samples into real-time-sized pieces of ``chunk_ms`` milliseconds (the last may be shorter)."""
    step = SAMPLE_RATE * chunk_ms // 1000
    for start in range(0, len(samples), step):
        yield samples[start : start + step].tobytes()


# ---------------------------------------------------------------- microphone


def _import_sounddevice() -> Any:
    import sounddevice

    return sounddevice


def other_way_on(problem: str, instead: str = "") -> str:
    """A microphone's problem where Silent Earl is no way on (beside the phones' microphones, in ``hear``, or
    where the players are asked instead): its hint replaced by ``instead``, or left out."""
    return problem.replace(SILENT_MODE_HINT, instead) if instead else problem.replace(f", {SILENT_MODE_HINT}", "")


def _sounddevice() -> Any:
    """Import sounddevice; a missing PortAudio library raises OSError at import time."""
    try:
        return _import_sounddevice()
    except (OSError, ImportError) as error:
        raise AudioUnavailableError(
            f"no sound input: the PortAudio library is missing ({error}); install it "
            f"(e.g. sudo apt install libportaudio2) and retry, {SILENT_MODE_HINT}"
        ) from None


def input_devices() -> list[tuple[int, str]]:
    """(index, name) of every device that can record."""
    sd = _sounddevice()
    try:
        devices = sd.query_devices()
    except sd.PortAudioError as error:
        raise AudioUnavailableError(f"cannot list sound devices ({error}); retry, {SILENT_MODE_HINT}") from None
    return [(i, str(d["name"])) for i, d in enumerate(devices) if int(d["max_input_channels"]) > 0]


def choose_input_device(device: str | int | None) -> tuple[int, str]:
    """The input device by index, by (part of its) name, or the system default."""
    sd = _sounddevice()
    available = input_devices()
    if not available:
        raise NoInputDeviceError(f"no microphone found; plug one in and retry, {SILENT_MODE_HINT}")
    if device is None:
        try:
            default = sd.query_devices(kind="input")
        except (sd.PortAudioError, ValueError):
            return available[0]
        return next(((i, n) for i, n in available if n == default["name"]), available[0])
    if isinstance(device, int) or (device.isascii() and device.isdigit()):
        index = int(device)
        match = [(i, n) for i, n in available if i == index]
    else:
        match = [(i, n) for i, n in available if device.lower() in n.lower()]
    if not match:
        names = "; ".join(f"{i}: {n}" for i, n in available)
        raise NoInputDeviceError(f"no input device {device!r}; choose one of: {names}")
    return match[0]


class Microphone:
    """Live input at the device's own rate, delivered as 16 kHz mono int16 chunks.

    The PortAudio callback only copies the raw bytes into a queue; conversion happens in
    :meth:`chunks`, on the caller's thread.
    """

    def __init__(self, device: str | int | None = None, *, block_ms: int = 40, stall_s: float = 2.0) -> None:
        self._device = device
        self._block_ms = block_ms
        self._stall_s = stall_s
        self._queue: queue.Queue[tuple[bytes, float]] = queue.Queue()
        self._stream: Any = None
        self._rate = SAMPLE_RATE
        self._channels = 1
        self.device_name = ""

    def __enter__(self) -> Microphone:
        sd = _sounddevice()
        index, self.device_name = choose_input_device(self._device)
        info = sd.query_devices(index)
        self._rate = int(info["default_samplerate"]) or SAMPLE_RATE
        self._channels = 1
        try:
            self._stream = sd.RawInputStream(
                samplerate=self._rate,
                blocksize=self._rate * self._block_ms // 1000,
                device=index,
                channels=self._channels,
                dtype="int16",
                callback=self._callback,
            )
            self._stream.start()
        except (sd.PortAudioError, ValueError) as error:
            raise NoInputDeviceError(
                f"cannot open the microphone {self.device_name!r} ({error}); check it and retry, {SILENT_MODE_HINT}"
            ) from None
        logger.info("microphone %s at %d Hz", self.device_name, self._rate)
        return self

    def _callback(self, indata: Any, frames: int, time_info: Any, status: Any) -> None:
        self._queue.put((bytes(indata), time.monotonic()))

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        if self._stream is not None:
            try:
                self._stream.stop()
                self._stream.close()
            except Exception:  # a vanished device may fail to close; nothing left to do
                logger.debug("closing the input stream failed", exc_info=True)
            self._stream = None

    def chunks(self) -> Iterator[AudioChunk]:
        """Captured audio, converted, until the caller stops iterating. Raises DeviceLostError on a stall."""
        import soxr

        # A streaming resampler keeps its filter state across blocks (no clicks at block edges).
        resampler = soxr.ResampleStream(self._rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
        while True:
            try:
                raw, captured_at = self._queue.get(timeout=self._stall_s)
            except queue.Empty:
                raise DeviceLostError(
                    f"the microphone {self.device_name!r} stopped sending sound; "
                    f"reconnect it and retry, {SILENT_MODE_HINT}"
                ) from None
            mono = np.frombuffer(raw, dtype=np.int16).astype(np.float32) / 32768.0
            converted = resampler.resample_chunk(mono) if self._rate != SAMPLE_RATE else mono
            pcm = np.clip(np.round(converted * 32767.0), -32768, 32767).astype(np.int16)
            yield AudioChunk(pcm.tobytes(), captured_at)
