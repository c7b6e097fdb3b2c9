"""Audio output: play rendered speech and know exactly when it starts and stops.

``AudioOutput.play`` blocks until the audio has been played or ``cancel`` is set, so the caller
knows when the speaker is silent again (the listener mutes the microphone meanwhile).
``open_output`` opens a sound device through sounddevice (PortAudio); without PortAudio or
without an output device it raises ``OutputUnavailable`` with one line saying why.
``RecordingOutput`` plays nothing but takes real time and records each play: for machines
without sound, for the demo and for tests.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

from voice_earl.errors import VoiceEarlError
from voice_earl.i18n import _
from voice_earl.table.speech import Audio, resample

log = logging.getLogger(__name__)

_BLOCK_FRAMES = 512  # about 23 ms at 22.05 kHz: how quickly a cancel is heard
_FINISH_GRACE_S = 2.0  # beyond the audio's own length, before a silent device is given up on


class OutputUnavailable(VoiceEarlError):
    """No way to play sound here."""


class AudioOutput(Protocol):
    def play(self, audio: Audio, cancel: threading.Event) -> bool:
        """Play ``audio`` to its end (True) or until ``cancel`` is set (False). Blocks."""
        ...

    def close(self) -> None: ...


def open_output(device: int | str | None = None) -> SoundDeviceOutput:
    """The sound device (``None``: the system default). Raises ``OutputUnavailable``."""
    return SoundDeviceOutput(device)


class SoundDeviceOutput:
    """Plays through a PortAudio output stream opened per line (sample rates differ between voices)."""

    def __init__(self, device: int | str | None = None) -> None:
        # The messages are for the players, in plain words; PortAudio's own words go to the log.
        try:
            import sounddevice
        except (OSError, ImportError) as error:  # PortAudio missing raises OSError on import
            log.info("no sound output: cannot import sounddevice: %s", error)
            raise OutputUnavailable(
                _("the sound library PortAudio is not installed (sudo apt install libportaudio2)")
            ) from None
        self._sd: Any = sounddevice
        try:
            info = sounddevice.query_devices(device, kind="output")
        except (ValueError, sounddevice.PortAudioError) as error:
            log.info("no sound output %r: %s", device, error)
            if device is None:
                raise OutputUnavailable(_("no speaker or sound card found")) from None
            raise OutputUnavailable(_("no speaker called {device} found").format(device=device)) from None
        self._device = device
        self.name = str(info["name"])
        self._default_rate = int(info["default_samplerate"])
        log.info("sound output: %s", self.name)

    def play(self, audio: Audio, cancel: threading.Event) -> bool:
        if len(audio.samples) == 0 or cancel.is_set():
            return not cancel.is_set()
        audio = self._playable(audio)
        finished = threading.Event()
        position = 0

        def fill(outdata: Any, frames: int, _time: Any, _status: Any) -> None:
            nonlocal position
            if cancel.is_set():
                raise self._sd.CallbackAbort
            chunk = audio.samples[position : position + frames]
            outdata[: len(chunk), 0] = chunk
            outdata[len(chunk) :, 0] = 0
            position += len(chunk)
            if len(chunk) < frames:
                raise self._sd.CallbackStop  # PortAudio plays out what is buffered, then finishes

        with self._open_stream(audio.sample_rate, fill, finished.set) as stream:
            if not finished.wait(audio.duration + _FINISH_GRACE_S):
                log.warning("sound output did not finish %.1f s of audio in time; stopping it", audio.duration)
                stream.abort()
        return not cancel.is_set()

    def _playable(self, audio: Audio) -> Audio:
        """The audio at a rate the device takes (a raw hw: device may not take 22.05 kHz)."""
        try:
            self._sd.check_output_settings(self._device, channels=1, dtype="int16", samplerate=audio.sample_rate)
        except (ValueError, self._sd.PortAudioError):
            return resample(audio, self._default_rate)
        return audio

    def _open_stream(self, sample_rate: int, fill: Any, on_finished: Any) -> Any:
        try:
            return self._sd.OutputStream(
                samplerate=sample_rate,
                channels=1,
                dtype="int16",
                device=self._device,
                blocksize=_BLOCK_FRAMES,
                callback=fill,
                finished_callback=on_finished,
            )
        except self._sd.PortAudioError as error:
            log.info("sound output failed at %d Hz: %s", sample_rate, error)
            raise OutputUnavailable(_("the sound card would not play")) from None

    def close(self) -> None:
        pass  # streams are closed after each line


@dataclass(frozen=True)
class PlayRecord:
    audio: Audio
    started: float  # time.monotonic()
    ended: float
    completed: bool


class RecordingOutput:
    """Silent output that takes the audio's real duration (cut short by ``cancel``) and records each play."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[PlayRecord] = []

    def play(self, audio: Audio, cancel: threading.Event) -> bool:
        started = time.monotonic()
        completed = not cancel.wait(audio.duration)
        with self._lock:
            self._records.append(PlayRecord(audio, started, time.monotonic(), completed))
        return completed

    @property
    def records(self) -> list[PlayRecord]:
        with self._lock:
            return list(self._records)

    def close(self) -> None:
        pass
