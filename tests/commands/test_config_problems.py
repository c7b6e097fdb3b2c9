"""A bad value in the config file is one warning line: play, practice, doctor and config show still run."""

from __future__ import annotations

import io
import sys

import pytest

from voice_earl.commands.cli import main
from voice_earl.keep import config

BAD_FILE = '\ufeff# written by hand\ninput_device = "²"\n[narrator]\nrate = "²"\n'


@pytest.mark.parametrize(
    "argv",
    [
        ["config", "show"],
        ["play", "--players", "Ann", "Ben", "Cy", "--silent", "--no-voice"],
        ["practice", "--silent", "--no-voice"],
        ["doctor"],
    ],
)
def test_unicode_digits_in_the_file_do_not_stop_a_command(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(BAD_FILE, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    monkeypatch.setenv("COLUMNS", "250")  # doctor's table on one line per check
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if argv[0] == "doctor":  # a warning in its table; its status says whether voice play works here
        (row,) = [line for line in out.splitlines() if "config file" in line]
        assert "warn" in row and 'invalid value for input_device: "²"' in row
        return
    assert 'invalid value for input_device: "²"' in err and 'invalid value for narrator.rate: "²"' in err
    assert code == 0, err


@pytest.mark.parametrize("depth", [200, 400, 1000])
@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--players", "Ann", "Ben", "Cy", "--silent", "--no-voice"],
        ["config", "set", "deck", "virtual"],
        ["doctor"],
        ["drill", "--typed", "--rounds", "1"],
    ],
    ids=["play", "config set", "doctor", "drill"],
)
def test_a_config_file_nested_deep_is_one_line_in_every_command(
    depth: int, argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    nested = "players = " + "[" * depth + "]" * depth + "\n"
    path.write_text(nested, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    monkeypatch.setenv("COLUMNS", "250")  # doctor's table on one line per check
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "RecursionError" not in out + err
    told = [line for line in (out + err).splitlines() if str(path) in line]
    assert len(told) == 1, out + err  # one line names the file and what is wrong with it
    if argv[0] == "config":  # refused as it is, never written over
        assert code == 1 and path.read_text(encoding="utf-8") == nested
    elif argv[0] != "doctor":  # the game and the drill go on with the defaults
        assert code == 0, err
