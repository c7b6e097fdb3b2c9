"""Fixtures of the listening tests: the models/ folders they install into and look in, and the judged listener."""

from __future__ import annotations

from pathlib import Path

import pytest

from voice_earl import paths
from voice_earl.listening.judge.whisper import WhisperJudge
from voice_earl.listening.models.judge_models import discover_judge_model
from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
from voice_earl.listening.stream.listener import Listener


@pytest.fixture
def repo_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty stand-in for models/ in the repository: whatever sits in the real one stays out of a test."""
    directory = tmp_path / "repo-models"
    directory.mkdir()
    monkeypatch.setattr(paths, "repo_models_dir", lambda: directory)
    return directory


@pytest.fixture
def user_models() -> Path:
    """The (isolated) user data directory's models/, made."""
    directory = paths.user_models_dir()
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.fixture(scope="module")
def judge() -> WhisperJudge:
    """The whisper judge the game hears with (the trained one, laid over tiny.en), once per module."""
    found = discover_judge_model()
    if found is None:
        pytest.skip("the judge extra is not installed (pip install 'voice-earl[judge]')")
    return WhisperJudge(found.path)


@pytest.fixture(scope="module")
def listener(judge: WhisperJudge) -> Listener:
    """The first pass with that judge, once per module."""
    return Listener(SphinxRecognizer(), judge=judge)
