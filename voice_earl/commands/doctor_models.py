"""Doctor's recognizer checks: pocketsphinx, vosk, the configured recognizer and installed models."""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voice_earl.commands.doctor_checks import CheckResult, Status, package_version
from voice_earl.errors import VoiceEarlError
from voice_earl.keep.config import Settings
from voice_earl.paths import repo_models_dir, user_models_dir

log = logging.getLogger(__name__)

MAX_HASHED_BYTES = 512 * 1024 * 1024


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
    """``voice_earl.listening.models.discovery`` (model discovery), or None in a build without it."""
    try:
        return importlib.import_module("voice_earl.listening.models.discovery")
    except ImportError:
        return None


NO_DISCOVERY = "cannot look for vosk models: voice_earl.listening.models.discovery is missing"
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
    detail = f"{package_version('vosk') or '?'}, model {found.path.name} from {found.source} ({layout.graph_kind})"
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
        return CheckResult(name, Status.WARN, f"{model.path} ({model.source}): {'; '.join(model.problems)}", fix)
    parts = [f"{model.path} ({model.source})", f"{model.size_bytes / 1e6:.1f} MB"]
    if model.sha256 is not None:
        parts.append(f"am/final.mdl sha256 {model.sha256[:16]}")
    else:
        parts.append("am/final.mdl too big to hash here")
    if model.archive_checksum is not None:
        parts.append(f"archive checksum {model.archive_checksum}")
    return CheckResult(name, Status.OK, ", ".join(parts))


def check_leftovers() -> list[CheckResult]:
    """Work directories that interrupted model installs left behind (each can be most of a gigabyte)."""
    from voice_earl.listening.models.discovery import model_directories
    from voice_earl.listening.models.work import find_leftovers

    found = [leftover for directory, _source in model_directories() for leftover in find_leftovers(directory)]
    if not found:
        return []
    detail = f"left by interrupted installs: {'; '.join(leftover.describe() for leftover in found)}"
    return [CheckResult("model installs", Status.WARN, detail, "voice-earl models list (clears them)")]


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
