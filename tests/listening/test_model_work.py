"""Model installs cut off by kill -9, forced replacements, whole-archive zip bombs, and what the messages name.

Installs are killed for real: a child process runs the install code and is sent SIGKILL at a chosen
point, then the next models command runs in this process.
"""

from __future__ import annotations

import http.server
import os
import signal
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from support.model_files import TEST_MODEL, leftovers, make_model, start_server, zip_model
from support.patience import WAIT_S

from voice_earl.commands.cli import main
from voice_earl.commands.doctor_models import check_leftovers
from voice_earl.errors import VoiceEarlError
from voice_earl.listening.models import archive as model_archive
from voice_earl.listening.models import install_steps
from voice_earl.listening.models import vosk_install as model_install
from voice_earl.listening.models.discovery import WORK_DIR_PREFIX, check_model_layout
from voice_earl.listening.models.vosk_install import install_model_archive
from voice_earl.listening.models.work import clear_leftovers, find_leftovers, swap_into_place, work_dir

REPO = Path(__file__).resolve().parents[2]

# Whatever sits in the real models/ directory stays out of these tests.
pytestmark = pytest.mark.usefixtures("repo_models")


def child(code: str) -> subprocess.Popen[str]:
    """Python running ``code`` with this repository importable; it prints "ready" when it is where we want it,
    then waits on its standard input (which stays open) until it is killed."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def kill_when_ready(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=WAIT_S) == -signal.SIGKILL


def test_a_killed_install_is_mentioned_by_doctor_and_cleared_by_the_next_models_command(
    user_models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kill_when_ready(
        child(f"""
        from pathlib import Path
        from voice_earl.listening.models.work import work_dir
        with work_dir(Path({str(user_models)!r}), {TEST_MODEL!r}) as work:
            (work / "extracted").mkdir()
            (work / "extracted" / "big.bin").write_bytes(bytes(3_000_000))
            print("ready", flush=True)
            input()
    """)
    )
    (left,) = find_leftovers(user_models)
    assert left.path.name.startswith(WORK_DIR_PREFIX) and left.size_bytes >= 3_000_000 and left.model == TEST_MODEL
    (row,) = check_leftovers()
    assert (row.name, row.status.value) == ("model installs", "warn")
    assert str(left.path) in row.detail and "3.0 MB" in row.detail and "voice-earl models list" in row.fix

    assert main(["models", "list"]) == 0
    err = capsys.readouterr().err
    assert f"removed 3.0 MB left by an interrupted install ({left.path.name}) in {user_models}" in err
    assert leftovers(user_models) == [] and check_leftovers() == []


def test_an_install_still_running_is_neither_reported_nor_cleared(user_models: Path) -> None:
    running = child(f"""
        from pathlib import Path
        from voice_earl.listening.models.work import work_dir
        with work_dir(Path({str(user_models)!r}), {TEST_MODEL!r}) as work:
            print("ready", flush=True)
            input()
    """)
    try:
        assert running.stdout is not None and running.stdout.readline().strip() == "ready"
        assert find_leftovers(user_models) == [] and clear_leftovers(user_models) == []
        assert len(leftovers(user_models)) == 1
    finally:
        running.kill()
        running.wait()
    assert len(find_leftovers(user_models)) == 1  # abandoned now


def test_a_forced_install_killed_after_moving_the_old_model_aside_gets_it_back(
    tmp_path: Path, user_models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the system cannot swap in one step; the kill comes between the two renames."""
    old = make_model(user_models / TEST_MODEL)
    (old / "old-marker").write_text("old")
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL)
    kill_when_ready(
        child(f"""
        import os, sys
        from pathlib import Path
        from voice_earl.listening.models import install_steps
        from voice_earl.listening.models.vosk_install import install_model_archive
        install_steps.swap_into_place = lambda staged, target: False
        rename = os.rename
        def rename_then_die(source, destination):
            rename(source, destination)
            print("ready", flush=True)
            input()
        install_steps.os.rename = rename_then_die
        install_model_archive(Path({str(archive)!r}), force=True)
    """)
    )
    assert not old.exists()  # the moment the issue describes: no model at all
    (left,) = find_leftovers(user_models)
    assert left.moved_aside

    assert main(["models", "list"]) == 0
    err = capsys.readouterr().err
    assert f"put back {TEST_MODEL}, which an interrupted install had moved aside" in err
    assert (old / "old-marker").read_text() == "old" and check_model_layout(old).valid
    assert leftovers(user_models) == [TEST_MODEL]


def test_a_forced_install_swaps_the_models_without_moving_the_old_one_away(
    tmp_path: Path, user_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = make_model(user_models / TEST_MODEL)
    (old / "old-marker").write_text("old")
    rename = os.rename

    def never_move_the_installed_model(source: object, destination: object) -> None:
        assert Path(str(source)) != old, "the installed model was moved away before the new one was in place"
        rename(source, destination)  # type: ignore[arg-type]

    monkeypatch.setattr(install_steps.os, "rename", never_move_the_installed_model)
    installed = install_model_archive(zip_model(tmp_path / "m.zip", TEST_MODEL), force=True)
    assert installed == old and not (old / "old-marker").exists() and check_model_layout(old).valid
    assert leftovers(user_models) == [TEST_MODEL]


def test_swap_exchanges_two_folders(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        (folder / "name").write_text(folder.name)
    assert swap_into_place(first, second)
    assert (first / "name").read_text() == "second" and (second / "name").read_text() == "first"


def test_an_archive_of_many_small_highly_compressed_members_is_refused_before_extraction(
    tmp_path: Path, user_models: Path
) -> None:
    """Each member stays under the 1 MiB floor of the member check; the whole archive is 1,000 to 1."""
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL)
    with zipfile.ZipFile(archive, "a", zipfile.ZIP_DEFLATED) as bundle:
        for i in range(1500):
            bundle.writestr(f"{TEST_MODEL}/graph/part{i}.bin", bytes(100_000))
    assert archive.stat().st_size < 1_000_000
    with pytest.raises(VoiceEarlError, match=r"its \d+ members unpack to 150.0 MB from .* compressed \d+ to 1"):
        install_model_archive(archive)
    assert leftovers(user_models) == []


def test_messages_name_the_models_folder_never_the_work_folder(
    tmp_path: Path, user_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nested = tmp_path / "nested.zip"
    with zipfile.ZipFile(nested, "w") as bundle:
        source = make_model(tmp_path / "src")
        for file in source.rglob("*"):
            if file.is_file():
                bundle.write(file, f"outer/inner/{file.relative_to(source).as_posix()}")
    with pytest.raises(VoiceEarlError) as refused:
        install_model_archive(nested)
    assert "did you mean outer/inner?" in str(refused.value) and WORK_DIR_PREFIX not in str(refused.value)

    class Full:
        free = 10

    monkeypatch.setattr(model_archive.shutil, "disk_usage", lambda directory: Full)
    monkeypatch.setattr(install_steps.shutil, "disk_usage", lambda directory: Full)
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL)
    with pytest.raises(VoiceEarlError) as full:
        install_model_archive(archive)
    assert f"not enough free space in {user_models}:" in str(full.value)
    assert WORK_DIR_PREFIX not in str(full.value)
    with pytest.raises(VoiceEarlError) as full_download:
        model_install.fetch_model(TEST_MODEL, url=archive.as_uri(), size=archive.stat().st_size)
    assert f"not enough free space in {user_models}:" in str(full_download.value)
    assert leftovers(user_models) == []


def test_work_dir_is_removed_and_unlocked_after_use(tmp_path: Path) -> None:
    with work_dir(tmp_path, TEST_MODEL) as work:
        assert work.parent == tmp_path and find_leftovers(tmp_path) == []
    assert not work.exists()


def test_a_device_or_a_pipe_is_not_a_model_and_is_never_read(tmp_path: Path) -> None:
    """is_zipfile() on /dev/zero read until the memory ran out (found by the command-line fuzz test)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in (Path("/dev/zero"), fifo):
        assert check_model_layout(path).problems == ("is not a directory",)


def test_a_folder_that_is_not_a_model_is_not_walked(tmp_path: Path) -> None:
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "file").write_bytes(bytes(1000))
    layout = check_model_layout(tmp_path)
    assert not layout.valid and layout.size_bytes == 0  # `models check /` answers at once


def test_a_download_announcing_a_petabyte_is_refused_in_plain_words(user_models: Path) -> None:
    """It once said "1000000.0 GB", and named the work folder that was about to be deleted."""

    class Huge(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(10**15))
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    with start_server(Huge) as base, pytest.raises(VoiceEarlError) as refused:
        model_install.fetch_model(TEST_MODEL, url=f"{base}/m.zip", sha256="0" * 64)
    assert f"not enough free space in {user_models}: the download needs 1.0 PB" in str(refused.value)
    assert WORK_DIR_PREFIX not in str(refused.value) and leftovers(user_models) == []
