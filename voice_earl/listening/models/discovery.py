"""Finding, checking and listing vosk speech models.

A vosk model is a directory in the official layout (``am/final.mdl``, ``conf/model.conf``,
``graph/``...). Models are looked for, in order: ``--model PATH``, ``$VOICE_EARL_MODEL``, the
``models/`` directory of the repository, then the user data directory. Fetching and installing
are in :mod:`voice_earl.listening.models.vosk_install`, the checked extraction in
:mod:`voice_earl.listening.models.archive`.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from voice_earl import paths
from voice_earl.errors import VoiceEarlError
from voice_earl.paths import path_problem, shown_path

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "vosk-model-small-en-us-0.15"
MODEL_ENV_VAR = "VOICE_EARL_MODEL"
RECEIPT_NAME = ".voice-earl-install.json"
# Work directories live next to the installed models (same file system, so the final rename is
# atomic) and start with a dot, so discovery and listing never mistake them for models.
WORK_DIR_PREFIX = ".voice-earl-partial-"

SOURCE_EXPLICIT = "--model"
SOURCE_ENV = f"${MODEL_ENV_VAR}"
SOURCE_REPO = "models/ in the repo"
SOURCE_USER = "user data directory"

MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_ENGLISH_NAME = re.compile(r"(?:^|[-_.])en(?:[-_.]|$)", re.IGNORECASE)


@dataclass(frozen=True)
class ModelLayout:
    """What a directory holds, judged against the official vosk model layout."""

    path: Path
    problems: tuple[str, ...]
    supports_grammar: bool  # runtime graph (HCLr.fst + Gr.fst): vosk honours a word grammar
    has_words_list: bool  # graph/words.txt: the vocabulary can be checked before recognition
    has_ivector: bool
    size_bytes: int  # 0 for a directory that is not a usable model

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


# --- layout and discovery ------------------------------------------------------------------------


def check_model_layout(path: Path) -> ModelLayout:
    """Check ``path`` against the official vosk layout; never raises for a bad model."""
    problem = path_problem(str(path))
    if problem is not None:  # the system would refuse to look: "File name too long"
        return _unusable(path, problem)
    if not path.exists():
        return _unusable(path, "does not exist")
    if not path.is_dir():
        # Only a regular file is opened: is_zipfile() reads a device such as /dev/zero until memory runs out.
        archive = path.is_file() and zipfile.is_zipfile(path)
        hint = "; install it with: voice-earl models install FILE.zip" if archive else ""
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
        size_bytes=0 if problems else tree_size(path),  # a wrong folder (say /) is not walked
    )


def _unusable(path: Path, problem: str) -> ModelLayout:
    return ModelLayout(path, (problem,), False, False, False, 0)


def _nested_model_hint(path: Path) -> list[str]:
    """A common mistake: pointing at the folder that holds the model instead of the model."""
    inner = [child for child in visible_subdirs(path) if (child / "am" / "final.mdl").is_file()]
    return [f"did you mean {inner[0]}?"] if len(inner) == 1 else []


def tree_size(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for file_name in files:
            try:
                total += (Path(root) / file_name).stat().st_size
            except OSError:
                continue  # a dangling link does not make the model bigger
    return total


def visible_subdirs(directory: Path) -> list[Path]:
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


# What training changed in the judge, laid over tiny.en (voice_earl/listening/models/trained_judge.py).
TRAINED_JUDGE_PATCH = "decoder.bin"


def _candidates(directory: Path) -> list[Path]:
    """The folders that may hold a vosk model: not the judge's whisper model, nor the trained judge's patch
    (models/whisper-tiny.en-earl), which live beside them."""
    judges = ("model.bin", TRAINED_JUDGE_PATCH)
    return sorted(
        (d for d in visible_subdirs(directory) if not any((d / name).is_file() for name in judges)), key=_preference
    )


def _require_model(path: Path, source: str) -> Path:
    layout = check_model_layout(path)
    if not layout.valid:
        raise VoiceEarlError(
            f"{source} {shown_path(path)} is not a usable vosk model: {'; '.join(layout.problems)} "
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
    >>> human_size(41_205_931), human_size(900), human_size(10**15)
    ('41.2 MB', '900 B', '1.0 PB')
    """
    value = float(size_bytes)
    for unit in ("B", "kB", "MB", "GB", "TB", "PB", "EB"):
        if value < 1000 or unit == "EB":
            return f"{size_bytes} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")
