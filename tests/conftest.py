"""Shared fixtures: tests never touch the real user data or config directories."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# A test run started in the background (`bash .ci/run &`) inherits SIGINT ignored, and so would every game the
# tests start, whose Ctrl-C they check: take it back, so that the children get Python's own handler again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The tests' temporary folders go on tmpfs where there is a roomy one (pytest reads PYTEST_DEBUG_TEMPROOT when it
# first makes one): every game event is committed with synchronous=FULL, and on a disk the fsyncs took most of the
# time. A container's /dev/shm is often 64 MB, less than one test's 100 MB recording: there the disk is used.
TMPFS_NEEDED_BYTES = 4 << 30


def _roomy_tmpfs(path: str = "/dev/shm") -> bool:
    if not (os.path.isdir(path) and os.access(path, os.W_OK)):
        return False
    stats = os.statvfs(path)
    return stats.f_bavail * stats.f_frsize >= TMPFS_NEEDED_BYTES


if _roomy_tmpfs():
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", "/dev/shm")

# A fixture wider than one test (a module's listener) finds its models before that test's own folders are set:
# it gets the run's own folders, never the real user's (the trained judge is built into the data folder).
_RUN_DIRS = Path(tempfile.mkdtemp(prefix="voice-earl-tests-", dir=os.environ.get("PYTEST_DEBUG_TEMPROOT")))
atexit.register(shutil.rmtree, _RUN_DIRS, True)
os.environ["VOICE_EARL_DATA_DIR"] = str(_RUN_DIRS / "user-data")
os.environ["VOICE_EARL_CONFIG_DIR"] = str(_RUN_DIRS / "user-config")

# No test may depend on the machine's speed: Hypothesis's 200 ms deadline fails a @given test on a machine busy with
# other work. Both of its own profiles lose the deadline ("ci" is the one it loads itself under CI), and the one it
# chose is loaded again, so that every @given test runs without one.
for _profile in ("default", "ci"):
    settings.register_profile(_profile, settings.get_profile(_profile), deadline=None)
settings.load_profile(settings.get_current_profile_name())


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = tmp_path / "user-data"
    monkeypatch.setenv("VOICE_EARL_DATA_DIR", str(data))
    monkeypatch.setenv("VOICE_EARL_CONFIG_DIR", str(tmp_path / "user-config"))
    monkeypatch.delenv("VOICE_EARL_MODEL", raising=False)
    monkeypatch.delenv("VOICE_EARL_JUDGE_MODEL", raising=False)
    monkeypatch.delenv("VOICE_EARL_PLAY_SCRIPT", raising=False)  # the messages name `voice-earl`
    yield data


@pytest.fixture(autouse=True)
def english_after_each_test() -> Iterator[None]:
    """A test that switches the language must not leak it into the next one."""
    yield
    from voice_earl.i18n import set_language

    set_language("en")
