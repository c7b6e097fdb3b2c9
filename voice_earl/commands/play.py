"""`voice-earl play`: the laptop referees a table of players, by voice or in silence."""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from typing import cast

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
from voice_earl.errors import UsageError
from voice_earl.game.rules import DeckMode
from voice_earl.keep.storage_values import Mode
from voice_earl.table.session_events import Seat, TableSettings
from voice_earl.wrapping import print_wrapped

EXAMPLES = """examples:
  voice-earl play --players Ann Ben Cy        # a real pack, refereed by the laptop
  voice-earl play --players Ann Ben Cy --deck virtual --open-hands
  voice-earl play --players Ann Ben --profile parlour --scoring counters
  voice-earl play --players Ann Ben Cy --silent   # keys: space pass, enter play
  voice-earl play --resume                    # the series that was interrupted
  voice-earl play --resume 12                 # series 12 (voice-earl history --unfinished lists them)
  voice-earl play --players Ann Ben Cy --deck virtual --phones   # each hand on its player's phone
  voice-earl play --players Ann Ben Cy --deck virtual --phone-mics   # ... and each phone a microphone

At your turn say your line: "There's as good as Queen can be" to lead queens, then
"There's a Queen as good as he", "There's the best of all the three", "And there's the Earl of
Coventry". Say "pass" when you hold none, "undo" to take back the last move, "repeat" to hear the
last announcement again."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", nargs="+", metavar="NAME", help="names in seat order, clockwise")
    parser.add_argument(
        "--deck",
        choices=[d.value for d in DeckMode],
        default=None,
        help="physical (default): you deal a real pack and the laptop referees; virtual: the laptop deals on screen",
    )
    add_resume_option(parser, "play")
    add_rules_options(parser)
    add_voice_options(parser)
    phones = parser.add_argument_group("phones")
    phones.add_argument(
        "--phones",
        action="store_true",
        help="serve each player's hand and buttons to their own phone over the local network "
        "(best with --deck virtual); the addresses are shown as QR codes",
    )
    phones.add_argument(
        "--phone-mics",
        action="store_true",
        help="the phones are microphones too: a player holds Hold to speak on their phone while "
        "saying their line (implies --phones; the pages are served over HTTPS, with a "
        "self-signed certificate kept in the data directory)",
    )
    phones.add_argument(
        "--host",
        default=None,
        help="address the phones' server listens on (default: the laptop's address on the "
        "local network, or 127.0.0.1 when there is none)",
    )
    phones.add_argument(
        "--port",
        type=_port,
        default=None,
        help="its port (default 8765, or the one a resumed series used; 0 picks a free one)",
    )


def _port(text: str) -> int:
    if not re.fullmatch(r"\s*[0-9]{1,10}\s*", text):  # int() would take "٣" and "8_000"
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (write it with the digits 0-9)")
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    if args.phone_mics:
        if args.silent:
            raise UsageError(
                "--phone-mics listens to the players' phones, and Silent Earl listens to nobody: "
                "leave out --silent or --phone-mics"
            )
        args.phones = True
    if (args.host is not None or args.port is not None) and not (args.phones or args.resume is not None):
        raise UsageError("--host and --port are for the phones' server: add --phones")
    if args.resume is not None:
        return resume(args, Mode.PLAY)
    apply_config(args)
    activate_language(args)
    return start_new(args, table_settings(args), Mode.PLAY)


def table_settings(args: argparse.Namespace) -> TableSettings:
    names = args.players or ask_players()  # names from flags or config were checked by apply_config
    profile = rules_profile(args)
    check_seats(profile, len(names))
    deck = DeckMode(args.deck or "physical")
    if deck is DeckMode.PHYSICAL and args.open_hands:
        raise UsageError("--open-hands needs --deck virtual: with a real pack the laptop cannot see the cards")
    return TableSettings(
        seats=tuple(Seat(name) for name in names),
        profile=profile,
        deck=deck,
        deals=args.deals,
        seed=args.seed if args.seed is not None else secrets.randbelow(2**31),
        chant=chant_of(profile),
    )


def ask_players() -> list[str]:
    """Ask for the names at a terminal; elsewhere say how to give them."""
    if not sys.stdin.isatty():
        raise UsageError("name the players: voice-earl play --players Ann Ben Cy")
    from voice_earl.keep.config import KEYS_BY_NAME, parse_value

    print_wrapped(
        "Who is playing? Type the names in seat order, clockwise, with spaces between them"
        " (commas where a name has a space: Mary Jo, Ben, Cy)."
    )
    try:
        answer = input("Players: ")
    except EOFError:  # Ctrl-D: no names, as an empty answer gives
        print()
        answer = ""
    names = [name.strip() for name in answer.split(",") if name.strip()] if "," in answer else answer.split()
    if not names:
        raise UsageError("no players named: voice-earl play --players Ann Ben Cy")
    return list(cast(tuple[str, ...], parse_value(KEYS_BY_NAME["players"], names)))  # the config file's rules
