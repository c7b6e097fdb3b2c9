"""Where voice-earl keeps its files: user data, config, logs and models.

``VOICE_EARL_DATA_DIR`` and ``VOICE_EARL_CONFIG_DIR`` override the platform defaults
(tests and portable installs use them).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "voice-earl"
REPO_ROOT = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    override = os.environ.get("VOICE_EARL_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir(APP))


def config_dir() -> Path:
    override = os.environ.get("VOICE_EARL_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir(APP))


def log_file() -> Path:
    return data_dir() / "logs" / "voice-earl.log"


def user_models_dir() -> Path:
    return data_dir() / "models"


def repo_models_dir() -> Path:
    return REPO_ROOT / "models"
