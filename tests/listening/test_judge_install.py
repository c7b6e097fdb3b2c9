"""Fetching the judge's model file by file, each checked against its pin, from servers on this computer only."""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.model_files import QuietHandler, start_server

from voice_earl.commands.cli import main
from voice_earl.errors import VoiceEarlError
from voice_earl.listening.models.install_steps import ModelAlreadyInstalled
from voice_earl.listening.models.judge_install import fetch_judge_model
from voice_earl.listening.models.judge_models import (
    JUDGE_MODEL,
    MODEL_FILES,
    PINNED_JUDGE_FILES,
    PinnedFile,
    discover_judge_model,
    judge_model_problems,
    packaged_judge_model,
)


@contextmanager
def serving(directory: Path) -> Iterator[str]:
    """``directory`` served over http on 127.0.0.1; yields its address, a folder's (ending in "/")."""
    with start_server(functools.partial(QuietHandler, directory=str(directory))) as url:
        yield f"{url}/"


def small_model(folder: Path) -> dict[str, PinnedFile]:
    """Four small stand-in files in the model's layout, and their pins."""
    folder.mkdir(parents=True, exist_ok=True)
    contents = {name: f"stand-in {name}\n".encode() for name in MODEL_FILES}
    contents["config.json"] = json.dumps({"alignment_heads": [[1, 0]]}).encode()
    pins = {}
    for name, content in contents.items():
        (folder / name).write_bytes(content)
        pins[name] = PinnedFile(hashlib.sha256(content).hexdigest(), len(content))
    return pins


def test_fetch_checks_every_file_and_installs_atomically(tmp_path: Path) -> None:
    pins = small_model(tmp_path / "served")
    with serving(tmp_path / "served") as url:
        installed = fetch_judge_model(url=url, pins=pins, dest_dir=tmp_path / "models")
    assert installed == tmp_path / "models" / JUDGE_MODEL
    assert judge_model_problems(installed) == ()
    receipt = json.loads((installed / ".voice-earl-install.json").read_text())
    assert receipt["checksum"] == "pinned" and receipt["sha256"]["model.bin"] == pins["model.bin"].sha256
    with serving(tmp_path / "served") as url, pytest.raises(ModelAlreadyInstalled):
        fetch_judge_model(url=url, pins=pins, dest_dir=tmp_path / "models")


def test_a_file_that_does_not_match_its_pin_installs_nothing(tmp_path: Path) -> None:
    pins = small_model(tmp_path / "served")
    (tmp_path / "served" / "tokenizer.json").write_bytes(b"stand-in tokenizer.jsoX\n")  # same size, other bytes
    with serving(tmp_path / "served") as url, pytest.raises(VoiceEarlError, match="SHA-256"):
        fetch_judge_model(url=url, pins=pins, dest_dir=tmp_path / "models")
    assert [p.name for p in (tmp_path / "models").iterdir()] == []  # not even the scratch directory


def test_a_missing_file_installs_nothing(tmp_path: Path) -> None:
    pins = small_model(tmp_path / "served")
    (tmp_path / "served" / "vocabulary.txt").unlink()
    with serving(tmp_path / "served") as url, pytest.raises(VoiceEarlError, match="404"):
        fetch_judge_model(url=url, pins=pins, dest_dir=tmp_path / "models")
    assert not (tmp_path / "models" / JUDGE_MODEL).exists()


def test_file_urls_work_too_and_force_replaces(tmp_path: Path) -> None:
    pins = small_model(tmp_path / "served")
    first = fetch_judge_model(url=(tmp_path / "served").as_uri(), pins=pins, dest_dir=tmp_path / "models")
    (first / "extra").write_text("left over")
    again = fetch_judge_model(
        url=(tmp_path / "served").as_uri() + "/", pins=pins, dest_dir=tmp_path / "models", force=True
    )
    assert again == first and not (again / "extra").exists()


def test_plain_http_to_another_computer_is_refused_without_touching_it(tmp_path: Path) -> None:
    with pytest.raises(VoiceEarlError, match="https"):
        fetch_judge_model(url="ftp://example.invalid/model/", dest_dir=tmp_path)


@pytest.mark.slow
def test_the_command_fetches_the_pinned_conversion_from_a_mirror(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packaged = packaged_judge_model()
    if packaged is None:
        pytest.skip("the judge extra is not installed")
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for name in PINNED_JUDGE_FILES:
        shutil.copy(packaged / name, mirror / name)
    with serving(mirror) as url:
        status = main(["models", "fetch", JUDGE_MODEL, "--url", url, "--dest", str(tmp_path / "models")])
    assert status == 0
    assert "every file matches its pinned SHA-256" in capsys.readouterr().out
    found = discover_judge_model(tmp_path / "models" / JUDGE_MODEL)
    assert found is not None and judge_model_problems(found.path) == ()
    assert main(["models", "fetch", JUDGE_MODEL, "--sha256", "00" * 32]) == 2
    assert "--sha256 does not apply" in capsys.readouterr().err
