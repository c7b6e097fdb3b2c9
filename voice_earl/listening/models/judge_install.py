"""Fetching the judge's model: the official CTranslate2 conversion of Whisper ``tiny.en``.

It is published as four files, not an archive, so each one is downloaded on its own through the
same safe download as the vosk models (:mod:`voice_earl.listening.models.install_steps`: size announced
and checked, streamed, SHA-256 pinned), into a scratch directory beside the target; only when
every file matches its pin is the folder renamed into place, so a failed or interrupted fetch
leaves nothing behind.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path

from voice_earl import paths
from voice_earl.errors import VoiceEarlError
from voice_earl.listening.models.install_steps import (
    ModelAlreadyInstalled,
    ProgressCallback,
    Wanted,
    check_url,
    download,
    move_into_place,
    now_utc,
    verify,
)
from voice_earl.listening.models.judge_models import (
    JUDGE_MODEL,
    OFFICIAL_JUDGE_URL,
    PINNED_JUDGE_FILES,
    PinnedFile,
    judge_model_problems,
)
from voice_earl.listening.models.work import work_dir
from voice_earl.listening.models.discovery import RECEIPT_NAME

logger = logging.getLogger(__name__)


def fetch_judge_model(
    *,
    url: str | None = None,
    pins: Mapping[str, PinnedFile] | None = None,
    dest_dir: Path | None = None,
    progress: ProgressCallback | None = None,
    force: bool = False,
) -> Path:
    """Download whisper-tiny.en file by file (from ``url``, a folder address ending in "/", when
    given: a mirror must serve the very same files) and install it under ``dest_dir``."""
    base = OFFICIAL_JUDGE_URL if url is None else url  # an empty --url is refused, not ignored
    check_url(base, checksum_known=True)
    base = base if base.endswith("/") else f"{base}/"
    pinned = dict(pins or PINNED_JUDGE_FILES)
    target = (dest_dir or paths.user_models_dir()) / JUDGE_MODEL
    if (target.exists() or target.is_symlink()) and not force:
        if not judge_model_problems(target):
            raise ModelAlreadyInstalled(target)
        raise VoiceEarlError(f"{target} already exists but is not a whisper model; use --force to replace it")
    wanted = Wanted(
        JUDGE_MODEL,
        f"To install by hand: download {', '.join(pinned)} from {base} on a computer with internet and put them "
        f"in a folder {JUDGE_MODEL} in models/ (see models/README.md)",
    )
    with work_dir(target.parent, JUDGE_MODEL) as work:
        staged = work / JUDGE_MODEL
        staged.mkdir()
        received: dict[str, str] = {}
        for name, pin in pinned.items():
            digest, size = download(f"{base}{name}", staged / name, wanted, pin.size, progress, target.parent)
            verify(name, digest, size, pin.sha256, pin.size, deleted=True)
            received[name] = digest
        problems = judge_model_problems(staged)
        if problems:
            problem = "; ".join(problems)
            raise VoiceEarlError(f"the files at {base} are not a whisper model ({problem}); nothing was installed")
        receipt = {"name": JUDGE_MODEL, "origin": base, "sha256": received, "checksum": "pinned",
                   "installed_at": now_utc()}
        (staged / RECEIPT_NAME).write_text(json.dumps(receipt, indent=2) + "\n", encoding="utf-8")
        move_into_place(staged, target, work, force)
    logger.info("installed %s from %s", JUDGE_MODEL, base)
    return target
