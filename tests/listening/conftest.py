"""Fixtures of the model tests: the models/ directories they install into and look in."""

from __future__ import annotations

from pathlib import Path

import pytest

from voice_earl import paths


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
