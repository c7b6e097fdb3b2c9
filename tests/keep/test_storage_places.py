"""What is found at the database's place: another program's SQLite file (never changed), an empty file (said
so), a folder mounted read-only (read all the same), a disk already full (one clear line, no logging
tracebacks), and files others could read (made the user's alone)."""

from __future__ import annotations

import io
import logging
import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.patience import WAIT_S
from support.storage_faults import fill_disk, read_only_mount, small_disk

from voice_earl.commands.cli import main
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import database_path
from voice_earl.keep.storage_values import Mode, Utterance

GAME = ["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--seed", "3", "--silent", "--no-voice"]


def a_game(monkeypatch: pytest.MonkeyPatch, commands: str = "lead 7\nplay\npass\nquit\n") -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(commands))
    return main(GAME)


def notes(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")


def series_of_its_own(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE series (title TEXT, season INTEGER)")


def marked_as_another_programs(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA application_id = 1234")
    notes(db)


def a_schema_version_of_its_own(db: sqlite3.Connection) -> None:
    notes(db)
    db.execute("PRAGMA user_version = 3")


OTHERS: dict[str, Callable[[sqlite3.Connection], None]] = {
    "tables of its own": notes,
    "a series table of its own": series_of_its_own,
    "another program's application id": marked_as_another_programs,
    "a schema version of its own": a_schema_version_of_its_own,
}


@pytest.mark.parametrize("other", list(OTHERS), ids=list(OTHERS))
def test_another_programs_sqlite_file_is_refused_and_never_changed(
    other: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = database_path()
    path.parent.mkdir(parents=True)
    db = sqlite3.connect(path)
    OTHERS[other](db)
    db.commit()
    db.close()
    before = path.read_bytes()
    for argv in (GAME, ["history"], ["stats"]):
        monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert f"the file {path} is not a voice-earl database" in err and "it was left as it is" in err
        assert path.read_bytes() == before  # not switched to WAL, not migrated: byte for byte
        assert not path.with_name(path.name + "-wal").exists()


def test_an_empty_database_is_said_to_be_empty_and_a_new_one_begun(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = database_path()
    path.parent.mkdir(parents=True)
    path.touch()
    assert main(["history"]) == 0
    err = capsys.readouterr().err
    assert f"the database {path} was empty (0 bytes); it was moved to" in err
    assert "a new one is begun" in err
    assert a_game(monkeypatch) == 0
    assert "empty" not in capsys.readouterr().err
    (moved,) = path.parent.glob("voice-earl.sqlite3.empty-*")
    assert moved.stat().st_size == 0
    with Store.open(exclusive=False) as store:
        assert [s.id for s in store.list_series()] == [1]


def test_a_read_only_folder_is_read_by_every_command_that_only_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with small_disk(tmp_path / "disk") as disk:
        monkeypatch.setenv("VOICE_EARL_DATA_DIR", str(disk))
        assert a_game(monkeypatch) == 0
        with Store.open() as store:
            store.record_utterance(
                Utterance(
                    Mode.DRILL,
                    2,
                    None,
                    "There's a Seven as good as he",
                    "there's a seven as good as me",
                    "wrong_line",
                    74,
                    820,
                )
            )
        capsys.readouterr()
        for handler in logging.getLogger("voice_earl").handlers:
            handler.close()  # the log file, open for writing, would keep the folder from being remounted
        with read_only_mount(disk):
            out = {}
            for argv in (
                ["history"],
                ["history", "--unfinished"],
                ["history", "show", "1"],
                ["history", "export", "1"],
                ["stats"],
            ):
                assert main(argv) == 0, capsys.readouterr().err
                out[" ".join(argv)], err = capsys.readouterr()
                assert err == ""
            assert "Ann, Ben, Cy" in out["history"] and "voice-earl play --resume 1" in out["history --unfinished"]
            assert "Series 1: hoyle" in out["history show 1"] and '"event":"lead"' in out["history export 1"]
            assert "1 lines said" in out["stats"]
            assert a_game(monkeypatch, "quit\n") == 1  # a game needs to write: one clear line
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.slow
def test_a_disk_full_at_start_says_so_in_one_line_without_logging_tracebacks(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        env = {"VOICE_EARL_DATA_DIR": str(disk / "data"), "VOICE_EARL_CONFIG_DIR": str(tmp_path / "config")}
        run = [sys.executable, "-m", "voice_earl", *GAME]
        first = subprocess.run(
            run, input="lead 7\nquit\n", capture_output=True, text=True, env=env, timeout=WAIT_S, check=False
        )
        assert first.returncode == 0, first.stderr
        for log in (disk / "data" / "logs").iterdir():
            log.unlink()  # the next line logged needs room of its own
        fill_disk(disk)
        full = subprocess.run(
            [*run[:3], "play", "--resume", "--silent", "--no-voice"],
            input="pass\nplay\nquit\n",
            capture_output=True,
            text=True,
            env=env,
            timeout=WAIT_S,
            check=False,
        )
    assert full.returncode == 1
    assert "Logging error" not in full.stderr and "Traceback" not in full.stderr, full.stderr
    assert "the disk is full" in full.stderr
    assert full.stderr.count("cannot write the log") <= 1


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


STORE_FILES = ("voice-earl.sqlite3", "voice-earl.sqlite3-wal", "voice-earl.sqlite3-shm", "voice-earl.sqlite3.lock")


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The umask most systems give: new files readable by every account (0644), folders open (0755)."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def test_a_new_database_and_its_folder_are_the_users_alone(open_umask: None) -> None:
    path = database_path()
    with Store.open() as store:  # the folder, the file, its write-ahead log and shared memory, its lock
        store.open_series({"players": ["Ann", "Ben", "Cy"]})
        assert {name: oct(mode(path.with_name(name))) for name in STORE_FILES} == dict.fromkeys(STORE_FILES, "0o600")
        assert mode(path.parent) == 0o700


@pytest.mark.parametrize("command", ["play", "history"])
def test_a_database_others_could_read_is_made_the_users_alone_when_next_used(
    command: str, open_umask: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert a_game(monkeypatch) == 0
    path = database_path()
    with Store.open() as store:  # a write-ahead log and shared memory, left as a crash leaves them
        store.open_series({"players": ["Ann", "Ben", "Cy"]})
        for name in STORE_FILES:
            path.with_name(name).chmod(0o644)
        path.parent.chmod(0o755)
    assert (a_game(monkeypatch) if command == "play" else main(["history"])) == 0
    assert mode(path) == 0o600 and mode(path.with_name(path.name + ".lock")) == 0o600
    assert mode(path.parent) == 0o700
