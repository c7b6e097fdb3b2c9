"""Starting or resuming a saved series for `play` and `practice`.

A new series says so when another one is unfinished. ``--resume [ID]`` goes on with the newest unfinished
series of the command's kind (or series ID) exactly as it was saved: seats, bots and their strategy, rules,
Silent Earl, deck, deals, seed, chant, strictness and language. A flag that would change the game is
refused with one line; the language may change, and Silent Earl may replace the voice when the moves so
far play the same under it.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from voice_earl.commands.arguments import SERIES_ID
from voice_earl.commands.table_options import activate_language, apply_config
from voice_earl.errors import UsageError
from voice_earl.game.rules import MatchEnd
from voice_earl.i18n import _, current_language
from voice_earl.keep.chant_files import chant_set
from voice_earl.keep.storage_values import Mode
from voice_earl.paths import command
from voice_earl.table.session_events import SeatKind
from voice_earl.wrapping import print_wrapped

if TYPE_CHECKING:
    from voice_earl.keep.storage import Store
    from voice_earl.table.saved_series import SeriesSetup
    from voice_earl.table.session_events import TableSettings


class Newest(enum.Enum):
    """``--resume`` without an ID (not a string: argparse would pass a string through the type)."""

    SERIES = "newest"


NEWEST = Newest.SERIES
SHOWN_UNFINISHED = 2  # a new series names this many unfinished ones, then counts the rest


def add_resume_option(parser: argparse.ArgumentParser, kind: str) -> None:
    parser.add_argument(
        "--resume",
        nargs="?",
        const=NEWEST,
        default=None,
        type=SERIES_ID,
        metavar="ID",
        help=f"go on with the last unfinished {kind} series, or series ID (see `voice-earl history --unfinished`)",
    )


# -- a new series ----------------------------------------------------------------------------------------


def start_new(args: argparse.Namespace, table: TableSettings, mode: Mode, strategy: str | None = None) -> int:
    """Open the store, say which series are unfinished, and play ``table`` as a new series."""
    from voice_earl.table.play_modes import ask_yes, open_store, run_table_mode
    from voice_earl.table.saved_series import SeriesSetup

    setup = SeriesSetup(table, mode, strategy, args.strictness or "normal", current_language())
    with open_store(keep_audio=args.keep_audio) as store:
        if _note_unfinished(store) and at_a_terminal() and not ask_yes(_("Start a new series anyway? [Y/n] ")):
            print(_("Nothing was started."), file=sys.stderr)
            return 0
        return run_table_mode(args, store, setup)


def at_a_terminal() -> bool:
    """Whether a player reads and types here: the game's screen takes the terminal over once it starts."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _note_unfinished(store: Store) -> bool:
    """Say which series are unfinished (the newest first), and whether there are any: at a terminal the game's
    screen would cover these lines at once, so the player is asked before a new series starts."""
    from voice_earl.table.saved_series import TABLE_MODES, resume_command

    unfinished = [s for s in store.unfinished_series() if s.mode in TABLE_MODES and s.damage is None]
    for summary in unfinished[:SHOWN_UNFINISHED]:
        text = _(
            "Series {series} ({players}, started {date}) is unfinished: `{command}` goes on with it,"
            " `{abandon}` gives it up."
        )
        shown = text.format(
            series=summary.id,
            players=", ".join(summary.players),
            date=f"{summary.started_at.astimezone():%Y-%m-%d}",
            command=resume_command(summary.mode, summary.id),
            abandon=command(f"history abandon {summary.id}"),
        )
        print_wrapped(shown, sys.stderr)  # the commands in backticks each kept on one line, to be copied
    if len(unfinished) > SHOWN_UNFINISHED:
        more = _("{count} more unfinished series: voice-earl history --unfinished")
        print(more.format(count=len(unfinished) - SHOWN_UNFINISHED), file=sys.stderr)
    return bool(unfinished)


# -- resuming ----------------------------------------------------------------------------------------------


def resume(args: argparse.Namespace, mode: Mode) -> int:
    """Go on with a saved series exactly as it was saved."""
    from voice_earl.table.play_modes import open_store, run_table_mode
    from voice_earl.table.saved_series import load_saved, remember_settings, series_to_resume

    given = {flag.dest: getattr(args, flag.dest) for flag in GAME_FLAGS if _was_given(args, flag.dest)}
    with open_store(keep_audio=args.keep_audio) as store:
        summary = series_to_resume(store, mode, None if args.resume is NEWEST else args.resume)
        saved = load_saved(store, summary.id)
        setup = saved.setup
        refuse_changes(saved.id, setup, given)
        if setup.table.profile.silent:
            args.silent = True
        args.strictness = setup.strictness or args.strictness
        args.lang = args.lang or setup.language  # --lang may change the language: it does not change the game
        apply_config(args)  # the rest (voice, microphone, recognizer...) belongs to this evening
        activate_language(args)
        now = dataclasses.replace(setup, strictness=args.strictness or "normal", language=current_language())
        if now != setup:
            remember_settings(store, saved.id, now)
        resuming = _("Resuming series {series}: {players}, {moves} moves in.")
        print(
            resuming.format(series=saved.id, players=", ".join(setup.table.names), moves=len(saved.moves)),
            file=sys.stderr,
        )
        return run_table_mode(args, store, now, saved)


def _was_given(args: argparse.Namespace, dest: str) -> bool:
    """Given on the command line: not the parser's default (None, or False for a switch); 0 is given."""
    value = getattr(args, dest, None)
    return value is not None and value is not False and value != []


@dataclass(frozen=True)
class GameFlag:
    """A flag that shapes the game, and how it reads in a saved setup."""

    dest: str
    saved: Callable[[SeriesSetup], object]
    same: Callable[[object, object], bool] = lambda given, saved: given == saved

    @property
    def flag(self) -> str:
        return "--" + self.dest.replace("_", "-")


def _same_chant(given: object, saved: object) -> bool:
    return chant_set(str(given)) == saved


def _bots(setup: SeriesSetup) -> int:
    return sum(seat.kind is SeatKind.BOT for seat in setup.table.seats)


def _human_name(setup: SeriesSetup) -> str | None:
    return next((seat.name for seat in setup.table.seats if seat.kind is SeatKind.HUMAN), None)


GAME_FLAGS = (
    GameFlag("players", lambda s: list(s.table.names)),
    GameFlag("name", _human_name),
    GameFlag("bots", _bots),
    GameFlag("strategy", lambda s: s.strategy),
    GameFlag("deck", lambda s: s.table.deck.value),
    GameFlag("profile", lambda s: s.table.profile.name),
    GameFlag("deals", lambda s: s.table.deals or s.table.profile.series_deals),
    GameFlag("chant", lambda s: s.table.chant, _same_chant),
    GameFlag("open_hands", lambda s: s.table.profile.open_hands),
    GameFlag("scoring", lambda s: s.table.profile.scoring.value),
    GameFlag("stack", lambda s: s.table.profile.starting_stack),
    GameFlag("elimination", lambda s: s.table.profile.match_end is MatchEnd.ELIMINATION),
    GameFlag("kitty", lambda s: s.table.profile.forfeit_kitty),
    GameFlag("seed", lambda s: s.table.seed),
    GameFlag("strictness", lambda s: s.strictness, lambda given, saved: saved is None or given == saved),
)


def refuse_changes(series: int, setup: SeriesSetup, given: dict[str, object]) -> None:
    """A flag that would change a saved series is a usage error naming what the series was saved with."""
    for flag in GAME_FLAGS:
        if flag.dest not in given:
            continue
        value, saved = given[flag.dest], flag.saved(setup)
        if flag.same(value, saved):
            continue
        raise UsageError(
            f"series {series} was saved {_as_flag(flag, saved)}: {_as_flag(flag, value, given=True)} would change"
            " its game; leave the flag out to resume it as it was, or start a new series without --resume"
        )


def _as_flag(flag: GameFlag, value: object, *, given: bool = False) -> str:
    if isinstance(value, bool):
        return flag.flag if given else (f"with {flag.flag}" if value else f"without {flag.flag}")
    if flag.dest == "chant" and not given:
        value = getattr(value, "name", value)
    shown = " ".join(value) if isinstance(value, list) else str(value)
    return f"{flag.flag} {shown}" if given else f"with {flag.flag} {shown}"
