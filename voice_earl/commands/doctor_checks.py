"""Checks that tell whether this machine can run the game by voice, and what to fix if not.

Each check is a function returning one :class:`CheckResult` (or a few). Checks never raise
(:func:`guarded` turns a crash into a row) and never take long. A ``FAIL`` means the game
cannot run by voice; a ``WARN`` means it can, with something worse than it should be.

>>> import numpy as np
>>> level = level_dbfs(np.full(100, 0.5, dtype=np.float32))
>>> round(level.peak_dbfs, 1), round(level.rms_dbfs, 1)
(-6.0, -6.0)
>>> voice_ready([CheckResult("x", Status.WARN, "quiet")])
True
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import importlib.metadata
import logging
import math
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voice_earl import __version__
from voice_earl.errors import VoiceEarlError
from voice_earl.keep.config import LoadedSettings, Settings
from voice_earl.paths import data_dir, repo_models_dir, user_models_dir

if TYPE_CHECKING:  # numpy is imported where it is used, so a missing numpy is a row, not a crash
    import numpy as np
    import numpy.typing as npt

    from voice_earl.table.speech import VoiceInfo

log = logging.getLogger(__name__)

SILENT_MODE = "voice-earl play --silent"
MIC_TEST_SECONDS = 2.0
TOO_QUIET_PEAK_DBFS = -30.0  # a formula said at arm's length peaks well above this
CLIPPING_PEAK_DBFS = -0.5
LANGUAGES = {"en": "english", "nl": "dutch", "it": "italian"}
# Without these the game cannot listen at all; the others have their own rows.
ESSENTIAL_PACKAGES = ("numpy", "rapidfuzz", "soxr", "sounddevice")
PACKAGES = ("voice-earl", "vosk", "pocketsphinx", "sounddevice", "pyttsx3", "rapidfuzz", "numpy", "soxr")
MAX_HASHED_BYTES = 512 * 1024 * 1024
APT_AUDIO = "sudo apt-get install libportaudio2"


class Status(enum.Enum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: Status
    detail: str
    fix: str = ""


def voice_ready(results: Iterable[CheckResult]) -> bool:
    """Whether the game can run by voice: no check failed."""
    return all(result.status is not Status.FAIL for result in results)


def summary(results: Sequence[CheckResult]) -> str:
    """One line for the end of the report."""
    failed = [result.name for result in results if result.status is Status.FAIL]
    if not failed:
        return "Ready to play by voice."
    return (
        f"The game cannot run by voice here ({', '.join(failed)} failed). "
        f"Silent mode still works: {SILENT_MODE}"
    )


def guarded(name: str, check: Callable[[], CheckResult | list[CheckResult]]) -> list[CheckResult]:
    """Run ``check``; a crash becomes a warning row instead of a traceback."""
    try:
        result = check()
    except Exception as error:  # a check must never stop the report
        log.exception("doctor check %s crashed", name)
        return [CheckResult(name, Status.WARN, f"could not check: {error}", "run 'voice-earl -v doctor'")]
    return result if isinstance(result, list) else [result]


# ---- Python and packages ---------------------------------------------------------------------


def check_python(version: Sequence[int] = tuple(sys.version_info[:3])) -> CheckResult:
    text = ".".join(str(part) for part in version[:3])
    if tuple(version[:2]) < (3, 10):
        return CheckResult("python", Status.FAIL, f"Python {text}", "install Python 3.10 or newer")
    return CheckResult("python", Status.OK, f"Python {text} ({platform.system() or 'unknown system'})")


def package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return __version__ if name == "voice-earl" else None


def check_packages(version_of: Callable[[str], str | None] = package_version) -> CheckResult:
    versions = {name: version_of(name) for name in PACKAGES}
    detail = ", ".join(f"{name} {version or 'MISSING'}" for name, version in versions.items())
    missing = [name for name, version in versions.items() if version is None]
    if not missing:
        return CheckResult("packages", Status.OK, detail)
    fix = f"pip install {' '.join(missing)} (or run scripts/setup.sh)"
    status = Status.FAIL if set(missing) & set(ESSENTIAL_PACKAGES) else Status.WARN
    return CheckResult("packages", status, detail, fix)


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
        return CheckResult(
            "PortAudio", Status.FAIL, "sounddevice is not installed", "pip install sounddevice"
        )
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
    return AudioDevices(
        devices, default_in if default_in >= 0 else None, default_out if default_out >= 0 else None
    )


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
    return CheckResult(
        name, Status.OK, f"{len(outputs)} found (* default): {_describe(outputs, audio.default_output)}"
    )


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
        return CheckResult(
            name, Status.WARN, "silence: not a single sample above zero", "unmute the microphone"
        )
    if level.peak_dbfs < TOO_QUIET_PEAK_DBFS:
        return CheckResult(
            name,
            Status.WARN,
            f"too quiet: {detail}",
            "speak up or move closer, raise the input gain (alsamixer or the sound settings)",
        )
    if level.peak_dbfs > CLIPPING_PEAK_DBFS:
        return CheckResult(
            name, Status.WARN, f"clipping: {detail}", "lower the input gain or move back a little"
        )
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
    return CheckResult(
        "microphone level", Status.WARN, "not run: no input device to record from", "see above"
    )


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
        return CheckResult(
            "microphone level", Status.FAIL, "no audio arrived", "check the microphone is connected"
        )
    return check_level(level_dbfs(samples))


# ---- text to speech --------------------------------------------------------------------------


@dataclass(frozen=True)
class Voice:
    id: str
    name: str
    languages: tuple[str, ...]

    def speaks(self, language: str) -> bool:
        codes = [code.lower() for code in self.languages]
        tail = self.id.lower().rsplit("/", 1)[-1]
        return (
            any(code == language or code.startswith((f"{language}-", f"{language}_")) for code in codes)
            or tail == language
            or tail.startswith(f"{language}-")
            or LANGUAGES.get(language, "\0") in self.name.lower()
        )


@dataclass(frozen=True)
class TtsProbe:
    error: str | None
    voices: tuple[Voice, ...]


def _language_code(raw: object) -> str:
    # The espeak driver of older pyttsx3 gives bytes with a leading priority byte (b"\x05en").
    if isinstance(raw, bytes):
        raw = raw.decode("latin-1")
    return str(raw).lstrip("".join(chr(i) for i in range(32))).strip()


def probe_tts() -> TtsProbe:
    """The text-to-speech engine and its voices, asked through the narrator's own engine thread
    (pyttsx3 keeps one engine per process, which must stay on one thread)."""
    try:
        from voice_earl.table import speech

        found = speech.list_voices()
        backend = speech.active_backend()
    except Exception as error:  # pyttsx3 raises anything from RuntimeError to OSError per platform
        return TtsProbe(f"{type(error).__name__}: {error}", ())
    if backend is not speech.Backend.PYTTSX3:
        return TtsProbe(f"pyttsx3 is not usable; speaking through the {backend.value}", _voices(found))
    return TtsProbe(None, _voices(found))


def _voices(found: Sequence[VoiceInfo]) -> tuple[Voice, ...]:
    return tuple(
        Voice(id=v.id, name=v.name, languages=tuple(_language_code(code) for code in v.languages)) for v in found
    )


def espeak_version() -> str | None:
    program = shutil.which("espeak-ng")
    if program is None:
        return None
    try:
        done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    words = done.stdout.split()
    return next((word for word in words if word[:1].isdigit()), "installed")


def check_tts(probe: TtsProbe, espeak: str | None, system: str = platform.system()) -> CheckResult:
    name = "text to speech"
    espeak_text = f"espeak-ng {espeak}" if espeak else "espeak-ng not found"
    apt_fix = "sudo apt-get install espeak-ng libespeak-ng1"
    if probe.error is not None:
        fix = apt_fix if system == "Linux" else "pip install pyttsx3 and check the system's speech settings"
        return CheckResult(
            name, Status.WARN, f"the narrator cannot speak ({probe.error}); {espeak_text}", fix
        )
    if espeak is None and system == "Linux":
        return CheckResult(name, Status.WARN, f"pyttsx3 works; {espeak_text}", apt_fix)
    return CheckResult(name, Status.OK, f"pyttsx3 works; {espeak_text}")


def has_voice(voices: Iterable[Voice], wanted: str) -> bool:
    """Whether ``wanted`` (an espeak-ng voice such as ``en-gb-x-rp+f2``, or a voice's name) is installed."""
    from voice_earl.table.speech import normalize_voice

    base = normalize_voice(wanted).partition("+")[0]
    return any(
        normalize_voice(voice.id) == base or voice.name.casefold() == wanted.casefold() for voice in voices
    )


def check_voices(probe: TtsProbe, settings: Settings) -> CheckResult:
    name = "narrator voices"
    if probe.error is not None:
        return CheckResult(
            name, Status.WARN, "no voices: text to speech does not work", "see 'text to speech'"
        )
    found = {language: any(voice.speaks(language) for voice in probe.voices) for language in LANGUAGES}
    detail = f"{len(probe.voices)} voices; " + ", ".join(
        f"{language} {'yes' if ok else 'no'}" for language, ok in found.items()
    )
    wanted = settings.narrator_voice
    if wanted is not None and not has_voice(probe.voices, wanted):
        fix = "voice-earl config unset narrator.voice (or set it to a voice id this machine has)"
        return CheckResult(name, Status.WARN, f"narrator.voice {wanted!r} not found; {detail}", fix)
    if not found[settings.language]:
        fix = (
            f"install a {LANGUAGES[settings.language]} voice (espeak-ng-data, or the system's voice settings)"
        )
        return CheckResult(name, Status.WARN, f"no voice for language {settings.language}; {detail}", fix)
    return CheckResult(name, Status.OK, detail)


# ---- recognizers and models ------------------------------------------------------------------


@dataclass(frozen=True)
class RecognizerProbe:
    """One recognizer: whether it can listen, and the row that explains it."""

    usable: bool
    result: CheckResult


def probe_pocketsphinx() -> RecognizerProbe:
    name = "pocketsphinx"
    try:
        import pocketsphinx
    except Exception as error:  # a broken binary wheel raises OSError, a missing one ImportError
        row = CheckResult(name, Status.WARN, f"not importable ({error})", "pip install pocketsphinx")
        return RecognizerProbe(False, row)
    model = Path(pocketsphinx.get_model_path()) / "en-us"
    needed = [model / "en-us" / "mdef", model / "en-us.lm.bin", model / "cmudict-en-us.dict"]
    missing = [str(path.relative_to(model)) for path in needed if not path.is_file()]
    if missing:
        detail = f"bundled model incomplete at {model} (missing {', '.join(missing)})"
        fix = "pip install --force-reinstall pocketsphinx"
        return RecognizerProbe(False, CheckResult(name, Status.WARN, detail, fix))
    version = package_version("pocketsphinx") or "?"
    return RecognizerProbe(True, CheckResult(name, Status.OK, f"{version}, bundled en-us model at {model}"))


def _listening_models() -> Any:
    """``voice_earl.listening.models`` (model discovery), or None in a build without it."""
    try:
        return importlib.import_module("voice_earl.listening.models")
    except ImportError:
        return None


NO_DISCOVERY = "cannot look for vosk models: voice_earl.listening.models is missing"
REINSTALL = "reinstall voice-earl (scripts/setup.sh)"


def probe_vosk(explicit: Path | None) -> RecognizerProbe:
    """Whether vosk can listen: importable, and a valid model found (``explicit`` first)."""
    name = "vosk"
    try:
        import vosk

        vosk.SetLogLevel(-1)
    except Exception as error:  # a broken binary wheel raises OSError, a missing one ImportError
        row = CheckResult(name, Status.WARN, f"not importable ({error})", "pip install vosk")
        return RecognizerProbe(False, row)
    models = _listening_models()
    if models is None:
        return RecognizerProbe(False, CheckResult(name, Status.WARN, NO_DISCOVERY, REINSTALL))
    try:
        found = models.discover_vosk_model(explicit)
    except VoiceEarlError as error:  # the model asked for is not a model
        fix = "voice-earl config unset model (or set it to a model folder)"
        return RecognizerProbe(False, CheckResult(name, Status.WARN, str(error), fix))
    if found is None:
        fix = "voice-earl models fetch (or: voice-earl config set model PATH)"
        return RecognizerProbe(False, CheckResult(name, Status.WARN, "importable, but no model found", fix))
    layout = models.check_model_layout(found.path)
    detail = (
        f"{package_version('vosk') or '?'}, model {found.path.name} from {found.source} ({layout.graph_kind})"
    )
    if not layout.supports_grammar:
        fix = "a small model (voice-earl models fetch) can be limited to the formulas and hears them better"
        return RecognizerProbe(True, CheckResult(name, Status.WARN, detail, fix))
    return RecognizerProbe(True, CheckResult(name, Status.OK, detail))


@dataclass(frozen=True)
class InstalledModel:
    path: Path
    source: str  # where discovery looks: "models/ in the repo", "user data directory", ...
    problems: tuple[str, ...]
    size_bytes: int
    sha256: str | None  # of am/final.mdl, when there is one
    archive_checksum: str | None  # from the install receipt: "pinned", "given" or "not verified"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _hashable(weights: Path) -> bool:
    # Hashing runs at disk speed; a huge server model would make the report slow.
    return weights.is_file() and weights.stat().st_size <= MAX_HASHED_BYTES


def installed_models(explicit: Path | None = None) -> list[InstalledModel] | None:
    """Every model where discovery looks, plus ``explicit``; None when discovery is missing."""
    models = _listening_models()
    if models is None:
        return None
    listed = list(models.list_models())
    if explicit is not None and explicit.resolve() not in {item.layout.path.resolve() for item in listed}:
        receipt = models.read_install_receipt(explicit)
        listed.append(models.ListedModel(models.check_model_layout(explicit), "settings", receipt))
    found = []
    for item in listed:
        weights = Path(item.layout.path) / "am" / "final.mdl"
        found.append(
            InstalledModel(
                path=Path(item.layout.path),
                source=str(item.source),
                problems=tuple(item.layout.problems),
                size_bytes=int(item.layout.size_bytes),
                sha256=sha256_of(weights) if _hashable(weights) else None,
                archive_checksum=None if item.receipt is None else str(item.receipt.checksum),
            )
        )
    return found


def check_models(models: Sequence[InstalledModel] | None) -> list[CheckResult]:
    if models is None:
        return [CheckResult("models", Status.WARN, NO_DISCOVERY, REINSTALL)]
    if not models:
        return [
            CheckResult(
                "models",
                Status.WARN,
                f"no vosk model in {repo_models_dir()} or {user_models_dir()}",
                "voice-earl models fetch (pocketsphinx needs none)",
            )
        ]
    return [_model_row(model) for model in models]


def _model_row(model: InstalledModel) -> CheckResult:
    name = f"model {model.path.name}"
    if model.problems:
        fix = "remove it, or reinstall it (voice-earl models fetch)"
        return CheckResult(
            name, Status.WARN, f"{model.path} ({model.source}): {'; '.join(model.problems)}", fix
        )
    parts = [f"{model.path} ({model.source})", f"{model.size_bytes / 1e6:.1f} MB"]
    if model.sha256 is not None:
        parts.append(f"am/final.mdl sha256 {model.sha256[:16]}")
    else:
        parts.append("am/final.mdl too big to hash here")
    if model.archive_checksum is not None:
        parts.append(f"archive checksum {model.archive_checksum}")
    return CheckResult(name, Status.OK, ", ".join(parts))


def check_recognizer(pocketsphinx: RecognizerProbe, vosk: RecognizerProbe, settings: Settings) -> CheckResult:
    """Whether the configured recognizer (or, for auto, any) can listen."""
    name = "recognizer"
    usable = [label for label, probe in (("vosk", vosk), ("pocketsphinx", pocketsphinx)) if probe.usable]
    wanted = settings.recognizer
    if wanted == "auto":
        if not usable:
            return CheckResult(name, Status.FAIL, "none can listen", "see the vosk and pocketsphinx rows")
        return CheckResult(name, Status.OK, f"auto: {usable[0]} (usable: {', '.join(usable)})")
    if wanted not in usable:
        fix = "voice-earl config set recognizer auto" if usable else "see the vosk and pocketsphinx rows"
        return CheckResult(name, Status.FAIL, f"{wanted} is configured but cannot listen", fix)
    return CheckResult(name, Status.OK, wanted)


# ---- config and data directory ---------------------------------------------------------------


def check_config(loaded: LoadedSettings) -> CheckResult:
    name = "config file"
    if loaded.problems:
        more = f" (and {len(loaded.problems) - 1} more)" if len(loaded.problems) > 1 else ""
        fix = "fix it by hand or with voice-earl config set/unset; see voice-earl config show"
        return CheckResult(name, Status.WARN, f"{loaded.problems[0]}{more}", fix)
    if not loaded.path.exists():
        return CheckResult(name, Status.OK, f"{loaded.path} not created yet: defaults apply")
    return CheckResult(name, Status.OK, f"{loaded.path}: {len(loaded.from_file)} setting(s)")


def check_data_dir(path: Path | None = None) -> CheckResult:
    name = "data directory"
    path = data_dir() if path is None else path
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path) as handle:
            handle.write(b"ok")
    except OSError as error:
        fix = "make it writable, or set VOICE_EARL_DATA_DIR to a writable folder"
        return CheckResult(name, Status.WARN, f"{path} is not writable ({error}): no log or statistics", fix)
    return CheckResult(name, Status.OK, f"{path} is writable")


# ---- all together ----------------------------------------------------------------------------


def run_checks(loaded: LoadedSettings) -> list[CheckResult]:
    """Every check but the microphone test (which needs someone speaking), in report order."""
    settings = loaded.settings
    results = guarded("python", check_python) + guarded("packages", check_packages)
    portaudio = guarded("PortAudio", check_portaudio)
    results += portaudio
    audio: AudioDevices | None = None
    if portaudio[0].status is Status.OK:
        try:
            audio = query_audio_devices()
        except Exception:  # PortAudio that cannot list devices is the same as none for the rows below
            log.exception("cannot list audio devices")
    results += guarded("input devices", lambda: check_input_devices(audio, settings.input_device))
    results += guarded("output devices", lambda: check_output_devices(audio))
    tts = probe_tts()
    results += guarded("text to speech", lambda: check_tts(tts, espeak_version()))
    results += guarded("narrator voices", lambda: check_voices(tts, settings))
    pocketsphinx = _guarded_probe("pocketsphinx", probe_pocketsphinx)
    vosk_probe = _guarded_probe("vosk", lambda: probe_vosk(settings.model))
    results += [pocketsphinx.result, vosk_probe.result]
    results += guarded("recognizer", lambda: check_recognizer(pocketsphinx, vosk_probe, settings))
    results += guarded("models", lambda: check_models(installed_models(settings.model)))
    results += guarded("config file", lambda: check_config(loaded))
    results += guarded("data directory", check_data_dir)
    return results


def _guarded_probe(name: str, probe: Callable[[], RecognizerProbe]) -> RecognizerProbe:
    try:
        return probe()
    except Exception as error:  # a check must never stop the report
        log.exception("doctor check %s crashed", name)
        return RecognizerProbe(
            False, CheckResult(name, Status.WARN, f"could not check: {error}", "run with -v")
        )
