"""The steps every model install shares: the safe download, its checks, and the move into place.

The vosk models (:mod:`voice_earl.listening.models.vosk_install`, one zip archive) and the judge's
model (:mod:`voice_earl.listening.models.judge_install`, four files) are installed the same way: the
address is checked before connecting, each download is streamed into a work directory beside the
models with its size announced and checked and its SHA-256 computed, what arrived is checked
against its pin, and the finished model is renamed into place in one step, so that a failed or
interrupted install leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import http.client
import os
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

from voice_earl import __version__
from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.listening.models.work import MOVED_ASIDE, swap_into_place
from voice_earl.listening.models.discovery import human_size

CHUNK_BYTES = 256 * 1024
DOWNLOAD_TIMEOUT_SECONDS = 30.0
MAX_DOWNLOAD_BYTES = 8 * 1024**3  # a download of no known size stops here
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

ProgressCallback = Callable[[int, int | None], None]
"""Called as ``progress(bytes_done, bytes_total_or_None)`` while a download runs."""


class ModelAlreadyInstalled(VoiceEarlError):
    """The model is already installed at ``path``; ``force`` replaces it."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path.name} is already installed at {path} (use --force to replace it)")
        self.path = path


@dataclass(frozen=True)
class Wanted:
    """What a download is for, as its messages name it."""

    name: str  # the model
    by_hand: str  # how to install it without this command: said when the download fails
    listed_at: str = ""  # where the models' names are listed: said when the address has none


def error_reason(error: object) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def check_url(url: str, *, checksum_known: bool) -> None:
    """Refuse, before connecting, an address whose download nothing would vouch for."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in ("https", "file"):
        return
    if parts.scheme == "http" and (checksum_known or parts.hostname in _LOOPBACK_HOSTS):
        return  # the checksum (or the loopback host) guards what plain http cannot
    if parts.scheme == "http":
        raise UsageError(f"refusing to download {url} over plain http without --sha256; use an https URL")
    raise UsageError(f"cannot download {url!r}: use an https:// (or file://) URL")


def download(
    url: str,
    destination: Path,
    wanted: Wanted,
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
            limit = expected_size or MAX_DOWNLOAD_BYTES
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
        raise VoiceEarlError(_http_error_line(url, wanted, error)) from error
    except urllib.error.URLError as error:
        offline = " - no internet connection?" if isinstance(error.reason, socket.gaierror) else ""
        raise VoiceEarlError(
            f"could not download {url} ({error_reason(error.reason)}{offline}). {wanted.by_hand}"
        ) from error
    except (http.client.HTTPException, ConnectionError, TimeoutError) as error:
        raise VoiceEarlError(
            f"download of {url} broke off after {human_size(received)} ({error_reason(error)}); "
            f"nothing was installed. Try again, or: {wanted.by_hand}"
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


def _http_error_line(url: str, wanted: Wanted, error: urllib.error.HTTPError) -> str:
    if error.code == 404:
        listed = f"; see {wanted.listed_at} for the model names" if wanted.listed_at else ""
        return f"no model {wanted.name!r} at {url} (HTTP 404){listed}"
    return f"could not download {url}: HTTP {error.code} {error.reason}. {wanted.by_hand}"


def verify(
    what: str,
    digest: str,
    size: int,
    expected_sha: str | None,
    expected_size: int | None,
    *,
    deleted: bool,
) -> None:
    """Refuse what arrived unless it has the size and SHA-256 expected (each when known)."""
    fate = "the download was deleted" if deleted else "nothing was installed"
    if expected_size is not None and size != expected_size:
        raise VoiceEarlError(f"{what} is {size} bytes but {expected_size} were expected; {fate}")
    if expected_sha is not None and digest != expected_sha:
        raise VoiceEarlError(
            f"{what} has SHA-256 {digest} but {expected_sha} was expected; {fate} "
            "(try again, or check --url and --sha256)"
        )


def file_sha256(path: Path) -> tuple[str, int]:
    hasher = hashlib.sha256()
    size = 0
    with path.open("rb") as stream:
        while chunk := stream.read(CHUNK_BYTES):
            hasher.update(chunk)
            size += len(chunk)
    return hasher.hexdigest(), size


def now_utc() -> str:
    """The moment of an install, for its receipt."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def move_into_place(staged: Path, target: Path, work: Path, force: bool) -> None:
    """Rename the checked model into place; with force, swap it with the old one (removed with ``work``).

    Where the system cannot swap in one step, the old model is moved aside into ``work`` first and put
    back on failure, or by the next models command after a crash (``model_work.clear_leftovers``).
    """
    if not (target.exists() or target.is_symlink()):
        os.rename(staged, target)
        return
    if not force:
        raise ModelAlreadyInstalled(target)
    if swap_into_place(staged, target):
        return
    retired = work / MOVED_ASIDE
    os.rename(target, retired)
    try:
        os.rename(staged, target)
    except BaseException:
        os.rename(retired, target)
        raise
