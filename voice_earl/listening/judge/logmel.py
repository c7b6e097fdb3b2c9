"""Whisper's log-mel front end in numpy: 80 mel bands of 25 ms frames every 10 ms.

The same features OpenAI's Whisper computes (Hann window of 400 samples, hop 160, Slaney mel
filters, log10 clamped to 8 below the peak, scaled to about -1..1), so that a CTranslate2
Whisper model can be fed without torch or a second audio stack.

>>> mel_filters().shape
(80, 201)
>>> features = log_mel(np.zeros(16000, np.float32), frames=300)
>>> features.shape, features.dtype
((80, 300), dtype('float32'))
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from voice_earl.listening.stream.audio import SAMPLE_RATE

N_FFT = 400
HOP = 160
N_MELS = 80
FRAMES_PER_SECOND = SAMPLE_RATE // HOP
Floats = npt.NDArray[np.float32]


@lru_cache(maxsize=1)
def mel_filters(n_mels: int = N_MELS) -> Floats:
    """Slaney-style mel filters (librosa's default), shaped mels x FFT bins."""
    fft_freqs = np.fft.rfftfreq(n=N_FFT, d=1.0 / SAMPLE_RATE)
    mels = np.linspace(0.0, 45.245640471924965, n_mels + 2)  # 0 Hz .. 8 kHz on Slaney's mel scale
    linear_step = 200.0 / 3  # Hz per mel below 1 kHz
    freqs = linear_step * mels
    log_from_mel = 1000.0 / linear_step
    log_step = np.log(6.4) / 27.0
    above = mels >= log_from_mel
    freqs[above] = 1000.0 * np.exp(log_step * (mels[above] - log_from_mel))
    widths = np.diff(freqs)
    ramps = freqs[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / widths[:-1, None]
    upper = ramps[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (freqs[2 : n_mels + 2] - freqs[:n_mels]))[:, None]  # equal energy per band
    return weights.astype(np.float32)


@lru_cache(maxsize=1)
def _window() -> Floats:
    return np.hanning(N_FFT + 1)[:-1].astype(np.float32)


def log_mel(samples: Floats, frames: int) -> Floats:
    """Features of ``samples`` (floats in -1..1 at 16 kHz) for exactly ``frames`` frames.

    Shorter audio is padded with digital silence, as Whisper pads its 30-second window.
    """
    wanted = frames * HOP
    audio = np.zeros(wanted, np.float32)
    audio[: min(wanted, len(samples))] = samples[:wanted]
    padded = np.pad(audio, N_FFT // 2, mode="reflect")
    count = 1 + (len(padded) - N_FFT) // HOP
    stride = padded.strides[0]
    windows = np.lib.stride_tricks.as_strided(padded, (count, N_FFT), (stride * HOP, stride))
    power = np.abs(np.fft.rfft(windows * _window(), axis=-1)) ** 2
    mel = mel_filters() @ power[:frames].T
    log = np.log10(np.maximum(mel, 1e-10))
    log = np.maximum(log, log.max() - 8.0)
    return np.ascontiguousarray((log + 4.0) / 4.0, dtype=np.float32)
