"""The set-up's system packages (scripts/apt_install.sh, run by scripts/setup.sh) with a fake apt-get.

The fake fails the way apt-get does while another apt holds the dpkg lock (the message and exit
status 100), for a given number of calls or for ever, and logs every call it receives.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.patience import WAIT_S

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
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
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
    assert result.stdout.startswith("voice-earl: installing system packages: espeak-ng libportaudio2\n")
    assert len(result.stdout.splitlines()) == 2  # the step, and the wait


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


# ---- the first run: quiet, one line a step, and a command that works in a new terminal


def fake_repository(tmp_path: Path) -> Path:
    """A copy of the set-up scripts beside a .venv whose python and voice-earl only say what they were asked."""
    repository = tmp_path / "repo"
    (repository / "scripts").mkdir(parents=True)
    for name in ("setup.sh", "apt_install.sh", "launcher.sh", "play"):
        (repository / "scripts" / name).write_text((REPO / "scripts" / name).read_text())
    (repository / "pyproject.toml").write_text("")
    bin_dir = repository / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    noisy_pip = (
        '#!/bin/sh\necho "$*" >> "$FAKE_PIP_LOG"\n'
        "echo '  editable_wheel.py:354: BuildBackendWarning: Editable installation.' >&2\n"
        "echo '  !!' >&2\necho '          ****************' >&2\n"
    )
    (bin_dir / "python").write_text(noisy_pip)
    game = '#!/bin/sh\necho "voice-earl $* (VOICE_EARL_PLAY_SCRIPT=$VOICE_EARL_PLAY_SCRIPT)"\n'
    (bin_dir / "voice-earl").write_text(game)
    for path in bin_dir.iterdir():
        path.chmod(0o755)
    return repository


# A login's ~/.profile as Debian gives one to a new user (it adds ~/.local/bin once the folder is there), and
# root's, which adds nothing.
USERS_PROFILE = 'if [ -d "$HOME/.local/bin" ] ; then\n    PATH="$HOME/.local/bin:$PATH"\nfi\n'
ROOTS_PROFILE = (
    'if [ "$BASH" ]; then\n  if [ -f ~/.bashrc ]; then\n    . ~/.bashrc\n  fi\nfi\nmesg n 2> /dev/null || true\n'
)


def first_run_env(tmp_path: Path, *, on_path: bool, profile: str = USERS_PROFILE) -> dict[str, str]:
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "dpkg").write_text("#!/bin/sh\nexit 0\n")  # every system package is there
    (fake / "dpkg").chmod(0o755)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".profile").write_text(profile)
    path = f"{fake}:{os.environ['PATH']}"
    if on_path:
        path = f"{home}/.local/bin:{path}"
    env = {**os.environ, "HOME": str(home), "PATH": path, "FAKE_PIP_LOG": str(tmp_path / "pip-calls")}
    return env | {"SHELL": "/bin/sh"}  # the login shell that reads ~/.profile


def test_the_first_run_shows_one_line_a_step_and_keeps_the_details_in_setup_log(tmp_path: Path) -> None:
    repository = fake_repository(tmp_path)
    env = first_run_env(tmp_path, on_path=False)
    result = subprocess.run(
        ["bash", "scripts/play", "--silent"],
        cwd=repository,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    shown = (result.stdout + result.stderr).splitlines()
    assert shown[0] == "voice-earl: installing voice-earl[phones,judge] into .venv (details: setup.log)"
    assert shown[1] == (
        "voice-earl: added ~/.local/bin/voice-earl, on your PATH from your next login"
        " (until then: ~/.local/bin/voice-earl play)"
    )
    assert shown[2] == "voice-earl play --silent (VOICE_EARL_PLAY_SCRIPT=scripts/play)"  # then the game
    assert len(shown) == 3
    log = (repository / "setup.log").read_text()
    assert "BuildBackendWarning" in log and "-m pip install -e .[phones,judge]" in log
    again = subprocess.run(
        ["bash", "scripts/play"], cwd=repository, env=env, capture_output=True, text=True, timeout=WAIT_S, check=False
    )
    assert (again.stdout + again.stderr).splitlines() == ["voice-earl play (VOICE_EARL_PLAY_SCRIPT=scripts/play)"]


@pytest.mark.parametrize("shell", ["/bin/sh", "/bin/bash"])
def test_where_no_login_puts_the_folder_on_the_path_the_launcher_says_how_to_run_it(tmp_path: Path, shell: str) -> None:
    """Root's ~/.profile on Debian adds no ~/.local/bin: "on your PATH from your next login" would not be true."""
    repository = fake_repository(tmp_path)
    env = first_run_env(tmp_path, on_path=False, profile=ROOTS_PROFILE) | {"SHELL": shell}
    if shell == "/bin/bash":
        (tmp_path / "home" / ".bash_profile").write_text(". ~/.profile\n")  # a login of bash reads this one
    result = subprocess.run(
        ["bash", str(repository / "scripts" / "launcher.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=True,
    )
    profile = "~/.bash_profile" if shell == "/bin/bash" else "~/.profile"
    assert result.stdout.splitlines() == [
        "voice-earl: added ~/.local/bin/voice-earl, but ~/.local/bin is not on your PATH:"
        " run ~/.local/bin/voice-earl play",
        f"voice-earl: or, for 'voice-earl play' from your next login, add this line to {profile}:"
        ' export PATH="$HOME/.local/bin:$PATH"',
    ]
    advised_file, advised_line = result.stdout.splitlines()[1].split(" add this line to ")[1].split(": ", 1)
    with (tmp_path / "home" / advised_file.removeprefix("~/")).open("a") as profile_file:
        profile_file.write(advised_line + "\n")  # as told
    login = subprocess.run(
        ["env", "-i", f"HOME={env['HOME']}", shell, "-l", "-c", "command -v voice-earl"],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert login.stdout.strip() == f"{env['HOME']}/.local/bin/voice-earl"  # the next login finds the command


def test_the_launcher_runs_the_game_from_any_folder_and_leaves_another_voice_earl_alone(tmp_path: Path) -> None:
    repository = fake_repository(tmp_path)
    env = first_run_env(tmp_path, on_path=True)
    installed = subprocess.run(
        ["bash", str(repository / "scripts" / "launcher.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=True,
    )
    assert installed.stdout == "voice-earl: added ~/.local/bin/voice-earl: 'voice-earl play' from any folder\n"
    launched = subprocess.run(
        ["voice-earl", "play", "--resume", "1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=True,
    )
    assert launched.stdout.startswith("voice-earl play --resume 1")
    quiet = subprocess.run(
        ["bash", str(repository / "scripts" / "launcher.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=True,
    )
    assert quiet.stdout == ""  # said once
    launcher = tmp_path / "home" / ".local" / "bin" / "voice-earl"
    launcher.write_text('#!/bin/sh\nexec pipx-run voice-earl "$@"\n')
    other = subprocess.run(
        ["bash", str(repository / "scripts" / "launcher.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=True,
    )
    assert "is another voice-earl; left as it is" in other.stdout
    assert "pipx-run" in launcher.read_text()


def test_the_game_names_the_command_that_works_where_it_was_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from voice_earl.paths import command

    monkeypatch.setenv("PATH", str(tmp_path))  # no voice-earl command here
    assert command("play --resume 1") == "voice-earl play --resume 1"  # not started by scripts/play
    monkeypatch.setenv("VOICE_EARL_PLAY_SCRIPT", "scripts/play")
    assert command("play --resume 1") == "bash scripts/play --resume 1"
    assert command("practice --resume 2") == ".venv/bin/voice-earl practice --resume 2"
    monkeypatch.setenv("VOICE_EARL_PLAY_SCRIPT", "voice-earl/scripts/play")  # typed from the folder above
    assert command("history abandon 3") == "voice-earl/.venv/bin/voice-earl history abandon 3"
    (tmp_path / "voice-earl").write_text("#!/bin/sh\n")
    (tmp_path / "voice-earl").chmod(0o755)
    assert command("play --resume 1") == "voice-earl play --resume 1"  # the command is on the PATH


def test_quitting_a_game_started_by_scripts_play_names_the_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import sys

    from voice_earl.commands.cli import main

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("VOICE_EARL_PLAY_SCRIPT", "scripts/play")
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--players", "Ann", "Ben", "Cy", "--silent", "--no-voice"]) == 0
    assert "The series is saved: bash scripts/play --resume 1 goes on with it." in capsys.readouterr().err


# ---- the test command: quiet where all is well, whole where something is broken

IMPORT_CONTRACT = """[tool.importlinter]
root_package = "pkg"

[[tool.importlinter.contracts]]
name = "The low floor imports nothing above it"
type = "forbidden"
source_modules = ["pkg.low"]
forbidden_modules = ["pkg.high"]
"""


def test_the_test_command_gives_the_import_contracts_one_line_and_a_broken_one_whole(tmp_path: Path) -> None:
    """The real lint-imports on a small package: its logo and its list of kept contracts are not shown."""
    linter = Path(sys.executable).parent / "lint-imports"
    if not linter.exists():
        pytest.skip("lint-imports comes with the dev extra")
    repository = tmp_path / "repo"
    (repository / "scripts").mkdir(parents=True)
    (repository / "scripts" / "test").write_text((REPO / "scripts" / "test").read_text())
    (repository / "scripts" / "setup.sh").write_text("exit 0\n")  # everything is set up
    bin_dir = repository / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("ruff", "mypy", "pytest"):
        (bin_dir / tool).write_text(f'#!/bin/sh\necho "{tool} ran"\n')
        (bin_dir / tool).chmod(0o755)
    (bin_dir / "lint-imports").symlink_to(linter)
    (repository / "pyproject.toml").write_text(IMPORT_CONTRACT)
    (repository / "pkg").mkdir()
    for name in ("__init__", "low", "high"):
        (repository / "pkg" / f"{name}.py").write_text("")
    env = {**os.environ, "PYTHONPATH": str(repository)}

    def run() -> subprocess.CompletedProcess[str]:
        test = ["bash", "scripts/test"]
        return subprocess.run(test, cwd=repository, env=env, capture_output=True, text=True, timeout=WAIT_S)

    kept = run()
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "== lint-imports\nContracts: 1 kept, 0 broken.\n== pytest\npytest ran\n" in kept.stdout
    assert "KEPT" not in kept.stdout and "╔" not in kept.stdout and kept.stderr == ""
    (repository / "pkg" / "low.py").write_text("import pkg.high\n")
    broken = run()
    assert broken.returncode == 1
    assert "pkg.low is not allowed to import pkg.high" in broken.stdout  # the whole report, where to look
    assert "Contracts: 0 kept, 1 broken." in broken.stdout and "pytest ran" not in broken.stdout
