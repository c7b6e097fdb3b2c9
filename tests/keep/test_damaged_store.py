"""A database with a damaged page is moved aside and rebuilt from the series kept beside it: every series is
listed by `history` as before, and the unfinished one resumes with `play --resume` to the game it would have been.

The store is made by real games at the command line, and one page of its file is written over with garbage: the
series table's, the events table's root, page 1 after the file's header (the schema), a leaf of the events.
"""

from __future__ import annotations

import io
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from support.silent_script import as_input, human_script
from support.storage_faults import damage_page, leaf_pages, root_page

from voice_earl.commands.cli import main
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import DATABASE_NAME

FOLDER = "series"  # the series kept beside the database: their game logs and records
SCRIPT = human_script(3000)
CUT = 40  # series 2 stops after this many commands, unfinished
PLAY = ["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--deals", "2", "--seed", "4", "--silent"]
QUIET = ["--no-voice"]


def run(argv: list[str], lines: Sequence[str] = ()) -> int:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdin", io.StringIO(as_input(list(lines))))
        return main(argv)


def records(series: int) -> list[dict[str, Any]]:
    with Store.open(exclusive=False) as store:
        return store.load_series(series)[1]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Series 1 played out, 2 stopped part-way, 3 played out, 4 stopped and abandoned."""
    data = tmp_path_factory.mktemp("made") / "data"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VOICE_EARL_DATA_DIR", str(data))
        patch.setenv("VOICE_EARL_CONFIG_DIR", str(data.parent / "config"))
        assert run([*PLAY, *QUIET], SCRIPT) == 0
        assert run([*PLAY, *QUIET], [*SCRIPT[:CUT], "quit"]) == 0
        assert run([*PLAY, *QUIET], SCRIPT) == 0
        assert run([*PLAY, *QUIET], [*SCRIPT[:10], "quit"]) == 0
        assert run(["history", "abandon", "4"]) == 0
    return data


def one_page(path: Path, table: str, leaf: bool = False) -> int:
    root = root_page(path, table)
    return leaf_pages(path, root)[1] if leaf else root


DAMAGE: dict[str, Callable[[Path], None]] = {
    "the series table's page": lambda path: damage_page(path, one_page(path, "series")),
    "the events table's root": lambda path: damage_page(path, one_page(path, "events")),
    "page 1 after the header": lambda path: damage_page(path, 1, start=100),
    "a leaf of the events": lambda path: damage_page(path, one_page(path, "events", leaf=True)),
}


def listing(capsys: pytest.CaptureFixture[str]) -> tuple[str, str, str]:
    outs = []
    for argv in (["history"], ["history", "--unfinished"], ["history", "show", "1"]):
        assert run(argv) == 0
        outs.append(capsys.readouterr().out)
    return outs[0], outs[1], outs[2]


@pytest.mark.parametrize("first", ["history", "play --resume"])
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_page_hides_no_series(
    damage: str, first: str, made: Path, isolated_user_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = isolated_user_dirs
    shutil.copytree(made, data)
    database = data / DATABASE_NAME
    capsys.readouterr()
    before = listing(capsys)
    assert "unfinished" in before[0] and "abandoned" in before[0] and "play --resume 2" in before[1]
    whole = records(1)

    wal = database.with_name(database.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # every page is in the file: the damage is not covered
    DAMAGE[damage](database)
    if first == "history":
        assert run(["history"]) == 0
    else:
        assert run(["play", "--resume", "2", *QUIET], SCRIPT[CUT:]) == 0
    err = capsys.readouterr().err
    (told,) = [line for line in err.splitlines() if "damaged" in line or "rebuilt" in line]  # one line says so
    assert "is damaged" in told and f"rebuilt from the series kept beside it in {data / FOLDER}" in told
    assert "4 series, 1 of them unfinished" in told
    assert "the lines said, which `voice-earl stats` counts, are not kept beside it" in told  # stats start again
    (aside,) = (path for path in data.glob(f"{DATABASE_NAME}.corrupt-*") if not path.name.endswith(("-wal", "-shm")))
    assert str(aside) in told

    if first == "history":
        assert listing(capsys) == before  # every series listed as it was: finished, unfinished, abandoned
        assert run(["play", "--resume", *QUIET], SCRIPT[CUT:]) == 0
    assert records(2) == whole  # resumed where it stopped, and played out as it would have been
    assert "unfinished" not in listing(capsys)[0]


def test_a_series_begun_before_its_record_was_kept_takes_its_settings_from_the_damaged_file(
    made: Path, isolated_user_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = isolated_user_dirs
    shutil.copytree(made, data)
    for record in (data / FOLDER).glob("*.record.json"):
        record.unlink()
    DAMAGE["a leaf of the events"](data / DATABASE_NAME)
    assert run(["play", "--resume", *QUIET], SCRIPT[CUT:]) == 0
    assert "4 series, 1 of them unfinished" in capsys.readouterr().err
    assert records(2) == records(1)
