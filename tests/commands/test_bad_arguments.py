"""Nonsense on the command line: one clear line, exit status 2, before anything starts.

Each of these was accepted, crashed or ran for ever before: Unicode digits (``str.isdigit()``
takes "²", ``int()`` does not), "nan" and "inf", negative counts, numbers of 31 digits, empty names.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from voice_earl.commands.cli import main

HUGE = "1" + "0" * 30
TABLE = ["--players", "Ann", "Ben", "Cy", "--silent", "--no-voice"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", *TABLE, "--device", "²"], "argument --device: '²' is not a device index"),
        (["drill", "--typed", "--device", "²"], "argument --device: '²' is not a device index"),
        (["hear", "--mic", "--position", "1", "--device", "²"], "argument --device: '²' is not a device index"),
        (["doctor", "--input-device", "²"], "argument --input-device: '²' is not a device index"),
        (["doctor", "--input-device", "٣"], "argument --input-device: '٣' is not a device index"),
        (["play", *TABLE, "--remind-after", "nan"], "argument --remind-after: 'nan' is not a number of seconds"),
        (["play", *TABLE, "--remind-after", "inf"], "argument --remind-after: 'inf' is not a number of seconds"),
        (["practice", "--silent", "--remind-after=-inf"], "'-inf' is not a number of seconds"),
        (["drill", "--typed", "--rounds=-1"], "argument --rounds: must be from 0 to 10000, not -1"),
        (["simulate", "--deals", HUGE], f"argument --deals: must be from 1 to 1000000, not {HUGE}"),
        (["play", *TABLE, "--deals", HUGE], "argument --deals: must be from 1 to 1000"),
        (["practice", "--silent", "--deals", "0"], "argument --deals: must be from 1 to 1000, not 0"),
        (
            ["play", *TABLE, "--profile", "parlour", "--scoring", "counters", "--stack", HUGE],
            "argument --stack: must be from 1 to 1000000",
        ),
        (["play", *TABLE, "--seed", HUGE], "argument --seed: must be from 0 to 9223372036854775807"),
        (["simulate", "--seed", "²"], "argument --seed: '²' is not a whole number"),
        (["simulate", "--players", "9" * 5000], "argument --players: must be from 1 to 100, not a number of 5000"),
        (["demo", "--chant-errors", "nan"], "argument --chant-errors: 'nan' is not a number"),
        (["practice", "--silent", "--name", ""], "argument --name: '' is not a name"),
        (["practice", "--silent", "--name", "   "], "argument --name: '   ' is not a name"),
        (["practice", "--silent", "--name", "Ann\x1b[2J"], "'Ann\\x1b[2J' holds a control or invisible character"),
        (["practice", "--silent", "--name", "Ann\u200b"], "'Ann\\u200b' holds a control or invisible character"),
        (["stats", "--top=-3"], "argument --top: must be from 0 to 10000, not -3"),
        (["play", *TABLE, "--rate", "١٥٠"], "argument --rate: '١٥٠' is not a whole number"),
        (["play", *TABLE, "--rate", "5"], "argument --rate: must be from 80 to 450, not 5"),
        (["play", *TABLE, "--phones", "--port", "٨٠٨٠"], "argument --port: '٨٠٨٠' is not a port number"),
        (["play", *TABLE, "--phones", "--port", "8_080"], "argument --port: '8_080' is not a port number"),
        (["hear", "x.wav", "--position", "٣", "--rank", "Q"], "argument --position: '٣' is not a whole number"),
        (["hear", "x.wav", "--position", "5", "--rank", "Q"], "argument --position: must be from 1 to 4, not 5"),
        (["simulate", "--strategies", "most,,fewest"], "'most,,fewest': give strategies separated by commas"),
        (["simulate", "--strategies", ""], "'': give strategies separated by commas"),
    ],
)
def test_nonsense_is_refused_with_one_line_and_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    with pytest.raises(SystemExit) as stopped:  # argparse refuses it before the command runs
        main(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2, err
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "seen"),
    [
        (["simulate", "--deals", " 2 ", "--seed", "+7", "--players", "3"], "2 deals"),
        (["simulate", "--deals", "1", "--chant-errors", "0.5", "--profile", "parlour"], "1 deals"),
    ],
)
def test_good_numbers_still_work(argv: list[str], seen: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    assert seen in capsys.readouterr().out


def test_a_device_is_an_ascii_index_or_a_name() -> None:
    from voice_earl.commands.arguments import device

    assert device("3") == 3
    assert device(" USB mic ") == "USB mic"
    assert device("Mic²") == "Mic²"  # a name may hold any letter or sign


def test_a_practice_name_is_kept_without_its_spaces(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["practice", "--silent", "--no-voice", "--name", "  Zoë ", "--seed", "3"]) == 0
    assert "Zoë" in capsys.readouterr().out


LONG = "a" * 10_000  # each of these stopped its command with "OSError: File name too long"


@pytest.mark.parametrize(
    "argv",
    [
        ["drill", "--typed", "--chant", LONG],
        ["practice", "--silent", "--no-voice", "--chant", LONG + ".toml"],
        ["hear", "x.wav", "--position", "2", "--rank", "Q", "--chant", LONG],
        ["play", *TABLE, "--model", LONG],
        ["demo", "--model", LONG],
        ["config", "set", "model", LONG],
        ["models", "check", LONG],
        ["models", "install", LONG + ".zip"],
        ["models", "install", "x.zip", "--name", LONG],
        ["models", "install", "x.zip", "--dest", LONG],
        ["stats", "--plot", LONG + ".png"],
        ["hear", LONG + ".wav", "--position", "2", "--rank", "Q"],
        ["history", "export", "1", "--out", f"/tmp/{LONG}"],
    ],
)
def test_a_path_of_ten_thousand_characters_is_one_clear_line(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    try:
        status = main(argv)
    except SystemExit as stopped:
        status = stopped.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert re.search(r"10,00[0-9]", err) and len(err) < 400  # says how long, without printing it whole
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("ranks", ["", ",,", "Q,,K", " "])
def test_an_empty_rank_in_ranks_is_refused(ranks: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hear", "x.wav", "--position", "1", "--ranks", ranks]) == 2  # it meant every rank
    assert f"--ranks {ranks!r}: give ranks separated by commas" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_an_unknown_narrator_voice_is_refused_with_a_sound_device_or_without(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--players", "Ann", "Ben", "Cy", "--silent", "--deck", "virtual", "--voice", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "unknown voice 'nosuch'" in err and "Traceback" not in err


def test_a_nul_in_a_path_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["hear", "a\x00b.wav", "--position", "2", "--rank", "Q"])
    assert stopped.value.code == 2
    assert "a file name cannot hold a NUL character" in capsys.readouterr().err


def test_an_empty_download_address_is_refused_not_replaced_by_the_official_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["models", "fetch", "--url", ""], ["models", "fetch", "whisper-tiny.en", "--url", " "]):
        assert main(argv) == 2  # refused before any connection is tried
        assert "cannot download" in capsys.readouterr().err


def test_a_typed_line_of_thousands_of_digits_or_other_scripts_digits_is_judged_not_a_crash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from voice_earl.words.text import normalise

    assert normalise("there's a 7 as good as he") == "there is a seven as good as he"
    assert normalise("there's a ٧ as good as he") == "there is a ٧ as good as he"  # ASCII digits only
    monkeypatch.setattr(sys, "stdin", io.StringIO("9" * 5000 + "\n"))
    assert main(["drill", "--typed", "--rounds", "1", "--seed", "1"]) == 0
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full to write to")
@pytest.mark.parametrize("argv", [["rules"], ["config", "path"], ["simulate", "--deals", "1"], ["history"]])
def test_output_that_cannot_be_written_is_one_line_not_a_traceback(argv: list[str]) -> None:
    """A full disk under `> file`: history export --out said so already, the rest crashed."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "voice_earl", *argv], stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"voice-earl {argv[0]}: cannot write the output: No space left on device"]


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["rules"], ["history", "show", "1"], ["history", "--unfinished"]])
def test_a_reader_that_went_away_stops_the_output_quietly(argv: list[str], tmp_path: Path) -> None:
    """`| head -1`: a pipe whose reader is gone. The tables that rich prints exited with status 1 (rich's own
    way), the rest with 0; every command now stops with 0 and says nothing."""
    environment = {**os.environ, "VOICE_EARL_DATA_DIR": str(tmp_path)}
    opened = subprocess.run(
        [sys.executable, "-m", "voice_earl", "practice", "--silent", "--seed", "1"],
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    assert "Traceback" not in opened.stderr.decode()
    reader, writer = os.pipe()
    os.close(reader)  # gone before the first line is written
    try:
        done = subprocess.run(
            [sys.executable, "-m", "voice_earl", *argv],
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
    finally:
        os.close(writer)
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.slow
def test_a_typed_line_that_is_no_text_is_answered_without_escapes(tmp_path: Path) -> None:
    environment = {**os.environ, "VOICE_EARL_DATA_DIR": str(tmp_path), "LC_ALL": "C.UTF-8"}
    argv = ["play", "--silent", "--no-voice", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--seed", "3"]
    done = subprocess.run(
        [sys.executable, "-m", "voice_earl", *argv],
        input=b"xx\xff\nquit\ny\n",
        env=environment,
        capture_output=True,
        check=False,
    )
    said = (done.stdout + done.stderr).decode()
    assert "unknown command 'xx\ufffd'" in said, said
    assert "\\udc" not in said and "Traceback" not in said
