"""Checks that tell whether this machine can run the game by voice, and what to fix if not.

Each check is a function returning one :class:`CheckResult` (or a few). Checks never raise
(:func:`guarded` turns a crash into a row) and never take long. A ``FAIL`` means the game
cannot run by voice; a ``WARN`` means it can, with something worse than it should be.
This module holds the check values and the small checks (Python, packages, config file, data
directory); the groups are in ``doctor_audio``, ``doctor_speech`` and ``doctor_models``, and
``doctor_report`` runs them all in report order.

>>> voice_ready([CheckResult("x", Status.WARN, "quiet")])
True
"""

from __future__ import annotations

import enum
import importlib
import importlib.metadata
import logging
import platform
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from voice_earl import __version__
from voice_earl.keep.config import LoadedSettings
from voice_earl.paths import data_dir

log = logging.getLogger(__name__)

SILENT_MODE = "voice-earl play --silent"
# Without these the game cannot listen at all; the others have their own rows.
ESSENTIAL_PACKAGES = ("numpy", "rapidfuzz", "soxr", "sounddevice")
PACKAGES = ("voice-earl", "vosk", "pocketsphinx", "sounddevice", "pyttsx3", "rapidfuzz", "numpy", "soxr")


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
    return f"The game cannot run by voice here ({', '.join(failed)} failed). Silent mode still works: {SILENT_MODE}"


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
