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
    discover_judge_model,
    judge_libraries_missing,
)


def check_judge(explicit: Path | None = None) -> CheckResult:
    """Whether the whisper judge can run, with which model, and whether that is the official conversion."""
    name = "judge"
    missing = judge_libraries_missing()
    if missing:
        return CheckResult(name, Status.WARN, f"{' and '.join(missing)} not installed: {JUDGE_LOST}", JUDGE_HINT)
    try:
        found = discover_judge_model(explicit)
    except VoiceEarlError as error:
        return CheckResult(name, Status.WARN, str(error), f"voice-earl models fetch {JUDGE_MODEL}")
    if found is None:
        detail = f"no whisper model found: {JUDGE_LOST}"
        return CheckResult(name, Status.WARN, detail, f"{JUDGE_HINT}, or: voice-earl models fetch {JUDGE_MODEL}")
    weights = found.path / "model.bin"
    official = sha256_of(weights) == PINNED_JUDGE_FILES["model.bin"].sha256
    versions = f"ctranslate2 {package_version('ctranslate2') or '?'}, tokenizers {package_version('tokenizers') or '?'}"
    kind = "the official whisper tiny.en conversion" if official else "a whisper model (not the pinned tiny.en)"
    detail = f"whisper judge: {kind} at {found.path} ({found.source}); {versions}"
    return CheckResult(
        name,
        Status.OK if official else Status.WARN,
        detail,
        "" if official else f"voice-earl models fetch {JUDGE_MODEL} gets the tuned one",
    )
