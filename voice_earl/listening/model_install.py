"""Downloading and installing vosk speech models.

``fetch_model`` is the only code of the project that touches the internet; it and
``install_model_archive`` check the archive's size and checksum, then share one checked
extraction and an atomic install (:mod:`voice_earl.listening.model_archive`).
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import re
import shutil
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import Message
from pathlib import Path

from voice_earl import __version__, paths
from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.listening.model_archive import (
    CHUNK_BYTES,
    DEFAULT_LIMITS,
    ModelAlreadyInstalled,
    archive_model_name,
    error_reason,
    install_from_archive,
)
from voice_earl.listening.model_work import work_dir
from voice_earl.listening.models import (
    DEFAULT_MODEL,
    MODEL_NAME,
    InstallReceipt,
    check_model_layout,
    human_size,
)

logger = logging.getLogger(__name__)

OFFICIAL_MODELS_URL = "https://alphacephei.com/vosk/models/"
DOWNLOAD_TIMEOUT_SECONDS = 30.0
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")

ProgressCallback = Callable[[int, int | None], None]
"""Called as ``progress(bytes_done, bytes_total_or_None)`` while a download runs."""


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
    source_url = url or official_model_url(name)
    _check_url(source_url, checksum_known=expected_sha is not None)
    target = (dest_dir or paths.user_models_dir()) / name
    _refuse_existing(target, force)
    with work_dir(target.parent, name) as work:
        archive = work / f"{name}.zip"
        digest, received = _download(source_url, archive, name, size, progress, target.parent)
        _verify(archive.name, digest, received, expected_sha, size, deleted=True)
        checksum = "pinned" if pinned else ("given" if expected_sha else "not verified")
        receipt = InstallReceipt(name, source_url, digest, received, checksum, _now())
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
    digest, archive_bytes = _file_sha256(archive)
    _verify(str(archive), digest, archive_bytes, expected_sha, expected_size, deleted=False)
    checksum = "pinned" if pinned else ("given" if expected_sha else "not verified")
    receipt = InstallReceipt(model_name, str(archive.resolve()), digest, archive_bytes, checksum, _now())
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


def _check_url(url: str, *, checksum_known: bool) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in ("https", "file"):
        return
    if parts.scheme == "http" and (checksum_known or parts.hostname in _LOOPBACK_HOSTS):
        return  # the checksum (or the loopback host) guards what plain http cannot
    if parts.scheme == "http":
        raise UsageError(f"refusing to download {url} over plain http without --sha256; use an https URL")
    raise UsageError(f"cannot download {url!r}: use an https:// (or file://) URL")


def _refuse_existing(target: Path, force: bool) -> None:
    if force or not (target.exists() or target.is_symlink()):
        return
    layout = check_model_layout(target)
    if layout.valid:
        raise ModelAlreadyInstalled(target)
    raise VoiceEarlError(
        f"{target} already exists but is not a usable model ({'; '.join(layout.problems)}); use --force to replace it"
    )


def _manual_install_hint(url: str, name: str) -> str:
    return (
        f"To install by hand: download {url} on a computer with internet, copy it here, "
        f"then run: voice-earl models install {name}.zip"
    )


def _download(
    url: str,
    destination: Path,
    name: str,
    expected_size: int | None,
    progress: ProgressCallback | None,
    models_dir: Path,
) -> tuple[str, int]:
    """Stream ``url`` into ``destination`` (in a work directory of ``models_dir``); return (sha256 hex, bytes)."""
    request = urllib.request.Request(url, headers={"User-Agent": f"voice-earl/{__version__}"})
    hasher = hashlib.sha256()
    received = 0
    try:
        with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:
            total = _content_length(response.headers)
            _check_announced_size(url, total, expected_size, models_dir)
            limit = expected_size or DEFAULT_LIMITS.max_total_bytes
            with destination.open("wb") as out:
                while chunk := response.read(CHUNK_BYTES):
                    received += len(chunk)
                    if received > limit:
                        raise VoiceEarlError(f"download of {url} is larger than expected; it was deleted")
                    hasher.update(chunk)
                    out.write(chunk)
                    if progress is not None:
                        progress(received, total)
            if total is not None and received < total:
                raise http.client.IncompleteRead(b"", total - received)
    except urllib.error.HTTPError as error:
        raise VoiceEarlError(_http_error_line(url, name, error)) from error
    except urllib.error.URLError as error:
        offline = " - no internet connection?" if isinstance(error.reason, socket.gaierror) else ""
        raise VoiceEarlError(
            f"could not download {url} ({error_reason(error.reason)}{offline}). {_manual_install_hint(url, name)}"
        ) from error
    except (http.client.HTTPException, ConnectionError, TimeoutError) as error:
        raise VoiceEarlError(
            f"download of {url} broke off after {human_size(received)} ({error_reason(error)}); "
            f"nothing was installed. Try again, or: {_manual_install_hint(url, name)}"
        ) from error
    except OSError as error:
        raise VoiceEarlError(f"could not save the download: {error_reason(error)}") from error
    return hasher.hexdigest(), received


def _content_length(headers: Message) -> int | None:
    value = headers.get("Content-Length")
    return int(value) if value is not None and value.isdigit() else None


def _check_announced_size(url: str, total: int | None, expected: int | None, directory: Path) -> None:
    if total is not None and expected is not None and total != expected:
        raise VoiceEarlError(
            f"{url} is {total} bytes but {expected} were expected; nothing was downloaded "
            "(check --url, --sha256 and the model name)"
        )
    needed = total or expected
    free = shutil.disk_usage(directory).free
    if needed is not None and free < needed:
        raise VoiceEarlError(
            f"not enough free space in {directory}: the download needs {human_size(needed)}, {human_size(free)} is free"
        )


def _http_error_line(url: str, name: str, error: urllib.error.HTTPError) -> str:
    if error.code == 404:
        return f"no model {name!r} at {url} (HTTP 404); see {OFFICIAL_MODELS_URL} for the model names"
    return f"could not download {url}: HTTP {error.code} {error.reason}. {_manual_install_hint(url, name)}"


def _verify(
    what: str,
    digest: str,
    size: int,
    expected_sha: str | None,
    expected_size: int | None,
    *,
    deleted: bool,
) -> None:
    fate = "the download was deleted" if deleted else "nothing was installed"
    if expected_size is not None and size != expected_size:
        raise VoiceEarlError(f"{what} is {size} bytes but {expected_size} were expected; {fate}")
    if expected_sha is not None and digest != expected_sha:
        raise VoiceEarlError(
            f"{what} has SHA-256 {digest} but {expected_sha} was expected; {fate} "
            "(try again, or check --url and --sha256)"
        )


def _file_sha256(path: Path) -> tuple[str, int]:
    hasher = hashlib.sha256()
    size = 0
    with path.open("rb") as stream:
        while chunk := stream.read(CHUNK_BYTES):
            hasher.update(chunk)
            size += len(chunk)
    return hasher.hexdigest(), size


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
