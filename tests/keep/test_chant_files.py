"""Custom chant files: every wording must be something the table can hear as itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from voice_earl.errors import UsageError
from voice_earl.game.cards import Rank
from voice_earl.keep.chant_files import chant_set, load_chant_file

GOOD = [
    "Here's as good as {rank} can be",
    "Here's a {rank} as good as he",
    "Here's the best of all the three",
    "And here's the Earl of Coventry",
]


def chant_file(tmp_path: Path, lines: list[str], extra: str = "") -> Path:
    path = tmp_path / "wording.toml"
    quoted = ", ".join('"' + line.replace('"', '\\"') + '"' for line in lines)
    path.write_text(f"lines = [{quoted}]\n{extra}", encoding="utf-8")
    return path


def test_a_good_wording_loads(tmp_path: Path) -> None:
    chant = load_chant_file(chant_file(tmp_path, GOOD, 'alternates = { "1" = ["Here is as good a {rank} can be"] }\n'))
    assert chant.line(2, Rank.KING) == "Here's a King as good as he"
    assert chant.accepted(1, Rank.TWO)[1] == "Here is as good a Two can be"


@pytest.mark.parametrize(
    ("lines", "extra", "message"),
    [
        ([*GOOD[:2], GOOD[2], GOOD[2]], "", "sounds the same as position 3's"),
        (
            [*GOOD[:2], "There's the best of all the three!", "there is the BEST of all the 3"],
            "",
            "sounds the same as position 3's",
        ),
        ([GOOD[0], GOOD[1], "...", GOOD[3]], "", "has no words a recognizer can hear"),
        ([GOOD[0], GOOD[1], "um, uh", GOOD[3]], "", "has no words a recognizer can hear"),
        ([GOOD[0], "Pass!", *GOOD[2:]], "", "is a word the table listens for (pass, pas, passo, undo, repeat)"),
        ([GOOD[0], "Pas!", *GOOD[2:]], "", "is a word the table listens for"),
        ([GOOD[0], GOOD[1], "passo", GOOD[3]], "", "is a word the table listens for"),
        ([GOOD[0], GOOD[1], "undo", GOOD[3]], "", "is a word the table listens for"),
        ([*GOOD[:3], "Repeat"], "", "is a word the table listens for"),
        ([*GOOD[:3], "a " * 20_000], "", "has 20000 words; at most 30 are allowed"),
        (GOOD, 'alternates = { "2" = ["And here is the Earl of Coventry"] }\n', "sounds the same as position 2's"),
        (GOOD, 'alternates = { "3" = ["pass"] }\n', "is a word the table listens for"),
    ],
)
def test_wordings_the_table_cannot_tell_apart_are_refused(
    tmp_path: Path, lines: list[str], extra: str, message: str
) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")) as refused:
        load_chant_file(chant_file(tmp_path, lines, extra))
    assert len(str(refused.value)) < 300  # one line, even for a line of 20,000 words


def test_a_device_or_a_pipe_as_a_chant_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        with pytest.raises(UsageError, match="is not a regular file"):
            chant_set(path)


def test_a_chant_file_with_a_byte_order_mark_or_in_latin_1(tmp_path: Path) -> None:
    path = chant_file(tmp_path, GOOD)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_chant_file(path).lines[0] == GOOD[0]
    path.write_bytes('name = "caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(UsageError, match="not UTF-8 text"):
        load_chant_file(path)


def test_a_huge_chant_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    path.write_text("# " + "x" * 100_000 + "\n")
    with pytest.raises(UsageError, match="is too big"):
        load_chant_file(path)


def test_a_chant_file_nested_a_thousand_levels_deep_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("lines = " + "[" * 1000 + "]" * 1000 + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match="not valid TOML") as refused:
        load_chant_file(path)
    assert "\n" not in str(refused.value)
