"""Where voice-earl keeps its files: user data, config, logs and models.

``VOICE_EARL_DATA_DIR`` and ``VOICE_EARL_CONFIG_DIR`` override the platform defaults
(tests and portable installs use them). Files the user names are read with
:func:`read_regular_file`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import shutil
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import platformdirs

log = logging.getLogger(__name__)

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


def pip_install(requirement: str) -> str:
    """The command that installs ``requirement`` into the Python this game runs in (its ``.venv``):
    a bare ``pip`` may be another Python's, where the game would never find it."""
    return f"{shlex.quote(sys.executable)} -m pip install {shlex.quote(requirement)}"


def data_dir() -> Path:
    override = os.environ.get("VOICE_EARL_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir(APP))


def keep_private(path: Path) -> None:
    """Make a file or a folder its owner's alone (0600, 0700): what others may read or enter of it is taken
    away, what its owner may do is left as it is. Nothing there, or a system that keeps no modes, is left be.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     kept = Path(folder) / "voice-earl.sqlite3"
    ...     _ = kept.write_bytes(b""); kept.chmod(0o644); Path(folder).chmod(0o755)
    ...     keep_private(kept); keep_private(Path(folder))
    ...     oct(stat.S_IMODE(kept.stat().st_mode)), oct(stat.S_IMODE(Path(folder).stat().st_mode))
    ('0o600', '0o700')
    """
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            os.chmod(path, mode & 0o700)
    except FileNotFoundError:
        return
    except OSError as error:
        log.warning("cannot make %s its owner's alone: %s", path, error)


def config_dir() -> Path:
    override = os.environ.get("VOICE_EARL_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir(APP))


def kept_by_the_game(path: Path) -> bool:
    """Whether ``path`` is a file the game keeps (its saved series, settings, logs or models): a file
    written there by a command's output would destroy what the game keeps.

    >>> import tempfile
    >>> from unittest import mock
    >>> with tempfile.TemporaryDirectory() as folder, mock.patch.dict(os.environ, {"VOICE_EARL_DATA_DIR": folder}):
    ...     kept = Path(folder) / "voice-earl.sqlite3"
    ...     _ = kept.write_bytes(b"")
    ...     kept_by_the_game(kept), kept_by_the_game(Path(folder) / "new.jsonl"), kept_by_the_game(Path(folder))
    (True, False, False)
    """
    if not path.is_file():
        return False
    where = path.resolve()
    return any(where.is_relative_to(folder.resolve()) for folder in (data_dir(), config_dir()))


def log_file() -> Path:
    return data_dir() / "logs" / "voice-earl.log"


def user_models_dir() -> Path:
    return data_dir() / "models"


def repo_models_dir() -> Path:
    return REPO_ROOT / "models"


NAME_MAX_BYTES = 255  # a folder's or a file's own name, on Linux's and macOS's file systems
PATH_MAX_BYTES = 4096  # a whole path


def path_problem(text: str) -> str | None:
    """Why ``text`` cannot name a file here, or None. Asking the system about such a name fails with
    an error (``File name too long``, ``embedded null byte``) that would otherwise stop a command.

    >>> path_problem("models/vosk-model-small-en-us-0.15"), path_problem("a" * 300)
    (None, 'a name in it is 300 bytes long (at most 255)')
    >>> path_problem("x" + chr(0) + ".wav")
    'a file name cannot hold a NUL character'
    """
    if "\x00" in text:
        return "a file name cannot hold a NUL character"
    try:
        encoded = os.fsencode(text)
    except UnicodeError:
        return "it holds characters this system cannot write in a file name"
    if len(encoded) > PATH_MAX_BYTES:
        return f"it is {len(encoded):,} bytes long (a path has at most {PATH_MAX_BYTES:,})"
    longest = max((len(part) for part in encoded.split(b"/")), default=0)
    if longest > NAME_MAX_BYTES:
        return f"a name in it is {longest:,} bytes long (at most {NAME_MAX_BYTES})"
    return None


def shown_path(text: object, width: int = 160) -> str:
    """A path for a one-line message: a very long one keeps its start and its end.

    >>> shown_path("/tmp/" + "a" * 1000 + ".wav", width=40)
    '/tmp/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa….wav'
    """
    shown = str(text)
    if len(shown) <= width:
        return shown
    tail = Path(shown).suffix[:10]
    return f"{shown[: width - len(tail) - 1]}…{tail}"


class UnreadableFile(Exception):
    """A file the user named that cannot be read: missing, not a regular file, or too big.

    Its message is one line that names the file; callers raise it again as their own error.
    """


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, refusing devices, pipes and anything over ``limit`` bytes.

    ``/dev/zero`` would be read until memory runs out, and a FIFO would wait for a writer for ever:
    the file is opened without blocking and judged by what was opened, before a byte is read.
    """
    with open_regular_file(path, limit) as (descriptor, _size):
        try:
            data = bytearray()
            while len(data) <= limit and (chunk := os.read(descriptor, limit + 1 - len(data))):
                data += chunk
        except OSError as error:
            raise UnreadableFile(f"{shown_path(path)}: cannot read it ({error.strerror or error})") from None
    if len(data) > limit:  # it grew while being read
        raise UnreadableFile(f"{shown_path(path)}: is too big (more than {limit:,} bytes)")
    return bytes(data)


@contextlib.contextmanager
def open_regular_file(path: Path, limit: int) -> Iterator[tuple[int, int]]:
    """A descriptor open on the regular file ``path`` and its size, refused as :func:`read_regular_file`
    refuses it; for a file too big to copy whole into memory, read a piece at a time."""
    problem = path_problem(str(path))
    if problem is not None:
        raise UnreadableFile(f"{shown_path(path)}: {problem}")
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UnreadableFile(f"{shown_path(path)}: no such file") from None
    except OSError as error:
        raise UnreadableFile(f"{shown_path(path)}: cannot read it ({error.strerror or error})") from None
    try:
        yield descriptor, _check_regular(path, descriptor, limit)
    finally:
        os.close(descriptor)


def _check_regular(path: Path, descriptor: int, limit: int) -> int:
    """The file's size, once it is known to be a regular file within ``limit``."""
    try:
        status = os.fstat(descriptor)
    except OSError as error:
        raise UnreadableFile(f"{shown_path(path)}: cannot read it ({error.strerror or error})") from None
    if stat.S_ISDIR(status.st_mode):
        raise UnreadableFile(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise UnreadableFile(f"{path}: is not a regular file (a device or a pipe); give a file")
    if status.st_size > limit:
        raise UnreadableFile(f"{path}: is too big ({status.st_size:,} bytes; at most {limit:,})")
    return status.st_size
