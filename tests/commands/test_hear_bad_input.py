"""`voice-earl hear` on bad input: one bad file is one error line and the batch goes on.

The good file here is silence (its verdict is "silent"), so no speech synthesis is needed; the
recognizer is the real pocketsphinx.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.listening_audio import write_wav

from voice_earl.commands.cli import main


def _json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def pcm64_wav(path: Path) -> Path:
    """A 64-bit integer PCM WAV (format 1, 64 bits a sample), which the reader once stopped the batch on."""
    samples = (np.sin(np.arange(8000) / 8) * 2**62).astype("<i8").tobytes()
    fmt = struct.pack("<HHIIHH", 1, 1, 16000, 16000 * 8, 8, 64)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(samples)) + samples
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def mp3_in_wav(path: Path) -> Path:
    """A WAV holding MP3 frames (format 0x55): readable, but not samples this reader decodes."""
    fmt = struct.pack("<HHIIHH", 0x55, 1, 16000, 2000, 1, 0)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", 8) + b"\xff\xfb" * 4
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


@pytest.fixture
def silence(tmp_path: Path) -> Path:
    return write_wav(tmp_path / "silence.wav", np.zeros(16000, dtype=np.int16))


def test_a_64_bit_wav_a_device_and_a_pipe_are_error_lines_and_the_batch_goes_on(
    tmp_path: Path, silence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe.wav"
    os.mkfifo(fifo)
    files = [pcm64_wav(tmp_path / "pcm64.wav"), mp3_in_wav(tmp_path / "mp3.wav"), Path("/dev/zero"), fifo, silence]
    argv = ["hear", *map(str, files), "--position", "3", "--rank", "Q", "--json", "--recognizer", "pocketsphinx"]
    status = main(argv)
    out, err = capsys.readouterr()
    pcm64, mp3, zero, pipe, quiet = _json_lines(out)
    assert status == 1
    assert "error" not in pcm64 and pcm64["verdict"] == "silent"  # 64-bit PCM is read now
    assert set(mp3) == {"path", "error"} and "unsupported WAV" in str(mp3["error"])
    assert zero == {"path": "/dev/zero", "error": "/dev/zero: is not a regular file (a device or a pipe); give a file"}
    assert "not a regular file" in str(pipe["error"])
    assert quiet["verdict"] == "silent"
    assert "Traceback" not in err


def test_a_manifest_with_a_byte_order_mark_a_latin_1_line_and_a_boolean_position(
    tmp_path: Path, silence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "list.jsonl"
    good = json.dumps({"path": silence.name, "position": 2, "rank": "Q"}).encode()
    latin = '{"path": "caf\xe9.wav", "position": 2, "rank": "Q"}'.encode("latin-1")
    boolean = json.dumps({"path": silence.name, "position": True, "rank": "Q"}).encode()
    manifest.write_bytes(b"\xef\xbb\xbf" + good + b"\r\n" + latin + b"\n" + boolean + b"\n" + good + b"\n")
    status = main(["hear", "--manifest", str(manifest), "--json", "--recognizer", "pocketsphinx"])
    first, second, third, fourth = _json_lines(capsys.readouterr().out)
    assert status == 1
    assert first["verdict"] == "silent" and first["path"] == str(silence)  # the mark is not part of the JSON
    assert second == {"path": f"{manifest}:2", "error": "not UTF-8 text: save the manifest as UTF-8"}
    assert third == {"path": str(silence), "error": '"position" must be 1-4, not true'}
    assert fourth["verdict"] == "silent"


def test_a_manifest_line_nested_too_deeply_a_number_too_long_or_a_nul_in_its_path_is_its_own_error(
    tmp_path: Path, silence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = json.dumps({"path": silence.name, "position": 2, "rank": "Q"})
    lines = [
        "[" * 100_000 + "]" * 100_000,  # RecursionError in the json module
        '{"path": "x.wav", "position": ' + "9" * 5000 + "}",  # int() takes at most 4,300 digits
        json.dumps({"path": "x\x00.wav", "position": 2, "rank": "Q"}),  # ValueError: embedded null byte
        good,
    ]
    manifest = tmp_path / "list.jsonl"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status = main(["hear", "--manifest", str(manifest), "--json", "--recognizer", "pocketsphinx", "--no-judge"])
    out, err = capsys.readouterr()
    deep, digits, nul, heard = _json_lines(out)
    assert status == 1 and "Traceback" not in err
    assert deep == {"path": f"{manifest}:1", "error": "not a manifest entry: nested too deeply"}
    assert digits == {"path": f"{manifest}:2", "error": "not a manifest entry: it holds a number too long to read"}
    assert nul == {"path": f"{manifest}:3", "error": '"path": a file name cannot hold a NUL character'}
    assert heard["verdict"] == "silent"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the manifest: /dev/zero: is not a regular file"),
        ("\ufeff{}".encode("utf-16"), "the manifest is UTF-16 text; save it as UTF-8"),
    ],
)
def test_a_manifest_that_cannot_be_read_is_one_line(
    tmp_path: Path, content: bytes | None, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = Path("/dev/zero")
    if content is not None:
        manifest = tmp_path / "list.jsonl"
        manifest.write_bytes(content)
    assert main(["hear", "--manifest", str(manifest)]) == 1
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--position", "2", "--rank", "jokers"], "unknown rank"),
        (["--position", "2"], "give --rank"),
        (["--position", "1", "--rank", "Q", "--ranks", "K"], "not both"),
        (["--position", "1", "--chant", "/dev/zero"], "/dev/zero: is not a regular file"),
    ],
)
def test_arguments_are_checked_before_the_recognizer_loads(
    silence: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hear", str(silence), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "using" not in err  # the recognizer was never chosen, let alone loaded


HEAR_AND_MEASURE = """
import re, sys
from pathlib import Path
from voice_earl.commands.cli import main
status = main(sys.argv[1:])
# This process's own peak: getrusage's ru_maxrss would also count the test run it was started from, which Linux
# carries over the exec.
peak_kb = int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1))
print("peak", peak_kb // 1024, "MB", status)
"""


@pytest.mark.slow
def test_a_wav_of_a_hundred_megabytes_is_heard_within_400_mb(tmp_path: Path) -> None:
    """An 8-bit WAV just under the 100 MB limit, at 333 kHz (5 minutes): it took 1.4 GB in float copies."""
    rate, size = 333_000, 99_900_000 - 44
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate, 1, 8)
    header = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", size)
    path = tmp_path / "big.wav"
    with path.open("wb") as out:
        out.write(b"RIFF" + struct.pack("<I", len(header) + size) + header)
        tone = (128 + 20 * np.sin(np.arange(rate) * (2 * np.pi * 220 / rate))).astype(np.uint8).tobytes()
        for start in range(0, size, len(tone)):
            out.write(tone[: size - start])
    assert path.stat().st_size == 99_900_000
    # The decoding is measured, without the judge, whose model alone holds about 300 MB (scripts/bench_series.py).
    argv = [
        sys.executable,
        "-c",
        HEAR_AND_MEASURE,
        "hear",
        str(path),
        "--position",
        "2",
        "--rank",
        "Q",
        "--json",
        "--no-judge",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    *records, measured = done.stdout.splitlines()
    assert "verdict" in json.loads(records[0]), done.stderr
    _peak, megabytes, _unit, _status = measured.split()
    assert int(megabytes) < 400, measured
