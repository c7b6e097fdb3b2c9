"""The set-up's system packages (scripts/apt_install.sh, run by scripts/setup.sh) with a fake apt-get.

The fake fails the way apt-get does while another apt holds the dpkg lock (the message and exit
status 100), for a given number of calls or for ever, and logs every call it receives.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

FAKE_APT_GET = """#!/bin/sh
echo "$*" >> "$FAKE_APT_LOG"
busy=$(cat "$FAKE_APT_BUSY")
if [ "$busy" != 0 ]; then
    [ "$busy" = forever ] || echo $((busy - 1)) > "$FAKE_APT_BUSY"
    echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)" >&2
    echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?" >&2
    exit 100
fi
if [ "$1" = install ] && [ -n "$FAKE_APT_BROKEN" ]; then
    echo "E: Unable to locate package $FAKE_APT_BROKEN" >&2
    exit 100
fi
exit 0
"""
# When the tests do not run as root, the script asks sudo; this one runs the command as it is.
FAKE_SUDO = """#!/bin/sh
[ "$1" = -n ] && shift
exec "$@"
"""


def run_apt_part(
    tmp_path: Path, busy: str, *, wait: int = 30, broken: str = ""
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    fake = tmp_path / "bin"
    fake.mkdir()
    for name, text in (("apt-get", FAKE_APT_GET), ("sudo", FAKE_SUDO)):
        (fake / name).write_text(text)
        (fake / name).chmod(0o755)
    (tmp_path / "busy").write_text(busy)
    log = tmp_path / "calls"
    env = {
        **os.environ,
        "PATH": f"{fake}:{os.environ['PATH']}",
        "FAKE_APT_BUSY": str(tmp_path / "busy"),
        "FAKE_APT_LOG": str(log),
        "FAKE_APT_BROKEN": broken,
        "VOICE_EARL_APT_WAIT": str(wait),
        "VOICE_EARL_APT_POLL": "0.1",
    }
    result = subprocess.run(
        ["bash", str(REPO / "scripts" / "apt_install.sh"), "espeak-ng", "libportaudio2"],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return result, calls


def test_a_held_lock_is_waited_for_with_a_message_then_the_packages_are_installed(tmp_path: Path) -> None:
    result, calls = run_apt_part(tmp_path, busy="3")
    assert result.returncode == 0, result.stderr
    assert "another program is using apt (held by process 4242 (unattended-upgr)); waiting" in result.stdout
    assert result.stdout.count("waiting") == 1  # said once, not at every try
    assert [call.split()[0] for call in calls] == ["update"] * 4 + ["install"]
    assert calls[-1] == "install -y -qq espeak-ng libportaudio2"
    assert "installed espeak-ng libportaudio2" in result.stdout


def test_a_lock_held_too_long_prints_the_command_and_goes_on(tmp_path: Path) -> None:
    result, calls = run_apt_part(tmp_path, busy="forever", wait=1)
    assert result.returncode == 0, result.stderr
    assert "still busy after 1 seconds" in result.stdout
    assert "install them with:  sudo apt-get update && sudo apt-get install -y espeak-ng libportaudio2" in result.stdout
    assert "continuing" in result.stdout
    assert calls and all(call.startswith("update") for call in calls)


def test_another_apt_failure_shows_apts_error_and_goes_on(tmp_path: Path) -> None:
    result, calls = run_apt_part(tmp_path, busy="0", broken="espeak-ng")
    assert result.returncode == 0, result.stderr
    assert "E: Unable to locate package espeak-ng" in result.stdout
    assert "apt-get install failed" in result.stdout and "continuing" in result.stdout
    assert len(calls) == 2  # no waiting: it was not the lock


def test_setup_hands_the_missing_packages_to_the_apt_part() -> None:
    text = (REPO / "scripts" / "setup.sh").read_text()
    assert 'bash scripts/apt_install.sh "${missing[@]}"' in text
    assert "apt-get install" not in text  # only the apt part calls apt-get, so that its waiting always applies
