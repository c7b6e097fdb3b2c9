"""Finding, checking, downloading and installing vosk speech models.

A vosk model is a directory in the official layout (``am/final.mdl``, ``conf/model.conf``,
``graph/``...). Models are looked for, in order: ``--model PATH``, ``$VOICE_EARL_MODEL``, the
``models/`` directory of the repository, then the user data directory. ``fetch_model`` is the
only code of the project that touches the internet; it and ``install_model_archive`` share one
checked extraction and an atomic install, so a failed or interrupted install leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import http.client
import importlib.util
import json
import logging
import os
import re
import shutil
import socket
import stat
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import Message
from pathlib import Path, PurePosixPath

from voice_earl import __version__, paths
from voice_earl.errors import UsageError, VoiceEarlError

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "vosk-model-small-en-us-0.15"
OFFICIAL_MODELS_URL = "https://alphacephei.com/vosk/models/"
MODEL_ENV_VAR = "VOICE_EARL_MODEL"
RECEIPT_NAME = ".voice-earl-install.json"
# Work directories live next to the installed models (same file system, so the final rename is
# atomic) and start with a dot, so discovery and listing never mistake them for models.
WORK_DIR_PREFIX = ".voice-earl-partial-"

SOURCE_EXPLICIT = "--model"
SOURCE_ENV = f"${MODEL_ENV_VAR}"
SOURCE_REPO = "models/ in the repo"
SOURCE_USER = "user data directory"

DOWNLOAD_TIMEOUT_SECONDS = 30.0
_CHUNK_BYTES = 256 * 1024
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_ENGLISH_NAME = re.compile(r"(?:^|[-_.])en(?:[-_.]|$)", re.IGNORECASE)
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


@dataclass(frozen=True)
class ExtractionLimits:
    """Bounds that keep a hostile or broken archive from filling the disk."""

    max_members: int = 10_000
    max_total_bytes: int = 8 * 1024**3
    max_member_bytes: int = 4 * 1024**3
    max_ratio: float = 100.0
    ratio_floor_bytes: int = 1024 * 1024  # tiny members compress oddly; judge ratio above this size


DEFAULT_LIMITS = ExtractionLimits()


@dataclass(frozen=True)
class ModelLayout:
    """What a directory holds, judged against the official vosk model layout."""

    path: Path
    problems: tuple[str, ...]
    supports_grammar: bool  # runtime graph (HCLr.fst + Gr.fst): vosk honours a word grammar
    has_words_list: bool  # graph/words.txt: the vocabulary can be checked before recognition
    has_ivector: bool
    size_bytes: int

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def graph_kind(self) -> str:
        if self.supports_grammar:
            return "runtime graph: grammars work"
        return "static graph: grammars ignored" if self.valid else "unusable"


@dataclass(frozen=True)
class DiscoveredModel:
    path: Path
    source: str  # where it was found, e.g. "--model" or "models/ in the repo"


@dataclass(frozen=True)
class ListedModel:
    """One entry of ``voice-earl models list``: valid or not, with where it was found."""

    layout: ModelLayout
    source: str
    receipt: InstallReceipt | None

    @property
    def name(self) -> str:
        return self.layout.path.name


@dataclass(frozen=True)
class InstallReceipt:
    """Where an installed model came from, kept inside the model directory."""

    name: str
    origin: str  # URL or archive path
    sha256: str
    archive_bytes: int
    checksum: str  # "pinned", "given" or "not verified"
    installed_at: str


class ModelAlreadyInstalled(VoiceEarlError):
    """The model is already installed at ``path``; ``force`` replaces it."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path.name} is already installed at {path} (use --force to replace it)")
        self.path = path


# --- layout and discovery ------------------------------------------------------------------------


def check_model_layout(path: Path) -> ModelLayout:
    """Check ``path`` against the official vosk layout; never raises for a bad model."""
    if not path.exists():
        return _unusable(path, "does not exist")
    if not path.is_dir():
        hint = "; install it with: voice-earl models install FILE.zip" if zipfile.is_zipfile(path) else ""
        return _unusable(path, f"is not a directory{hint}")
    problems: list[str] = []
    if not (path / "am" / "final.mdl").is_file():
        problems.append("am/final.mdl is missing")
    if not (path / "conf" / "model.conf").is_file():
        problems.append("conf/model.conf is missing")
    graph = path / "graph"
    runtime_graph = (graph / "HCLr.fst").is_file() and (graph / "Gr.fst").is_file()
    if not runtime_graph and not (graph / "HCLG.fst").is_file():
        problems.append("graph/ holds neither HCLr.fst + Gr.fst nor HCLG.fst")
    if problems:
        problems.extend(_nested_model_hint(path))
    return ModelLayout(
        path=path,
        problems=tuple(problems),
        supports_grammar=runtime_graph and not problems,
        has_words_list=(graph / "words.txt").is_file(),
        has_ivector=(path / "ivector").is_dir(),
        size_bytes=_tree_size(path),
    )


def _unusable(path: Path, problem: str) -> ModelLayout:
    return ModelLayout(path, (problem,), False, False, False, 0)


def _nested_model_hint(path: Path) -> list[str]:
    """A common mistake: pointing at the folder that holds the model instead of the model."""
    inner = [child for child in _visible_subdirs(path) if (child / "am" / "final.mdl").is_file()]
    return [f"did you mean {inner[0]}?"] if len(inner) == 1 else []


def _tree_size(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for file_name in files:
            try:
                total += (Path(root) / file_name).stat().st_size
            except OSError:
                continue  # a dangling link does not make the model bigger
    return total


def _visible_subdirs(directory: Path) -> list[Path]:
    try:
        entries = list(directory.iterdir())
    except OSError:
        return []
    return [entry for entry in entries if not entry.name.startswith(".") and entry.is_dir()]


def looks_english(name: str) -> bool:
    """Judge by name only: ``vosk-model-small-en-us-0.15`` yes, ``vosk-model-small-ko-0.22`` no.

    >>> looks_english("vosk-model-en-us-0.22-lgraph"), looks_english("vosk-model-small-fr-0.22")
    (True, False)
    """
    return bool(_ENGLISH_NAME.search(name))


def _preference(candidate: Path) -> tuple[int, str]:
    if candidate.name == DEFAULT_MODEL:
        return (0, candidate.name)
    return (1 if looks_english(candidate.name) else 2, candidate.name)


def model_directories() -> tuple[tuple[Path, str], ...]:
    """The directories searched for models, in order, each with its source label."""
    return ((paths.repo_models_dir(), SOURCE_REPO), (paths.user_models_dir(), SOURCE_USER))


def _candidates(directory: Path) -> list[Path]:
    return sorted(_visible_subdirs(directory), key=_preference)


def _require_model(path: Path, source: str) -> Path:
    layout = check_model_layout(path)
    if not layout.valid:
        raise VoiceEarlError(
            f"{source} {path} is not a usable vosk model: {'; '.join(layout.problems)} "
            f"(see 'voice-earl models list', or fetch one with 'voice-earl models fetch')"
        )
    return path


def _env_model_path() -> Path | None:
    value = os.environ.get(MODEL_ENV_VAR, "").strip()
    return Path(value).expanduser() if value else None


def discover_vosk_model(explicit: Path | None = None) -> DiscoveredModel | None:
    """Find the vosk model to use, or None when there is none.

    An explicit path or ``$VOICE_EARL_MODEL`` that is not a valid model is an error (the user
    asked for it); in the two model directories the first valid model wins, preferring
    DEFAULT_MODEL, then English models by name.
    """
    if explicit is not None:
        return DiscoveredModel(_require_model(explicit.expanduser(), SOURCE_EXPLICIT), SOURCE_EXPLICIT)
    env_path = _env_model_path()
    if env_path is not None:
        return DiscoveredModel(_require_model(env_path, SOURCE_ENV), SOURCE_ENV)
    for directory, source in model_directories():
        for candidate in _candidates(directory):
            if check_model_layout(candidate).valid:
                if not looks_english(candidate.name):
                    logger.warning("no English vosk model in %s; using %s", directory, candidate.name)
                return DiscoveredModel(candidate, source)
    return None


def pocketsphinx_model_path() -> Path:
    """pocketsphinx's bundled US English model, always available."""
    import pocketsphinx

    return Path(pocketsphinx.get_model_path()) / "en-us"


def auto_recognizer_choice(explicit: Path | None = None) -> tuple[str, str]:
    """Which recognizer ``--recognizer auto`` uses ("vosk" or "pocketsphinx") and why."""
    if importlib.util.find_spec("vosk") is None:
        return ("pocketsphinx", "the vosk package is not installed")
    found = discover_vosk_model(explicit)
    if found is None:
        looked = ", ".join(str(directory) for directory, _source in model_directories())
        return (
            "pocketsphinx",
            f"no vosk model found (looked in {looked}); 'voice-earl models fetch' gets one",
        )
    layout = check_model_layout(found.path)
    return ("vosk", f"vosk model {found.path.name} from {found.source} ({layout.graph_kind})")


def list_models() -> tuple[ListedModel, ...]:
    """Every model directory in the places discovery looks, valid or not (for ``models list``)."""
    places: list[tuple[Path, str]] = []
    env_path = _env_model_path()
    if env_path is not None:
        places.append((env_path, SOURCE_ENV))
    for directory, source in model_directories():
        places.extend((candidate, source) for candidate in _candidates(directory))
    listed: list[ListedModel] = []
    seen: set[Path] = set()
    for path, source in places:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            listed.append(ListedModel(check_model_layout(path), source, read_install_receipt(path)))
    return tuple(listed)


def read_install_receipt(model_path: Path) -> InstallReceipt | None:
    try:
        data = json.loads((model_path / RECEIPT_NAME).read_text(encoding="utf-8"))
        return InstallReceipt(**data)
    except (OSError, ValueError, TypeError):
        return None


def human_size(size_bytes: int) -> str:
    """
    >>> human_size(41_205_931), human_size(900)
    ('41.2 MB', '900 B')
    """
    value = float(size_bytes)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{size_bytes} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


# --- download --------------------------------------------------------------------------------------


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
    with _work_dir(target.parent) as work:
        archive = work / f"{name}.zip"
        digest, received = _download(source_url, archive, name, size, progress)
        _verify(archive.name, digest, received, expected_sha, size, deleted=True)
        checksum = "pinned" if pinned else ("given" if expected_sha else "not verified")
        receipt = InstallReceipt(name, source_url, digest, received, checksum, _now())
        _install_from_archive(archive, target, work, receipt, force, DEFAULT_LIMITS)
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
    model_name = name or _archive_model_name(archive)
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
    with _work_dir(target.parent) as work:
        _install_from_archive(archive, target, work, receipt, force, DEFAULT_LIMITS)
    logger.info("installed %s from %s (sha256 %s, %s)", model_name, archive, digest, checksum)
    return target


def _check_model_name(name: str) -> None:
    if name.endswith(".zip"):
        raise UsageError(
            f"give the model name without .zip (for a downloaded file use: voice-earl models install {name})"
        )
    if not _MODEL_NAME.fullmatch(name):
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


@contextmanager
def _work_dir(parent: Path) -> Iterator[Path]:
    """A scratch directory next to the target, removed whatever happens (Ctrl-C included)."""
    try:
        parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=WORK_DIR_PREFIX, dir=parent))
    except OSError as error:
        raise VoiceEarlError(f"cannot write to {parent}: {error.strerror or error}") from error
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _manual_install_hint(url: str, name: str) -> str:
    return (
        f"To install by hand: download {url} on a computer with internet, copy it here, "
        f"then run: voice-earl models install {name}.zip"
    )


def _download(
    url: str, destination: Path, name: str, expected_size: int | None, progress: ProgressCallback | None
) -> tuple[str, int]:
    """Stream ``url`` into ``destination``; return (sha256 hex, bytes received)."""
    request = urllib.request.Request(url, headers={"User-Agent": f"voice-earl/{__version__}"})
    hasher = hashlib.sha256()
    received = 0
    try:
        with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:
            total = _content_length(response.headers)
            _check_announced_size(url, total, expected_size, destination.parent)
            limit = expected_size or DEFAULT_LIMITS.max_total_bytes
            with destination.open("wb") as out:
                while chunk := response.read(_CHUNK_BYTES):
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
            f"could not download {url} ({_reason(error.reason)}{offline}). {_manual_install_hint(url, name)}"
        ) from error
    except (http.client.HTTPException, ConnectionError, TimeoutError) as error:
        raise VoiceEarlError(
            f"download of {url} broke off after {human_size(received)} ({_reason(error)}); "
            f"nothing was installed. Try again, or: {_manual_install_hint(url, name)}"
        ) from error
    except OSError as error:
        raise VoiceEarlError(f"could not save the download: {_reason(error)}") from error
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


def _reason(error: object) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


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
        while chunk := stream.read(_CHUNK_BYTES):
            hasher.update(chunk)
            size += len(chunk)
    return hasher.hexdigest(), size


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# --- checked extraction and atomic install --------------------------------------------------------


def _install_from_archive(
    archive: Path,
    target: Path,
    work: Path,
    receipt: InstallReceipt,
    force: bool,
    limits: ExtractionLimits,
) -> None:
    extracted = work / "extracted"
    extract_zip_safely(archive, extracted, limits)
    model_root = _model_root(extracted, archive)
    layout = check_model_layout(model_root)
    if not layout.valid:
        raise VoiceEarlError(
            f"{archive.name} does not hold a usable vosk model: {'; '.join(layout.problems)}; nothing was installed"
        )
    (model_root / RECEIPT_NAME).write_text(json.dumps(receipt.__dict__, indent=2) + "\n", encoding="utf-8")
    _move_into_place(model_root, target, work, force)


def _model_root(extracted: Path, archive: Path) -> Path:
    """The model is either at the top of the archive or in its single top folder."""
    if (extracted / "am").is_dir():
        return extracted
    folders = [entry for entry in _visible_subdirs(extracted) if entry.name != "__MACOSX"]
    if len(folders) == 1:
        return folders[0]
    raise VoiceEarlError(
        f"{archive.name} does not hold a vosk model: expected am/, conf/ and graph/ at its top "
        "or inside one folder; nothing was installed"
    )


def _archive_model_name(archive: Path) -> str:
    """The single top folder of the archive, else the archive's file name without .zip."""
    try:
        with zipfile.ZipFile(archive) as bundle:
            tops = {PurePosixPath(name).parts[0] for name in bundle.namelist() if name.strip("/")}
    except (zipfile.BadZipFile, OSError) as error:
        raise VoiceEarlError(f"{archive} is not a readable zip archive ({error})") from error
    tops.discard("__MACOSX")
    if len(tops) == 1:
        (top,) = tops
        if top not in ("am", "conf", "graph", "ivector") and _MODEL_NAME.fullmatch(top):
            return top
    return archive.name.removesuffix(".zip")


def _move_into_place(staged: Path, target: Path, work: Path, force: bool) -> None:
    """Rename the checked model into place; with force, swap out the old one and restore it on failure."""
    if not (target.exists() or target.is_symlink()):
        os.rename(staged, target)
        return
    if not force:
        raise ModelAlreadyInstalled(target)
    retired = work / "replaced"
    os.rename(target, retired)
    try:
        os.rename(staged, target)
    except BaseException:
        os.rename(retired, target)
        raise


def extract_zip_safely(archive: Path, target: Path, limits: ExtractionLimits = DEFAULT_LIMITS) -> None:
    """Extract ``archive`` into the new directory ``target``, refusing anything unsafe.

    Refused: paths that are absolute or climb out with ``..``, symlinks and other special files,
    encrypted or duplicate members, too many members, and sizes or compression ratios beyond
    ``limits`` (declared sizes are checked first, actual bytes while writing).
    """
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = bundle.infolist()
            _check_members(archive, members, limits)
            _check_free_space(target.parent, sum(member.file_size for member in members))
            target.mkdir()
            for member in members:
                _extract_member(bundle, member, target, limits)
    except zipfile.BadZipFile as error:
        raise VoiceEarlError(f"{archive.name} is not a valid zip archive ({error}); nothing was installed") from error
    except OSError as error:
        raise VoiceEarlError(f"could not extract {archive.name}: {_reason(error)}; nothing was installed") from error


def _refuse(archive: Path, reason: str) -> VoiceEarlError:
    return VoiceEarlError(f"refusing to install {archive.name}: {reason}; nothing was installed")


def _check_members(archive: Path, members: list[zipfile.ZipInfo], limits: ExtractionLimits) -> None:
    if len(members) > limits.max_members:
        raise _refuse(archive, f"it has {len(members)} members (at most {limits.max_members} allowed)")
    total = 0
    seen: set[str] = set()
    for member in members:
        relative = _safe_member_path(archive, member)
        key = relative.as_posix()
        if key in seen:
            raise _refuse(archive, f"member {member.filename!r} appears twice")
        seen.add(key)
        _check_member_size(archive, member, limits)
        total += member.file_size
        if total > limits.max_total_bytes:
            raise _refuse(archive, f"it unpacks to more than {human_size(limits.max_total_bytes)}")


def _safe_member_path(archive: Path, member: zipfile.ZipInfo) -> PurePosixPath:
    name = member.filename
    relative = PurePosixPath(name)
    if (
        not name.strip("/")
        or "\x00" in name
        or "\\" in name
        or relative.is_absolute()
        or ".." in relative.parts
        or re.match(r"[A-Za-z]:", name)
    ):
        raise _refuse(archive, f"member {name!r} would be written outside the model folder")
    if member.flag_bits & 0x1:
        raise _refuse(archive, f"member {name!r} is encrypted")
    # Many zip writers store permission bits without a file type: only a stated type is judged.
    file_type = stat.S_IFMT(member.external_attr >> 16)
    if file_type not in (0, stat.S_IFREG, stat.S_IFDIR):
        kind = "a symlink" if file_type == stat.S_IFLNK else "a special file"
        raise _refuse(archive, f"member {name!r} is {kind}")
    return relative


def _check_member_size(archive: Path, member: zipfile.ZipInfo, limits: ExtractionLimits) -> None:
    if member.file_size > limits.max_member_bytes:
        raise _refuse(
            archive,
            f"member {member.filename!r} unpacks to {human_size(member.file_size)}, more than allowed",
        )
    if member.file_size > limits.ratio_floor_bytes:
        ratio = member.file_size / max(member.compress_size, 1)
        if ratio > limits.max_ratio:
            raise _refuse(archive, f"member {member.filename!r} is compressed {ratio:.0f} to 1 (a zip bomb?)")


def _check_free_space(directory: Path, needed: int) -> None:
    free = shutil.disk_usage(directory).free
    if free < needed:
        raise VoiceEarlError(
            f"not enough free space in {directory}: the model needs {human_size(needed)}, {human_size(free)} is free"
        )


def _extract_member(bundle: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path, limits: ExtractionLimits) -> None:
    destination = target.joinpath(*PurePosixPath(member.filename).parts)
    if not destination.resolve().is_relative_to(target.resolve()):  # second line of defence
        raise VoiceEarlError(f"member {member.filename!r} would be written outside the model folder")
    if member.is_dir():
        destination.mkdir(parents=True, exist_ok=True)
        return
    destination.parent.mkdir(parents=True, exist_ok=True)
    # Never trust the declared size alone: stop as soon as the real bytes exceed it.
    allowed = min(member.file_size, limits.max_member_bytes)
    written = 0
    with bundle.open(member) as source, destination.open("xb") as out:
        while chunk := source.read(_CHUNK_BYTES):
            written += len(chunk)
            if written > allowed:
                raise VoiceEarlError(
                    f"member {member.filename!r} is larger than its archive entry says; nothing was installed"
                )
            out.write(chunk)
