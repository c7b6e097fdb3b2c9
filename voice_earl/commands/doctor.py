"""`voice-earl doctor`: can this machine run the game by voice, and what to fix if not."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from voice_earl.commands.arguments import device

if TYPE_CHECKING:
    from rich.console import Console

    from voice_earl.commands.doctor_checks import CheckResult


STATUS_STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red"}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mic-test", action="store_true", help="also record 2 seconds and measure the microphone level"
    )
    parser.add_argument(
        "--input-device",
        dest="input_device",
        type=device,
        default=None,
        help="overrides 'input_device' in the config file",
    )


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from voice_earl.commands import doctor_audio, doctor_checks, doctor_report
    from voice_earl.keep.config import effective_settings

    console = Console()
    loaded = effective_settings(args)
    results = doctor_report.run_checks(loaded)
    if args.mic_test:
        blocker = doctor_audio.mic_test_blocker(results)
        if blocker is not None:
            results.append(blocker)
        else:
            seconds = doctor_audio.MIC_TEST_SECONDS
            console.print(f"Say a formula now, for {seconds:.0f} seconds: 'And there's the Earl of Coventry'")
            device = loaded.settings.input_device
            results += doctor_checks.guarded("microphone level", lambda: doctor_audio.check_microphone(device))
    render(results, console)
    if not args.mic_test:
        console.print("Add --mic-test to measure the microphone level.", highlight=False)
    return 0 if doctor_checks.voice_ready(results) else 1


def render(results: Sequence[CheckResult], console: Console) -> None:
    """The checks as a table (details are plain text, never rich markup), then the verdict."""
    from rich.table import Table
    from rich.text import Text

    from voice_earl.commands.doctor_checks import summary

    table = Table(title="voice-earl doctor", show_lines=False, expand=False)
    table.add_column("check", overflow="fold", max_width=30)
    table.add_column("status", no_wrap=True, min_width=6)
    table.add_column("detail", overflow="fold", ratio=3)
    table.add_column("fix", overflow="fold", ratio=2)
    for result in results:
        status = result.status.value
        table.add_row(
            Text(result.name),
            Text(status, style=STATUS_STYLE.get(status, "")),
            Text(result.detail),
            Text(result.fix),
        )
    console.print(table)
    console.print(Text(summary(results)))
