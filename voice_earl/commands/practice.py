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
    rules_profile,
)
from voice_earl.game.bots import STRATEGIES
from voice_earl.game.rules import DeckMode
from voice_earl.game.simulate import NAMES
from voice_earl.table.session_events import Seat, SeatKind, TableSettings

EXAMPLES = """examples:
  voice-earl practice                 you against two bots; your hand is on screen
  voice-earl practice --bots 4 --profile parlour --lang nl
  voice-earl practice --silent        the keyboard instead of your voice"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bots", type=whole_number(1, 12), default=2, help="how many bots (default 2)")
    parser.add_argument("--name", type=player_name, default="You", help="your name at the table")
    parser.add_argument("--strategy", choices=sorted(STRATEGIES), default="most", help="how the bots play")
    add_rules_options(parser)
    add_voice_options(parser)


def run(args: argparse.Namespace) -> int:
    from voice_earl.table.play_modes import run_table_mode

    apply_config(args)
    activate_language(args)
    return run_table_mode(args, practice_settings(args), mode="practice")


def practice_settings(args: argparse.Namespace) -> TableSettings:
    profile = rules_profile(args)
    profile.check_players(args.bots + 1)
    bot_names = [n for n in NAMES if n != args.name][: args.bots]
    seats = (Seat(args.name), *(Seat(f"{n} (bot)", SeatKind.BOT) for n in bot_names))
    return TableSettings(
        seats=seats,
        profile=profile,
        deck=DeckMode.VIRTUAL,
        deals=args.deals,
        seed=args.seed if args.seed is not None else secrets.randbelow(2**31),
        chant=chant_of(profile),
    )
