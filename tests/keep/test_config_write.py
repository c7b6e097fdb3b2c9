"""`voice-earl config set`: several values for players, names checked, comments kept, a byte-order mark
accepted, Unicode digits refused in one line, and changes made at the same moment all kept."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.patience import WAIT_S

from voice_earl.commands.cli import main
from voice_earl.keep import config
from voice_earl.keep.config import load_settings
from voice_earl.keep.config_write import set_value, unset_value
from voice_earl.paths import REPO_ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

COMMENTED = """\
# Our table: Thursday evenings.
profile = "parlour"  # we like the forfeits

[narrator]
# slower for Grandma
rate = 140
"""


def write_config(text: str, *, bom: bool = False) -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))


def file_table() -> dict[str, object]:
    return tomllib.loads(config.config_path().read_text(encoding="utf-8"))


def test_players_take_several_values_one_name_each(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "set", "players", "Ann", "Ben", "Cy"]) == 0
    assert 'players = ["Ann", "Ben", "Cy"]' in capsys.readouterr().out
    assert load_settings().settings.players == ("Ann", "Ben", "Cy")
    assert main(["config", "set", "players", "Mary Jo", "Ben"]) == 0
    assert load_settings().settings.players == ("Mary Jo", "Ben")
    assert main(["config", "set", "players", "Ann, Ben, Cy"]) == 0  # one value with commas still works
    assert file_table()["players"] == ["Ann", "Ben", "Cy"]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (["Ann Ben Cy"], "one name: give each name as its own value"),
        (["Ann", "ann", "Cy"], "Ann is named twice"),
        (["Ann", " ", "Cy"], "a name is empty"),
        (["Ann", "B\x1b[2Jb"], "control character"),
        (["Ann", "Ben\u202e"], "control character"),
        (["Ann"], "only one name"),
    ],
)
def test_bad_player_names_are_refused_in_one_line(
    values: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["config", "set", "players", *values]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not config.config_path().exists()


def test_other_keys_take_one_value(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "set", "narrator.voice", "en", "gb"]) == 2
    assert "narrator.voice takes one value, not 2" in capsys.readouterr().err


@pytest.mark.parametrize(("key", "value"), [("narrator.rate", "²"), ("narrator.rate", "١٥٠"), ("input_device", "²")])
def test_unicode_digits_are_refused_in_one_line(key: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "set", key, value]) == 2
    err = capsys.readouterr().err
    assert f"invalid value for {key}" in err and err.count("\n") == 1 and "Traceback" not in err


def test_set_and_unset_keep_the_files_comments_and_layout() -> None:
    write_config(COMMENTED)
    set_value("deck", "virtual")
    set_value("narrator.voice", "en-gb")
    set_value("narrator.rate", "150")
    text = config.config_path().read_text(encoding="utf-8")
    assert text.startswith('# Our table: Thursday evenings.\nprofile = "parlour"  # we like the forfeits\n')
    assert "# slower for Grandma\nrate = 150\n" in text
    assert file_table() == {"profile": "parlour", "deck": "virtual", "narrator": {"rate": 150, "voice": "en-gb"}}
    assert unset_value("deck") is True
    assert config.config_path().read_text(encoding="utf-8").count("#") == 3


def test_a_byte_order_mark_is_accepted_when_reading_and_writing() -> None:
    write_config(COMMENTED, bom=True)
    loaded = load_settings()
    assert loaded.problems == []
    assert (loaded.settings.profile, loaded.settings.narrator_rate) == ("parlour", 140)
    set_value("deck", "virtual")
    assert file_table()["deck"] == "virtual"
    assert load_settings().settings.narrator_rate == 140


SETTER = textwrap.dedent(
    """
    import sys, time
    time.sleep(max(0.0, float(sys.argv[1]) - time.time()))
    from voice_earl.commands.cli import main
    sys.exit(main(["config", "set", *sys.argv[2:]]))
    """
)
AT_ONCE = {
    "profile": "parlour",
    "deck": "virtual",
    "strictness": "lenient",
    "verbosity": "chatty",
    "language": "it",
    "narrator.rate": "200",
}


@pytest.mark.slow
def test_config_set_run_at_the_same_moment_keeps_every_key() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    for round_number in range(4):
        config.config_path().unlink(missing_ok=True)
        start = time.time() + 1.5  # every process has imported by then
        processes = [
            subprocess.Popen([sys.executable, "-c", SETTER, str(start), key, value], env=env)
            for key, value in AT_ONCE.items()
        ]
        assert [process.wait(timeout=WAIT_S) for process in processes] == [0] * len(AT_ONCE)
        loaded = load_settings()
        assert loaded.from_file == frozenset(AT_ONCE), f"round {round_number}"
        assert loaded.settings.narrator_rate == 200


@pytest.mark.parametrize("depth", [0, 1])  # a file in place of the config's own folder, or of the one above it
def test_a_file_where_the_config_folder_should_be_is_named_and_kept(
    depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    in_the_way = tmp_path / "notes"
    in_the_way.write_text("notes of the evening\n", encoding="utf-8")
    monkeypatch.setenv("VOICE_EARL_CONFIG_DIR", str(in_the_way / "deeper" if depth else in_the_way))
    assert main(["config", "set", "deck", "virtual"]) == 1
    err = capsys.readouterr().err
    assert "a file stands in the way of the folder" in err and "File exists" not in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert in_the_way.read_text(encoding="utf-8") == "notes of the evening\n"
