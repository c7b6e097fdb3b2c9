"""`voice-earl practice`: you against bots on a virtual deck, reciting your own formulas."""

from __future__ import annotations

import argparse
import secrets

from voice_earl.commands.arguments import player_name, whole_number
from voice_earl.commands.table_options import (
    activate_language,
    add_rules_options,
    add_voice_options,
    apply_config,
    chant_of,
    check_seats,
    rules_profile,
)
from voice_earl.commands.table_series import add_resume_option, resume, start_new
from voice_earl.game.bots import STRATEGIES
from voice_earl.game.rules import DeckMode
from voice_earl.game.simulate import NAMES
from voice_earl.keep.storage_values import Mode
from voice_earl.table.session_events import Seat, SeatKind, TableSettings

EXAMPLES = """examples:
  voice-earl practice                 you against two bots; your hand is on screen
  voice-earl practice --bots 4 --profile parlour --lang nl
  voice-earl practice --silent        the keyboard instead of your voice
  voice-earl practice --resume        go on with the practice series you left"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots", type=whole_number(1, 12), default=None, help=f"how many bots (default {DEFAULT_BOTS})"
    )
    parser.add_argument(
        "--name", type=player_name, default=None, help=f"your name at the table (default {DEFAULT_NAME})"
    )
    parser.add_argument(
        "--strategy", choices=sorted(STRATEGIES), default=None, help=f"how the bots play (default {DEFAULT_STRATEGY})"
    )
    add_resume_option(parser, "practice")
    add_rules_options(parser)
    add_voice_options(parser)


# "Player", not "You": the name is said in the third person ("Player holds no Fours", "Player wins").
DEFAULT_BOTS, DEFAULT_NAME, DEFAULT_STRATEGY = 2, "Player", "most"


def run(args: argparse.Namespace) -> int:
    if args.resume is not None:
        return resume(args, Mode.PRACTICE)
    apply_config(args)
    activate_language(args)
    return start_new(args, practice_settings(args), Mode.PRACTICE, args.strategy or DEFAULT_STRATEGY)


def _bot_names(name: str, count: int) -> list[str]:
    """``count`` bots' names, none of them the player's (nor the player's name with " (bot)" after it), as the
    table tells names apart: by their letters, whatever their case.

    >>> _bot_names("Ann (bot)", 2), _bot_names("ben", 2)
    (['Ben (bot)', 'Cy (bot)'], ['Ann (bot)', 'Cy (bot)'])
    """
    taken = name.casefold()
    return [f"{n} (bot)" for n in NAMES if taken not in (n.casefold(), f"{n} (bot)".casefold())][:count]


def practice_settings(args: argparse.Namespace) -> TableSettings:
    profile = rules_profile(args)
    bots = DEFAULT_BOTS if args.bots is None else args.bots
    name = args.name or DEFAULT_NAME
    check_seats(profile, bots + 1, you=True)
    seats = (Seat(name), *(Seat(bot, SeatKind.BOT) for bot in _bot_names(name, bots)))
    return TableSettings(
        seats=seats,
        profile=profile,
        deck=DeckMode.VIRTUAL,
        deals=args.deals,
        seed=args.seed if args.seed is not None else secrets.randbelow(2**31),
        chant=chant_of(profile),
    )
