"""Doctor's row for the listener's judge: its libraries and its whisper model."""

from __future__ import annotations

from pathlib import Path

from voice_earl.commands.doctor_checks import CheckResult, Status, package_version
from voice_earl.commands.doctor_models import sha256_of
from voice_earl.errors import VoiceEarlError
from voice_earl.listening.models.judge_models import (
    JUDGE_HINT,
    JUDGE_LOST,
    JUDGE_MODEL,
    PINNED_JUDGE_FILES,
    SOURCE_TRAINED,
    discover_judge_model,
    judge_libraries_missing,
)
from voice_earl.listening.models.trained_judge import TRAINED_JUDGE, read_manifest, shipped_patch_dir


def check_judge(explicit: Path | None = None, base: bool = False) -> CheckResult:
    """Whether the whisper judge can run, with which model (the judge trained on the game's words, checked
    against its manifest; ``base``: tiny.en as it ships), and whether that is the official conversion."""
    name = "judge"
    missing = judge_libraries_missing()
    if missing:
        return CheckResult(name, Status.WARN, f"{' and '.join(missing)} not installed: {JUDGE_LOST}", JUDGE_HINT)
    try:
        found = discover_judge_model(explicit, base=base)
    except VoiceEarlError as error:
        return CheckResult(name, Status.WARN, str(error), f"voice-earl models fetch {JUDGE_MODEL}")
    if found is None:
        detail = f"no whisper model found: {JUDGE_LOST}"
        return CheckResult(name, Status.WARN, detail, f"{JUDGE_HINT}, or: voice-earl models fetch {JUDGE_MODEL}")
    weights = sha256_of(found.path / "model.bin")
    versions = f"ctranslate2 {package_version('ctranslate2') or '?'}, tokenizers {package_version('tokenizers') or '?'}"
    if found.source == SOURCE_TRAINED:
        return _trained(name, found.path, weights, versions)
    official = weights == PINNED_JUDGE_FILES["model.bin"].sha256
    kind = "whisper tiny.en as it ships (the official conversion)" if official else "a whisper model (not tiny.en)"
    detail = f"whisper judge: {kind} at {found.path} ({found.source}); {versions}"
    return CheckResult(
        name,
        Status.OK if official else Status.WARN,
        detail,
        "" if official else f"voice-earl models fetch {JUDGE_MODEL} gets the tuned one",
    )


def _trained(name: str, path: Path, weights: str, versions: str) -> CheckResult:
    """The judge trained on the game's words: its model must be the one its manifest names."""
    manifest = read_manifest(shipped_patch_dir())
    if manifest is None or weights != manifest.model_sha256:
        detail = f"the trained judge at {path} is not the one models/{TRAINED_JUDGE} makes"
        return CheckResult(name, Status.WARN, detail, f"delete {path}: the next start builds it again")
    detail = f"whisper judge: trained on the game's words ({TRAINED_JUDGE}, checked) at {path}; {versions}"
    return CheckResult(name, Status.OK, detail, "")
