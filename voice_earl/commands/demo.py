"""`voice-earl demo`: bots play a whole deal by voice, through the real listener, with no sound card."""

from __future__ import annotations

import argparse
import secrets
import sys

from voice_earl.commands.arguments import SEED, path_text, probability, whole_number
from voice_earl.commands.table_options import add_judge_options, check_seats
from voice_earl.game.rules import PROFILES

EXAMPLES = """examples:
  voice-earl demo                     three bots, one deal, every formula through the real recognizer
  voice-earl demo --players 5 --seed 7 --jsonl > game.jsonl"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=whole_number(1, 100), default=3, help="how many bots (default 3)")
    parser.add_argument(
        "--seed",
        type=SEED,
        default=None,
        help="the same seed deals the same cards (default: a new one, printed so that it can be played again)",
    )
    parser.add_argument(
        "--deals", type=whole_number(1, 1000), default=1, help="how many deals (default 1; hoyle's series is 6)"
    )
    parser.add_argument("--profile", choices=sorted(PROFILES), default="hoyle")
    parser.add_argument(
        "--jsonl",
        action="store_true",
        help="write the game log to stdout (with heard, verdict, score, latency_ms); the screen goes to stderr",
    )
    parser.add_argument(
        "--chant-errors",
        type=probability,
        default=0.0,
        metavar="P",
        help="chance that a bot says the wrong line on purpose",
    )
    parser.add_argument("--speak", action="store_true", help="let the narrator speak too (needs a sound card)")
    parser.add_argument("--recognizer", choices=("auto", "vosk", "pocketsphinx"), default=None)
    parser.add_argument("--model", type=path_text, default=None, help="path to a vosk model directory")
    add_judge_options(parser)
    parser.add_argument("--strictness", choices=("lenient", "normal", "strict"), default="normal")


def run(args: argparse.Namespace) -> int:
    from voice_earl.game.bots import MostStrategy
    from voice_earl.game.chants import EARL
    from voice_earl.game.moves import Action, Lead, Pass
    from voice_earl.game.rules import DeckMode, profile_by_name
    from voice_earl.game.simulate import NAMES
    from voice_earl.i18n import N_, _
    from voice_earl.table.console import text_console
    from voice_earl.table.narrator import Verbosity
    from voice_earl.table.recitals import synthesized_recital
    from voice_earl.table.screen import TableScreen
    from voice_earl.table.session_events import Seat, SeatKind, TableSettings
    from voice_earl.table.speech import bot_voices
    from voice_earl.table.table_app import NarratorOptions, open_table
    from voice_earl.table.turns import BotSource, Heard, KeyHelp, TurnRequest
    from voice_earl.table.voice_input import open_listener
    from voice_earl.words.verdicts import Strictness

    profile = profile_by_name(args.profile)
    check_seats(profile, args.players)
    profile.check_chant_errors(args.chant_errors)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    settings = TableSettings(
        seats=tuple(Seat(name, SeatKind.BOT) for name in NAMES[: args.players]),
        profile=profile,
        deck=DeckMode.VIRTUAL,
        deals=args.deals,
        seed=seed,
        chant=EARL,
    )
    again = _("seed {seed}: voice-earl demo --seed {seed} deals these cards again").format(seed=seed)
    print(f"voice-earl demo: {again}", file=sys.stderr)
    screen = TableScreen(text_console(file=sys.stderr)) if args.jsonl else TableScreen()
    with screen.progress(_("loading the recognizer")):
        listener, reason = open_listener(args)
    strictness = Strictness(args.strictness)
    voices = bot_voices(args.players)
    reciters = [synthesized_recital(listener, voice, strictness) for voice in voices]

    def recite(request: TurnRequest, action: Action, bungle: bool) -> Heard:
        text = _line_for(request, action, bungle)
        return reciters[request.seat](request.context, text)

    def _line_for(request: TurnRequest, action: Action, bungle: bool) -> str:
        if isinstance(action, Pass):
            return "pass"
        rank = action.rank if isinstance(action, Lead) else request.due.rank
        assert rank is not None
        position = request.due.position
        if bungle:
            position = 3 if position != 3 else 2  # another position's line
        return EARL.line(position, rank)

    bots = {seat: BotSource(MostStrategy(), f"demo:{seed}", args.chant_errors, recite) for seat in range(args.players)}
    narration = NarratorOptions(speak=args.speak, verbosity=Verbosity.NORMAL)
    keys = KeyHelp(N_("Ctrl-C stops"), "", "")  # bots play on by themselves: nothing waits after the deal
    with open_table(
        settings,
        bots,
        narration=narration,
        show_hands=lambda seat: True,
        keys=keys,
        jsonl=sys.stdout if args.jsonl else None,
        screen=screen,
    ) as table:
        table.view.narrate(_("listening with {listener}").format(listener=reason))  # until the first announcement
        table.run()
    if screen.is_live:  # the live screen hid the line printed before it
        print(f"voice-earl demo: {again}", file=sys.stderr)
    return 0
