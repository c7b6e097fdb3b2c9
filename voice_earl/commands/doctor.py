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
_STATUS_WIDTH = 4
_NAME_WIDTH = 18  # longer names fold
_GAP = 2


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
    from voice_earl.commands import doctor_audio, doctor_checks, doctor_report
    from voice_earl.keep.config import effective_settings
    from voice_earl.table.console import text_console

    console = text_console()
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
    if not args.mic_test and doctor_audio.mic_test_blocker(results) is None:  # with no microphone, nothing to test
        console.print("Add --mic-test to measure the microphone level.", highlight=False)
    return 0 if doctor_checks.voice_ready(results) else 1


def render(results: Sequence[CheckResult], console: Console) -> None:
    """One row per check: its status, its name, and what it found with the fix under it, wrapped between
    words to the console's width (a path breaks after a slash). Details are plain text, never rich markup."""
    from rich.table import Table
    from rich.text import Text

    from voice_earl.commands.doctor_checks import summary
    from voice_earl.wrapping import wrap

    name_width = min(max((len(result.name) for result in results), default=0), _NAME_WIDTH)
    text_width = max(console.width - _STATUS_WIDTH - name_width - 2 * _GAP, _NAME_WIDTH)
    table = Table.grid(padding=(0, _GAP))
    table.add_column(no_wrap=True, width=_STATUS_WIDTH)
    table.add_column(width=name_width, overflow="fold")
    table.add_column(no_wrap=True)  # wrapped above, to text_width
    for result in results:
        status = result.status.value
        lines = wrap(result.detail, text_width)
        if result.fix:
            lines += wrap(f"fix: {result.fix}", text_width, indent="     ")
        table.add_row(Text(status, style=STATUS_STYLE.get(status, "")), Text(result.name), Text("\n".join(lines)))
    console.print(Text("voice-earl doctor", style="bold"))
    console.print(table)
    console.print(Text(summary(results)))
