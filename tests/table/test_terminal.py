"""Reading keys from a terminal: nothing typed ahead is lost, and an arrow key is one key."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TextIO

import pytest
from support.patience import WAIT_S

from voice_earl.table.terminal import read_key
from voice_earl.table.turns import key_command


@pytest.fixture
def terminal() -> Iterator[tuple[TextIO, int]]:
    """A pseudo-terminal: what is written to ``master`` is typed at the returned stream."""
    master, slave = os.openpty()
    stream = os.fdopen(slave, "r")
    try:
        yield stream, master
    finally:
        stream.close()
        os.close(master)


def test_keys_typed_ahead_are_all_read(terminal: tuple[TextIO, int]) -> None:
    stream, master = terminal
    os.write(master, b" \r q")
    assert [read_key(stream, timeout=WAIT_S) for _ in range(4)] == [" ", "\n", " ", "q"]


def test_an_arrow_key_is_one_key_and_never_its_letters(terminal: tuple[TextIO, int]) -> None:
    stream, master = terminal
    os.write(master, b"\x1b[A")
    arrow = read_key(stream, timeout=WAIT_S)
    assert arrow == "\x1b[A" and key_command(arrow, at_lead=True) is None
    assert read_key(stream, timeout=0.1) is None  # nothing left over: no "A" to lead aces
    os.write(master, b"\x1b")
    assert read_key(stream, timeout=WAIT_S) == "\x1b"  # Esc alone still quits (after asking)
