"""WAV reading at any rate, width and channel count; microphone failures as clear errors."""

from __future__ import annotations

import os
import struct
import sys
import tempfile
import warnings
import wave
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voice_earl.listening.stream import audio
from voice_earl.listening.stream.audio import (
    SAMPLE_RATE,
    AudioFileError,
    AudioUnavailableError,
    DeviceLostError,
    Microphone,
    NoInputDeviceError,
    pcm_chunks,
    read_wav,
)


def _sine(rate: int, seconds: float = 0.5, freq: float = 440.0, amplitude: float = 0.5) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return amplitude * np.sin(2 * np.pi * freq * t)


def _write_pcm(path: Path, signal: np.ndarray, rate: int, channels: int, width: int) -> Path:
    frames = np.repeat(signal[:, None], channels, axis=1)
    if width == 1:
        data = np.round(frames * 127 + 128).astype(np.uint8).tobytes()
    elif width == 2:
        data = np.round(frames * 32767).astype("<i2").tobytes()
    elif width == 3:
        ints = np.round(frames * (2**23 - 1)).astype("<i4").reshape(-1)
        data = b"".join(int(v).to_bytes(3, "little", signed=True) for v in ints)
    elif width == 4:
        data = np.round(frames * (2**31 - 1)).astype("<i4").tobytes()
    else:  # 64-bit integer PCM, which the wave module does not write
        data = (frames * 2.0**63).astype("<i8").tobytes()
        fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * channels * 8, channels * 8, 64)
        body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
        path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
        return path
    with wave.open(str(path), "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(width)
        out.setframerate(rate)
        out.writeframes(data)
    return path


def _peak_frequency(samples: np.ndarray) -> float:
    spectrum = np.abs(np.fft.rfft(samples.astype(np.float64)))
    return float(np.fft.rfftfreq(len(samples), 1 / SAMPLE_RATE)[np.argmax(spectrum)])


@pytest.mark.parametrize("rate", [8000, 16000, 22050, 44100, 48000])
@pytest.mark.parametrize("channels", [1, 2])
@pytest.mark.parametrize("width", [1, 2, 3, 4, 8])
def test_any_pcm_wav_becomes_16k_mono_int16(tmp_path: Path, rate: int, channels: int, width: int) -> None:
    path = _write_pcm(tmp_path / "tone.wav", _sine(rate), rate, channels, width)
    samples = read_wav(path)
    assert samples.dtype == np.int16
    assert abs(len(samples) - SAMPLE_RATE // 2) <= 2
    assert abs(_peak_frequency(samples) - 440.0) < 5.0
    middle = samples[2000:-2000].astype(np.float64) / 32768
    assert 0.45 < np.max(np.abs(middle)) < 0.55  # the level survives conversion


def test_float_wav_is_read(tmp_path: Path) -> None:
    signal = _sine(32000).astype("<f4")
    fmt = struct.pack("<HHIIHH", 3, 1, 32000, 32000 * 4, 4, 32)
    data = signal.tobytes()
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    path = tmp_path / "float.wav"
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    samples = read_wav(path)
    assert abs(len(samples) - SAMPLE_RATE // 2) <= 2
    assert abs(_peak_frequency(samples) - 440.0) < 5.0


def _float_wav(path: Path, signal: np.ndarray, rate: int) -> Path:
    fmt = struct.pack("<HHIIHH", 3, 1, rate, rate * 4 % 2**32, 4, 32)
    data = signal.astype("<f4").tobytes()
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def test_nan_and_infinite_samples_are_read_as_silence_and_full_scale_without_a_warning(tmp_path: Path) -> None:
    signal = _sine(22050)
    signal[100:200], signal[5000] = np.nan, np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "invalid value encountered in cast" was printed
        samples = read_wav(_float_wav(tmp_path / "nan.wav", signal, 22050))
    assert samples.dtype == np.int16 and abs(len(samples) - SAMPLE_RATE // 2) <= 2
    assert abs(_peak_frequency(samples) - 440.0) < 5.0


@pytest.mark.parametrize("rate", [4_294_967_295, 400_000, 999])
def test_a_sample_rate_no_sound_card_records_at_is_refused(tmp_path: Path, rate: int) -> None:
    path = _float_wav(tmp_path / "rate.wav", _sine(16000, seconds=0.1), rate)
    with pytest.raises(AudioFileError, match=f"{rate} Hz.*give 1,000 to 384,000 Hz"):
        read_wav(path)


def test_a_file_is_read_in_blocks_as_it_would_be_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audio, "_BLOCK_BYTES", 65_536 + 3)  # not a whole number of frames
    signal = _sine(48000, seconds=5.0) * np.linspace(0.1, 1.0, 48000 * 5)
    path = _write_pcm(tmp_path / "long.wav", signal, 48000, 2, 2)
    assert path.stat().st_size > 10 * audio._BLOCK_BYTES
    samples = read_wav(path)
    with wave.open(str(path)) as whole:
        frames = np.frombuffer(whole.readframes(whole.getnframes()), dtype="<i2").reshape(-1, 2)
    expected = audio.to_pcm16k(frames.astype(np.float32) / 32768.0, 48000)
    assert abs(len(samples) - len(expected)) <= 2
    common = min(len(samples), len(expected))
    assert np.max(np.abs(samples[:common].astype(int) - expected[:common])) <= 2  # the same, to rounding


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(AudioFileError, match="no such file"):
        read_wav(tmp_path / "nowhere.wav")


def test_a_file_that_is_not_wav_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.wav"
    path.write_text("these are not samples")
    with pytest.raises(AudioFileError, match="not a WAV file"):
        read_wav(path)


def test_a_device_a_pipe_or_an_hour_of_audio_is_refused_before_it_fills_the_memory(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.wav"
    os.mkfifo(fifo)
    for path in (Path("/dev/zero"), fifo):
        with pytest.raises(AudioFileError, match="not a regular file"):
            read_wav(path)
    hour = tmp_path / "hour.wav"
    with wave.open(str(hour), "wb") as out:  # an hour at 8 kHz, 8-bit: small on disk, 57 M samples at 16 kHz
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(8000)
        out.writeframes(bytes(8000 * 3600))
    with pytest.raises(AudioFileError, match="longer than 5 minutes"):
        read_wav(hour)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    tag=st.sampled_from([1, 3, 0xFFFE, 2]),
    channels=st.integers(0, 9),
    rate=st.integers(0, 2**32 - 1),
    bits=st.sampled_from([0, 1, 8, 12, 16, 24, 32, 64, 65535]),
    fmt_extra=st.binary(max_size=12),
    frames=st.binary(max_size=256),
    cut=st.integers(0, 400),
)
def test_whatever_a_wav_header_claims_reading_it_gives_samples_or_one_clear_error(
    tag: int, channels: int, rate: int, bits: int, fmt_extra: bytes, frames: bytes, cut: int
) -> None:
    fmt = struct.pack("<HHIIHH", tag, channels, rate, 0, 0, bits) + fmt_extra
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(frames)) + frames
    data = (b"RIFF" + struct.pack("<I", len(body)) + body)[: 12 + cut]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "fuzzed.wav"
        path.write_bytes(data)
        try:
            samples = read_wav(path)
        except AudioFileError as error:
            assert str(error).startswith(str(path)) and "\n" not in str(error)
        else:
            assert samples.dtype == np.int16


def test_a_truncated_wav_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.wav"
    path.write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk")
    with pytest.raises(AudioFileError, match="damaged"):
        read_wav(path)


def test_chunks_cover_the_audio_in_real_time_sized_pieces() -> None:
    samples = np.arange(16_000, dtype=np.int16)
    chunks = list(pcm_chunks(samples, chunk_ms=30))
    assert {len(c) for c in chunks[:-1]} == {960}
    assert b"".join(chunks) == samples.tobytes()


def test_missing_portaudio_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_portaudio() -> None:
        raise OSError("PortAudio library not found")

    monkeypatch.setitem(sys.modules, "sounddevice", None)
    monkeypatch.setattr(audio, "_import_sounddevice", no_portaudio)
    with pytest.raises(AudioUnavailableError, match=r"PortAudio.*--silent"):
        Microphone().__enter__()


def test_no_input_device_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audio, "input_devices", lambda: [])
    with pytest.raises(NoInputDeviceError, match="no microphone"):
        audio.choose_input_device(None)


def test_unknown_device_name_lists_the_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audio, "input_devices", lambda: [(0, "USB Mic"), (3, "Built-in")])
    assert audio.choose_input_device("usb") == (0, "USB Mic")
    assert audio.choose_input_device("3") == (3, "Built-in")
    with pytest.raises(NoInputDeviceError, match="0: USB Mic; 3: Built-in"):
        audio.choose_input_device("headset")


def test_a_device_that_stops_sending_is_a_clear_error() -> None:
    microphone = Microphone(stall_s=0.05)
    with pytest.raises(DeviceLostError, match="stopped sending sound"):
        next(microphone.chunks())


def test_microphone_resamples_its_blocks_to_16k() -> None:
    microphone = Microphone(stall_s=0.05)
    microphone._rate = 48_000
    block = (_sine(48_000, seconds=0.04) * 32767).astype(np.int16).tobytes()
    for _ in range(5):
        microphone._callback(block, 1920, None, None)
    stream = microphone.chunks()
    chunks = [next(stream) for _ in range(5)]
    total = sum(len(chunk.pcm) for chunk in chunks) // 2
    assert 2400 <= total <= 3200  # 0.2 s at 16 kHz, less the resampler's delay
    assert all(chunk.captured_at is not None for chunk in chunks)
