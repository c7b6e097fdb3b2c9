"""`voice-earl rules`: the rules texts ship with the package, and docs/ in the repository points at them."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from voice_earl.commands.cli import main

REPO = Path(__file__).resolve().parents[2]
PACKAGED = REPO / "voice_earl" / "docs"


@pytest.mark.parametrize(
    ("argv", "file_name"),
    [
        ([], "hoyle-profile.en.txt"),
        (["--profile", "parlour"], "parlour-rules.en.txt"),
        (["--lang", "nl"], "parlour-rules.nl.txt"),
        (["--lang", "it", "--profile", "parlour"], "parlour-rules.it.txt"),
        (["--rulings"], "README.md"),
    ],
)
def test_rules_prints_the_text_asked_for(argv: list[str], file_name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", *argv]) == 0
    out = capsys.readouterr().out
    assert out.startswith((PACKAGED / "rules" / file_name).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--lang", "nl", "--profile", "hoyle"], "hoyle rules are written in English only"),
        (["--rulings", "--lang", "it"], "rulings are written in English only"),
        (["--lang", "fr"], "invalid choice"),
    ],
)
def test_a_text_that_does_not_exist_is_one_line_and_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["rules", *argv])
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_docs_in_the_repository_are_the_packaged_texts() -> None:
    """One place for the texts: docs/rules and docs/game-log.md are links to the package data, not copies."""
    docs = REPO / "docs"
    assert (docs / "rules").is_symlink() and (docs / "rules").resolve() == PACKAGED / "rules"
    assert (docs / "game-log.md").is_symlink() and (docs / "game-log.md").resolve() == PACKAGED / "game-log.md"
    names = {path.name for path in (docs / "rules").iterdir()}
    assert names == {
        "README.md",
        "hoyle-profile.en.txt",
        "parlour-rules.en.txt",
        "parlour-rules.nl.txt",
        "parlour-rules.it.txt",
    }
    assert (docs / "game-log.md").is_file()


def test_nothing_cites_texts_outside_the_repository() -> None:
    cited = [REPO / "README.md", *REPO.glob("docs/*.md"), *REPO.glob("voice_earl/**/*.py"), *REPO.glob("tests/**/*.py")]
    outside = [
        str(path.relative_to(REPO))
        for path in cited
        if any(f"shared/{name}" in path.read_text(encoding="utf-8") for name in ("rules", "game-log"))
    ]
    assert outside == []


@pytest.mark.slow
def test_an_installed_wheel_prints_the_rules(tmp_path: Path) -> None:
    """The texts are package data: a wheel holds them, and voice-earl run from it prints them."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(REPO), "-w", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("voice_earl-*.whl")
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(wheel) as bundle:
        bundle.extractall(unpacked)
    env = {**os.environ, "PYTHONPATH": str(unpacked)}
    code = (
        "import voice_earl, sys; print(voice_earl.__file__); sys.exit(__import__('voice_earl.commands.cli', "
        "fromlist=['main']).main(['rules', '--lang', 'it']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    first, _, printed = result.stdout.partition("\n")
    assert Path(first).is_relative_to(unpacked)
    assert printed.startswith((PACKAGED / "rules" / "parlour-rules.it.txt").read_text(encoding="utf-8"))
