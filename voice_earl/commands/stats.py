"""`voice-earl stats`: how well and how fast each formula and rank is said, the usual slips, the trend."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voice_earl.commands.arguments import file_path, output_file, whole_number
from voice_earl.errors import UsageError, VoiceEarlError, tell
from voice_earl.paths import pip_install

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from voice_earl.keep.accuracy import Tally, TrendBy
    from voice_earl.keep.storage_values import Utterance

# Silent Earl keeps the moves, not lines: a series played in silence is in `history`, not here.
EMPTY = (
    "no lines said yet{mode}: stats count the formulas said (or typed in the drill); a game played in silence"
    " keeps none - try `voice-earl practice` or `voice-earl drill`"
)
WIDTH = 80
TREND_ROWS = 14  # the latest periods shown as bars; --plot draws them all


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mode", choices=("practice", "drill", "play"), help="only utterances from this mode (default: all)"
    )
    parser.add_argument(
        "--by", choices=("day", "session"), default="day", help="group the trend per day or per session"
    )
    parser.add_argument(
        "--top", type=whole_number(0, 10_000), default=10, metavar="N", help="how many slips to list (default 10)"
    )
    parser.add_argument(
        "--plot",
        type=_picture_file,
        metavar="FILE.png",
        help="also draw the charts into a picture (PNG unless the name says .svg, .pdf ...)",
    )


def _picture_file(text: str) -> Path:
    """Where --plot writes: a file in a folder that exists; with no extension, a PNG of that name."""
    path = file_path(text)
    if not text.strip() or path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder: give a file name, such as {path / 'stats.png'}")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"the folder {str(path.parent)!r} does not exist")
    return output_file(str(path if path.suffix else path.with_name(path.name + ".png")))


def run(args: argparse.Namespace) -> int:
    from voice_earl.keep.accuracy import TrendBy
    from voice_earl.keep.storage import Store
    from voice_earl.keep.storage_values import Mode

    with Store.read(told=tell) as store:  # only reads: a read-only folder or file is read all the same
        utterances = store.utterances(mode=None if args.mode is None else Mode(args.mode))
    from voice_earl.table.console import text_console

    console = text_console(highlight=False, width=WIDTH)
    if not utterances:
        console.print(EMPTY.format(mode="" if args.mode is None else f" in {args.mode}"))
        return 0
    by = TrendBy(args.by)
    _report(console, utterances, by, args.top)
    if args.plot is not None:
        _plot(utterances, by, args.plot)
        console.print(f"wrote the charts to {args.plot}", soft_wrap=True)
    return 0


def _report(console: Console, utterances: Sequence[Utterance], by: TrendBy, top: int) -> None:
    from voice_earl.keep.accuracy import by_formula, by_rank, common_slips, tally, trend

    overall = tally("all", utterances)
    console.print(
        f"{overall.count} lines said, {overall.accuracy:.0%} correct, mean score {overall.mean_score:.0f},"
        f" median latency {_seconds(overall.median_latency_ms)}"
    )
    console.print(_tally_table("By formula", by_formula(utterances)))
    ranks = by_rank(utterances)
    if ranks:
        console.print(_tally_table("By rank", ranks))
    found = common_slips(utterances, top)
    if found:
        console.print("Most common slips:")
        for slip, count in found:
            console.print(f"  {count:>4}x  {slip.describe()}")
    elif top:
        console.print("No slips: every line heard was word-perfect.")
    periods = trend(utterances, by)
    if len(periods) > TREND_ROWS:
        console.print(f"\n(the last {TREND_ROWS} of {len(periods)} {by.value}s; --plot draws them all)")
        periods = periods[-TREND_ROWS:]
    console.print(f"\nAccuracy per {by.value}:")
    for line in _chart([(t.label, t.accuracy) for t in periods], 1.0, lambda v: f"{v:4.0%}"):
        console.print(line)
    timed = [(t.label, t.median_latency_ms) for t in periods if t.median_latency_ms is not None]
    if timed:
        slowest = max(value for _, value in timed)
        console.print(f"\nMedian latency per {by.value}:")
        for line in _chart(timed, slowest, lambda v: f"{v / 1000:.2f} s"):
            console.print(line)


def _chart(rows: Sequence[tuple[str, float]], maximum: float, text: Callable[[float], str]) -> list[str]:
    from voice_earl.keep.accuracy import bar_chart

    return bar_chart(rows, maximum, text, width=WIDTH)


def _tally_table(title: str, tallies: Sequence[Tally]) -> Table:
    from rich.table import Table

    table = Table(title=title)
    for column in ("", "Said", "Correct", "Accuracy", "Mean score", "Median latency"):
        table.add_column(column, justify="left" if column == "" else "right")
    for t in tallies:
        table.add_row(
            t.label,
            str(t.count),
            str(t.correct),
            f"{t.accuracy:.0%}",
            f"{t.mean_score:.0f}",
            _seconds(t.median_latency_ms),
        )
    return table


def _seconds(milliseconds: float | None) -> str:
    return "-" if milliseconds is None else f"{milliseconds / 1000:.2f} s"


def _plot(utterances: Sequence[Utterance], by: TrendBy, out: Path) -> None:
    try:
        import matplotlib
    except ImportError:
        raise VoiceEarlError(f"--plot needs matplotlib: {pip_install('voice-earl[plot]')}") from None
    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    from voice_earl.keep.accuracy import by_formula, by_rank, trend

    figure, axes = plt.subplots(2, 2, figsize=(11, 7))
    _bars(axes[0][0], "Accuracy by formula", by_formula(utterances))
    _bars(axes[0][1], "Accuracy by rank", by_rank(utterances))
    periods = trend(utterances, by)
    labels = [t.label for t in periods]
    axes[1][0].plot(labels, [100 * t.accuracy for t in periods], marker="o")
    axes[1][0].set_title(f"Accuracy per {by.value} (%)")
    axes[1][0].set_ylim(0, 100)
    axes[1][1].plot(labels, [(t.median_latency_ms or 0) / 1000 for t in periods], marker="o", color="tab:orange")
    axes[1][1].set_title(f"Median latency per {by.value} (s)")
    for axis in (axes[1][0], axes[1][1]):
        axis.tick_params(axis="x", labelrotation=45)
    figure.tight_layout()
    try:
        figure.savefig(out)
    except OSError as error:
        raise VoiceEarlError(f"cannot write {out}: {error.strerror}") from None
    except ValueError as error:  # an extension matplotlib cannot write
        raise UsageError(f"--plot {out}: {error}") from None
    finally:
        plt.close(figure)


def _bars(axis: Any, title: str, tallies: Sequence[Tally]) -> None:
    axis.bar([t.label for t in tallies], [100 * t.accuracy for t in tallies])
    axis.set_title(title + " (%)")
    axis.set_ylim(0, 100)
    axis.tick_params(axis="x", labelrotation=45)
