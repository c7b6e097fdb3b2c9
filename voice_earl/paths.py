"""Where voice-earl keeps its files: user data, config, logs and models.

``VOICE_EARL_DATA_DIR`` and ``VOICE_EARL_CONFIG_DIR`` override the platform defaults
(tests and portable installs use them). Files the user names are read with
:func:`read_regular_file`.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import platformdirs

APP = "voice-earl"
REPO_ROOT = Path(__file__).resolve().parent.parent
PLAY_SCRIPT = "VOICE_EARL_PLAY_SCRIPT"  # scripts/play, as it was typed: set by the script itself


def command(arguments: str) -> str:
    """How to run ``voice-earl ARGUMENTS`` in a new terminal, for the messages that tell the players to.

    ``voice-earl`` when that command is on the PATH, or when the game was not started by
    ``scripts/play`` (an installed package brings the command). Started by ``scripts/play`` without
    it, the script, as it was typed (``bash scripts/play --resume 1``), and for other commands the
    ``.venv`` beside it.
    """
    script = os.environ.get(PLAY_SCRIPT)
    if not script or shutil.which(APP) is not None:
        return f"{APP} {arguments}"
    if arguments.startswith("play "):
        return f"bash {script} {arguments.removeprefix('play ')}"
    return f"{Path(script).parent.parent / '.venv' / 'bin' / APP} {arguments}"


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


class UnreadableFile(Exception):
    """A file the user named that cannot be read: missing, not a regular file, or too big.

    Its message is one line that names the file; callers raise it again as their own error.
    """


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, refusing devices, pipes and anything over ``limit`` bytes.

    ``/dev/zero`` would be read until memory runs out, and a FIFO would wait for a writer for ever:
    the file is opened without blocking and judged by what was opened, before a byte is read.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UnreadableFile(f"{path}: no such file") from None
    except OSError as error:
        raise UnreadableFile(f"{path}: cannot read it ({error.strerror or error})") from None
    try:
        _check_regular(path, descriptor, limit)
        data = bytearray()
        while len(data) <= limit and (chunk := os.read(descriptor, limit + 1 - len(data))):
            data += chunk
    except OSError as error:
        raise UnreadableFile(f"{path}: cannot read it ({error.strerror or error})") from None
    finally:
        os.close(descriptor)
    if len(data) > limit:  # it grew while being read
        raise UnreadableFile(f"{path}: is too big (more than {limit:,} bytes)")
    return bytes(data)


def _check_regular(path: Path, descriptor: int, limit: int) -> None:
    status = os.fstat(descriptor)
    if stat.S_ISDIR(status.st_mode):
        raise UnreadableFile(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise UnreadableFile(f"{path}: is not a regular file (a device or a pipe); give a file")
    if status.st_size > limit:
        raise UnreadableFile(f"{path}: is too big ({status.st_size:,} bytes; at most {limit:,})")
