"""The work directories of model installs: made, held while in use, and cleared after a crash.

An install extracts into a work directory next to the models (``.voice-earl-partial-*``, on the
same file system, so that the final rename is atomic) and holds an exclusive lock on a file in it
for as long as it runs. ``kill -9`` leaves the directory behind but frees the lock, so a later
models command can tell an abandoned directory from an install that is still running: it puts
back a model that a forced install had moved aside and not replaced, then removes the rest.

A forced install swaps the new model and the old one in a single step where the system can
(``renameat2`` with ``RENAME_EXCHANGE`` on Linux), so that the model is never missing.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from voice_earl.errors import VoiceEarlError
from voice_earl.listening.models.discovery import MODEL_NAME, WORK_DIR_PREFIX, human_size, tree_size

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: there the age of a directory decides
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

OWNER_NAME = ".owner"  # locked while the install runs; holds the name of the model being installed
MOVED_ASIDE = "replaced"  # the old model, while a forced install without an atomic swap puts the new one in
# A directory whose owner has not taken the lock yet (it was killed at once, or is just starting) is
# abandoned only once it is this old.
STARTING_SECONDS = 600.0


@dataclass(frozen=True)
class Leftover:
    """A work directory that no running install holds."""

    path: Path
    size_bytes: int
    model: str  # the model it was installing ("" when unknown)
    moved_aside: bool  # it holds the old model of a forced install that did not finish

    def describe(self) -> str:
        aside = f", with the earlier {self.model} moved aside" if self.moved_aside else ""
        return f"{self.path} ({human_size(self.size_bytes)}{aside})"


@contextmanager
def work_dir(parent: Path, model: str) -> Iterator[Path]:
    """A work directory in ``parent``, locked while in use and removed whatever happens (Ctrl-C included)."""
    try:
        parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=WORK_DIR_PREFIX, dir=parent))
        owner = (work / OWNER_NAME).open("w", encoding="utf-8")
    except OSError as error:
        raise VoiceEarlError(f"cannot write to {parent}: {error.strerror or error}") from error
    try:
        if fcntl is not None:
            fcntl.flock(owner, fcntl.LOCK_EX)
        owner.write(model)
        owner.flush()
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)
        owner.close()


def find_leftovers(directory: Path) -> list[Leftover]:
    """The abandoned work directories in ``directory`` (an install still running is left out)."""
    return [_describe(work) for work in _work_dirs(directory) if _abandoned(work)]


def clear_leftovers(directory: Path) -> list[str]:
    """Put back what abandoned installs moved aside, remove their work directories, and say what was done.

    Two commands clearing at once is harmless: what one has moved or removed the other no longer finds.
    """
    done = []
    for leftover in find_leftovers(directory):
        target = directory / leftover.model
        try:
            missing = not (target.exists() or target.is_symlink())
            if leftover.moved_aside and MODEL_NAME.fullmatch(leftover.model) and missing:
                os.rename(leftover.path / MOVED_ASIDE, target)
                done.append(f"put back {leftover.model}, which an interrupted install had moved aside")
        except OSError as error:
            logger.warning("cannot put back %s: %s", target, error)
        shutil.rmtree(leftover.path, ignore_errors=True)
        if not leftover.path.exists():
            size = human_size(leftover.size_bytes)
            done.append(f"removed {size} left by an interrupted install ({leftover.path.name})")
    return done


def swap_into_place(staged: Path, target: Path) -> bool:
    """Exchange ``staged`` and ``target`` in one step (the old model ends up at ``staged``).

    False when this system or file system cannot; then the caller moves the old one aside first.
    """
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    at_cwd, exchange = -100, 2  # AT_FDCWD, RENAME_EXCHANGE
    if renameat2(at_cwd, os.fsencode(staged), at_cwd, os.fsencode(target), exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(target))


def _work_dirs(directory: Path) -> list[Path]:
    try:
        entries = list(directory.iterdir())
    except OSError:
        return []
    return [e for e in entries if e.name.startswith(WORK_DIR_PREFIX) and e.is_dir() and not e.is_symlink()]


def _abandoned(work: Path) -> bool:
    """No install holds ``work``: its owner's lock is free (the owner is gone), or it never took one."""
    try:
        descriptor = os.open(work / OWNER_NAME, os.O_RDONLY)
    except FileNotFoundError:
        return _age(work) > STARTING_SECONDS
    except OSError:
        return False
    try:
        if fcntl is None:
            return _age(work) > STARTING_SECONDS
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when closed, just below
        return True
    except OSError:
        return False
    finally:
        os.close(descriptor)


def _age(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


def _describe(work: Path) -> Leftover:
    try:
        model = (work / OWNER_NAME).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        model = ""
    return Leftover(work, tree_size(work), model, (work / MOVED_ASIDE).is_dir())
