"""`play --resume` of a phones game: served where it was (`--host` is kept with the series, and the resume
says where it listens), and a phones record that is damaged is refused, never guessed at."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys

import pytest
from support.game_commands import silent_three
from support.patience import WAIT_S

from voice_earl.commands.cli import main
from voice_earl.keep.storage_file import database_path

PLAY = silent_three("--seed", "3")
RESUME = [sys.executable, "-m", "voice_earl", "play", "--resume", "--silent", "--no-voice"]
A, B, C, J = (letter * 22 for letter in "abcj")  # tokens of the right shape
GOOD = json.dumps({"players": [A, B, C], "join": J, "port": None}, separators=(",", ":"))


def run(argv: list[str], commands: str = "quit\n") -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, input=commands, capture_output=True, text=True, timeout=WAIT_S, check=False)


def addresses(out: str) -> list[str]:
    return [line.rsplit(" ", 1)[1] for line in out.splitlines() if " http://" in line]


def set_phones(value: str | bytes) -> None:
    with sqlite3.connect(database_path()) as db:
        if isinstance(value, bytes):  # TEXT that is not UTF-8, as a flipped byte leaves it
            db.execute("UPDATE series SET phones = CAST(? AS TEXT) WHERE id = 1", (value,))
        else:
            db.execute("UPDATE series SET phones = ? WHERE id = 1", (value,))


@pytest.mark.slow
def test_a_resumed_phones_game_listens_where_it_did_and_says_so() -> None:
    first = run([*PLAY, "--phones", "--host", "127.0.0.1", "--port", "0"])
    assert first.returncode == 0, first.stderr
    urls = addresses(first.stdout)
    assert len(urls) == 3 and all(url.startswith("http://127.0.0.1:") for url in urls)
    again = run(RESUME)
    assert again.returncode == 0, again.stderr
    assert addresses(again.stdout) == urls  # the same host, port and tokens
    assert "phones: listening on 127.0.0.1, where series 1 was served" in again.stderr


DAMAGED = {
    "not JSON": "{players",
    "not UTF-8": b'{"players":["\xff\xfe"]}',
    "a list": '["a", "b"]',
    "no tokens": '{"x": 1}',
    "a token too few": GOOD.replace(f'"{A}",', ""),
    "a token that is a number": GOOD.replace(f'"{B}"', "7"),
    "a port out of range": GOOD.replace('"port":null', '"port":70000'),
    "a host that is not an address": GOOD.replace('"port":null', '"port":null,"host":"a b; rm"'),
}


@pytest.mark.parametrize("damage", list(DAMAGED), ids=list(DAMAGED))
def test_a_damaged_phones_record_is_refused_not_guessed(
    damage: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(PLAY[3:]) == 0
    set_phones(DAMAGED[damage])
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(RESUME[3:]) == 1
    out, err = capsys.readouterr()
    said = err.splitlines()
    assert "Traceback" not in err and said[0].startswith("Resuming series 1") and len(said) == 2, err
    assert said[1].startswith("voice-earl play: series 1's phones record is damaged (")
    assert "`voice-earl play --resume 1 --phones` serves the phones at new addresses" in said[1]
    assert addresses(out) == []  # no phone was served


@pytest.mark.slow
def test_phones_asked_for_on_a_damaged_record_get_new_addresses() -> None:
    assert run(PLAY).returncode == 0
    set_phones(DAMAGED["no tokens"])
    chosen = run([*RESUME, "--phones", "--host", "127.0.0.1", "--port", "0"])
    assert chosen.returncode == 0, chosen.stderr
    assert (
        "series 1's phones record is damaged (it holds no list of players' tokens): the phones get new addresses"
        in " ".join(chosen.stderr.split())  # wrapped to the terminal between words
    )
    assert len(addresses(chosen.stdout)) == 3
