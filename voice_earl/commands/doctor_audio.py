"""Doctor's audio checks: PortAudio, input and output devices, and the microphone level.

>>> import numpy as np
>>> level = level_dbfs(np.full(100, 0.5, dtype=np.float32))
>>> round(level.peak_dbfs, 1), round(level.rms_dbfs, 1)
(-6.0, -6.0)
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from voice_earl.commands.doctor_checks import CheckResult, Status

if TYPE_CHECKING:  # numpy is imported where it is used, so a missing numpy is a row, not a crash
    import numpy as np
    import numpy.typing as npt

MIC_TEST_SECONDS = 2.0
TOO_QUIET_PEAK_DBFS = -30.0  # a formula said at arm's length peaks well above this
CLIPPING_PEAK_DBFS = -0.5
APT_AUDIO = "sudo apt-get install libportaudio2"


# ---- audio devices ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Device:
    index: int
    name: str
    inputs: int
    outputs: int
    default_samplerate: float


@dataclass(frozen=True)
class AudioDevices:
    devices: tuple[Device, ...]
    default_input: int | None
    default_output: int | None

    def inputs(self) -> tuple[Device, ...]:
        return tuple(device for device in self.devices if device.inputs > 0)

    def outputs(self) -> tuple[Device, ...]:
        return tuple(device for device in self.devices if device.outputs > 0)


def check_portaudio() -> CheckResult:
    try:
        import sounddevice
    except OSError as error:  # sounddevice raises OSError when libportaudio is missing
        return CheckResult("PortAudio", Status.FAIL, f"not found ({error})", APT_AUDIO)
    except ImportError:
        return CheckResult("PortAudio", Status.FAIL, "sounddevice is not installed", "pip install sounddevice")
    return CheckResult("PortAudio", Status.OK, str(sounddevice.get_portaudio_version()[1]).split(",")[0])


def query_audio_devices() -> AudioDevices:
    """The devices PortAudio sees now (raises if PortAudio is missing)."""
    import sounddevice

    devices = tuple(
        Device(
            index=int(info["index"]),
            name=str(info["name"]),
            inputs=int(info["max_input_channels"]),
            outputs=int(info["max_output_channels"]),
            default_samplerate=float(info["default_samplerate"]),
        )
        for info in sounddevice.query_devices()
    )
    default_in, default_out = (int(index) for index in sounddevice.default.device)
    return AudioDevices(devices, default_in if default_in >= 0 else None, default_out if default_out >= 0 else None)


def _describe(devices: Sequence[Device], default: int | None) -> str:
    def one(device: Device) -> str:
        mark = "*" if device.index == default else ""
        return f"{mark}{device.index}: {device.name} ({device.default_samplerate:.0f} Hz)"

    return "; ".join(one(device) for device in devices)


def find_input_device(audio: AudioDevices, wanted: int | str | None) -> Device | None:
    """The input device ``wanted`` names (index or part of a name), or the default input."""
    inputs = audio.inputs()
    if wanted is None:
        return next((device for device in inputs if device.index == audio.default_input), None)
    if isinstance(wanted, int):
        return next((device for device in inputs if device.index == wanted), None)
    matches = [device for device in inputs if wanted.casefold() in device.name.casefold()]
    return matches[0] if len(matches) == 1 else None


def check_input_devices(audio: AudioDevices | None, configured: int | str | None = None) -> CheckResult:
    name = "input devices"
    if audio is None:
        return CheckResult(name, Status.FAIL, "cannot list devices without PortAudio", APT_AUDIO)
    inputs = audio.inputs()
    if not inputs:
        return CheckResult(
            name,
            Status.FAIL,
            "no microphone found",
            "plug in a microphone or headset and check it is not muted (alsamixer or the sound settings)",
        )
    detail = f"{len(inputs)} found (* default): {_describe(inputs, audio.default_input)}"
    if find_input_device(audio, configured) is None:
        which = "no default input is set" if configured is None else f"input_device {configured!r} not found"
        fix = (
            "choose one: voice-earl config set input_device INDEX"
            if configured is None
            else "voice-earl config set input_device INDEX (or: voice-earl config unset input_device)"
        )
        return CheckResult(name, Status.FAIL, f"{which}; {detail}", fix)
    return CheckResult(name, Status.OK, detail)


def check_output_devices(audio: AudioDevices | None) -> CheckResult:
    name = "output devices"
    if audio is None:
        return CheckResult(name, Status.WARN, "cannot list devices without PortAudio", APT_AUDIO)
    outputs = audio.outputs()
    if not outputs:
        return CheckResult(
            name,
            Status.WARN,
            "no speaker found: the narrator's lines are shown as text only",
            "plug in speakers or headphones, or check the sound settings",
        )
    return CheckResult(name, Status.OK, f"{len(outputs)} found (* default): {_describe(outputs, audio.default_output)}")


# ---- microphone level ------------------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    peak_dbfs: float  # -inf for digital silence
    rms_dbfs: float


def _dbfs(amplitude: float) -> float:
    return 20 * math.log10(amplitude) if amplitude > 0 else -math.inf


def level_dbfs(samples: npt.NDArray[np.floating[Any]]) -> Level:
    """Peak and RMS of float samples (full scale = 1.0) in dB relative to full scale."""
    import numpy as np

    if samples.size == 0:
        return Level(-math.inf, -math.inf)
    data = samples.astype(np.float64)
    return Level(_dbfs(float(np.max(np.abs(data)))), _dbfs(math.sqrt(float(np.mean(data * data)))))


def check_level(level: Level) -> CheckResult:
    name = "microphone level"
    detail = f"peak {level.peak_dbfs:.1f} dBFS, RMS {level.rms_dbfs:.1f} dBFS"
    if level.peak_dbfs == -math.inf:
        return CheckResult(name, Status.WARN, "silence: not a single sample above zero", "unmute the microphone")
    if level.peak_dbfs < TOO_QUIET_PEAK_DBFS:
        return CheckResult(
            name,
            Status.WARN,
            f"too quiet: {detail}",
            "speak up or move closer, raise the input gain (alsamixer or the sound settings)",
        )
    if level.peak_dbfs > CLIPPING_PEAK_DBFS:
        return CheckResult(name, Status.WARN, f"clipping: {detail}", "lower the input gain or move back a little")
    return CheckResult(name, Status.OK, detail)


def record(device: int | str | None, seconds: float = MIC_TEST_SECONDS) -> npt.NDArray[np.float32]:
    """``seconds`` of mono audio from ``device``; returns early (shorter) rather than hang."""
    import numpy as np
    import sounddevice

    chunks: list[npt.NDArray[np.float32]] = []

    def collect(indata: npt.NDArray[np.float32], frames: int, when: object, status: object) -> None:
        chunks.append(indata[:, 0].copy())

    with sounddevice.InputStream(device=device, channels=1, dtype="float32", callback=collect):
        time.sleep(seconds)
    return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)


def mic_test_blocker(results: Iterable[CheckResult]) -> CheckResult | None:
    """The row to show instead of the microphone test when there is nothing to record from."""
    blocked = any(r.name in ("PortAudio", "input devices") and r.status is Status.FAIL for r in results)
    if not blocked:
        return None
    return CheckResult("microphone level", Status.WARN, "not run: no input device to record from", "see above")


def check_microphone(device: int | str | None, seconds: float = MIC_TEST_SECONDS) -> CheckResult:
    try:
        samples = record(device, seconds)
    except Exception as error:  # PortAudio reports every device problem this way
        return CheckResult(
            "microphone level",
            Status.FAIL,
            f"cannot record: {error}",
            "check input_device (voice-earl config show)",
        )
    if samples.size == 0:
        return CheckResult("microphone level", Status.FAIL, "no audio arrived", "check the microphone is connected")
    return check_level(level_dbfs(samples))
