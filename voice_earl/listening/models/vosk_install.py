"""Downloading and installing vosk speech models.

``fetch_model`` is the only code of the project that touches the internet; it and
``install_model_archive`` check the archive's size and checksum (the download and its checks are
shared with the judge's model: :mod:`voice_earl.listening.models.install_steps`), then share one checked
extraction and an atomic install (:mod:`voice_earl.listening.models.archive`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from voice_earl import paths
from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.listening.models.install_steps import (
    ModelAlreadyInstalled,
    ProgressCallback,
    Wanted,
    check_url,
    download,
    file_sha256,
    now_utc,
    verify,
)
from voice_earl.listening.models.archive import DEFAULT_LIMITS, archive_model_name, install_from_archive
from voice_earl.listening.models.work import work_dir
from voice_earl.listening.models.discovery import DEFAULT_MODEL, MODEL_NAME, InstallReceipt, check_model_layout

logger = logging.getLogger(__name__)

OFFICIAL_MODELS_URL = "https://alphacephei.com/vosk/models/"
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class PinnedArchive:
    """A model archive whose exact contents are known in advance."""

    sha256: str
    size: int


PINNED_ARCHIVES: dict[str, PinnedArchive] = {
    DEFAULT_MODEL: PinnedArchive(
        sha256="30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498", size=41_205_931
    ),
}


def official_model_url(name: str) -> str:
    return f"{OFFICIAL_MODELS_URL}{name}.zip"


def fetch_model(
    name: str = DEFAULT_MODEL,
    *,
    url: str | None = None,
    sha256: str | None = None,
    size: int | None = None,
    dest_dir: Path | None = None,
    progress: ProgressCallback | None = None,
    force: bool = False,
) -> Path:
    """Download model ``name`` and install it atomically under ``dest_dir``; return its path.

    The archive is checked against ``sha256``/``size`` when given, else against the pinned
    checksum of a known name. An archive with no checksum to check must come over https (or
    file://, or http from this computer); its computed checksum is kept in the install receipt for the user to compare.
    """
    _check_model_name(name)
    # A given checksum may describe another archive (a mirror, a rebuild): then the pin does not apply.
    pinned = PINNED_ARCHIVES.get(name) if sha256 is None else None
    expected_sha = pinned.sha256 if pinned else _normalized_sha256(sha256) if sha256 is not None else None
    if pinned and size is None:
        size = pinned.size
    source_url = official_model_url(name) if url is None else url  # an empty --url is refused, not ignored
    check_url(source_url, checksum_known=expected_sha is not None)
    target = (dest_dir or paths.user_models_dir()) / name
    _refuse_existing(target, force)
    with work_dir(target.parent, name) as work:
        archive = work / f"{name}.zip"
        digest, received = download(source_url, archive, _wanted(source_url, name), size, progress, target.parent)
        verify(archive.name, digest, received, expected_sha, size, deleted=True)
        checksum = "pinned" if pinned else ("given" if expected_sha else "not verified")
        receipt = InstallReceipt(name, source_url, digest, received, checksum, now_utc())
        install_from_archive(archive, target, work, receipt, force, DEFAULT_LIMITS)
    logger.info("installed %s from %s (sha256 %s, %s)", name, source_url, digest, checksum)
    return target


def install_model_archive(
    archive: Path,
    *,
    name: str | None = None,
    sha256: str | None = None,
    dest_dir: Path | None = None,
    force: bool = False,
) -> Path:
    """Install a model from a local zip with the same checks as ``fetch_model``; return its path.

    The name is the archive's single top folder (else the file name). An archive named like a
    pinned model must match its pinned checksum unless ``sha256`` says otherwise.
    """
    if not archive.is_file():
        raise UsageError(f"{archive} is not a file; give the path of a downloaded model .zip")
    model_name = name or archive_model_name(archive)
    _check_model_name(model_name)
    pinned = PINNED_ARCHIVES.get(model_name) if sha256 is None else None
    expected_sha = pinned.sha256 if pinned else _normalized_sha256(sha256) if sha256 is not None else None
    expected_size = pinned.size if pinned else None
    target = (dest_dir or paths.user_models_dir()) / model_name
    _refuse_existing(target, force)
    digest, archive_bytes = file_sha256(archive)
    verify(str(archive), digest, archive_bytes, expected_sha, expected_size, deleted=False)
    checksum = "pinned" if pinned else ("given" if expected_sha else "not verified")
    receipt = InstallReceipt(model_name, str(archive.resolve()), digest, archive_bytes, checksum, now_utc())
    with work_dir(target.parent, model_name) as work:
        install_from_archive(archive, target, work, receipt, force, DEFAULT_LIMITS)
    logger.info("installed %s from %s (sha256 %s, %s)", model_name, archive, digest, checksum)
    return target


def _check_model_name(name: str) -> None:
    if name.endswith(".zip"):
        raise UsageError(
            f"give the model name without .zip (for a downloaded file use: voice-earl models install {name})"
        )
    if not MODEL_NAME.fullmatch(name):
        raise UsageError(f"{name!r} is not a model name; use a name like {DEFAULT_MODEL}")


def _normalized_sha256(value: str) -> str:
    digest = value.strip().lower()
    if not _SHA256_HEX.fullmatch(digest):
        raise UsageError(f"--sha256 must be 64 hexadecimal digits, not {value!r}")
    return digest


def _refuse_existing(target: Path, force: bool) -> None:
    if force or not (target.exists() or target.is_symlink()):
        return
    layout = check_model_layout(target)
    if layout.valid:
        raise ModelAlreadyInstalled(target)
    raise VoiceEarlError(
        f"{target} already exists but is not a usable model ({'; '.join(layout.problems)}); use --force to replace it"
    )


def _wanted(url: str, name: str) -> Wanted:
    by_hand = (
        f"To install by hand: download {url} on a computer with internet, copy it here, "
        f"then run: voice-earl models install {name}.zip"
    )
    return Wanted(name, by_hand, OFFICIAL_MODELS_URL)
