"""Options shared by the table commands (play, practice, demo, drill)."""

from __future__ import annotations

import argparse

from voice_earl.commands.arguments import MAX_DEALS, MAX_STACK, SEED, device, path_text, seconds, whole_number
from voice_earl.errors import UsageError
from voice_earl.game.chants import ChantSet
from voice_earl.game.rules import PROFILES, MatchEnd, RulesProfile, Scoring, profile_by_name
from voice_earl.i18n import DEFAULT_LANGUAGE, LANGUAGES, set_language
from voice_earl.keep.chant_files import chant_set
from voice_earl.keep.config import MAX_RATE, MIN_RATE


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    rules = parser.add_argument_group("rules")
    rules.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default=None,
        help="hoyle (default: 3-6 players, notional settlement, 6 deals) or parlour",
    )
    rules.add_argument("--deals", type=whole_number(1, MAX_DEALS), default=None, help="deals in the series (hoyle: 6)")
    rules.add_argument(
        "--chant",
        type=path_text,
        default=None,
        metavar="SET",
        help="earl (default), snip-snap-snorum, or a .toml file with your own wording",
    )
    rules.add_argument("--open-hands", action="store_true", help="show every hand (virtual deck)")
    rules.add_argument(
        "--scoring",
        choices=[s.value for s in Scoring],
        default=None,
        help="parlour: victory (count wins, default) or counters",
    )
    rules.add_argument(
        "--stack", type=whole_number(1, MAX_STACK), default=None, help="parlour counters: starting stack (20)"
    )
    rules.add_argument("--elimination", action="store_true", help="parlour counters: play until one holds counters")
    rules.add_argument("--kitty", action="store_true", help="Forfeit Earl: a bungled chant costs a counter")
    rules.add_argument("--seed", type=SEED, default=None, help="shuffle seed (the same seed deals the same cards)")


def add_voice_options(parser: argparse.ArgumentParser, *, silent: bool = True) -> None:
    voice = parser.add_argument_group("voice")
    if silent:
        voice.add_argument(
            "--silent",
            action="store_true",
            help="Silent Earl: no microphone; keys do the work (space pass, enter play, rank key leads)",
        )
    voice.add_argument("--no-voice", action="store_true", help="the narrator prints instead of speaking")
    voice.add_argument("--verbosity", choices=("quiet", "normal", "chatty"), default=None)
    voice.add_argument("--voice", default=None, help="narrator voice (see `voice-earl doctor`)")
    voice.add_argument(
        "--rate", type=whole_number(MIN_RATE, MAX_RATE), default=None, help="narrator speed, words per minute"
    )
    voice.add_argument("--recognizer", choices=("auto", "vosk", "pocketsphinx"), default=None)
    voice.add_argument("--model", type=path_text, default=None, help="path to a vosk model directory")
    add_judge_options(voice)
    voice.add_argument("--device", type=device, default=None, help="microphone: name or index")
    voice.add_argument("--strictness", choices=("lenient", "normal", "strict"), default=None)
    voice.add_argument(
        "--remind-after",
        type=seconds,
        default=20.0,
        metavar="SECONDS",
        help="remind a player who says nothing for this long (once; then the game waits)",
    )
    voice.add_argument(
        "--barge-in",
        action="store_true",
        help="a player may cut the narrator short by speaking (use headphones or a speaker away "
        "from the microphone, or the narrator's own voice will cut it short)",
    )
    voice.add_argument(
        "--knock",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a knock on the table passes, as saying 'pass' does (default: off; config key 'knock')",
    )
    voice.add_argument(
        "--keep-audio", action="store_true", help="keep a WAV of each formula heard, beside the practice history"
    )
    add_language_option(voice)


def add_judge_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--judge-model",
        type=path_text,
        default=None,
        metavar="PATH",
        help="the whisper model of the listener's judge (default: the one trained on the game's words, over tiny.en)",
    )
    parser.add_argument(
        "--base-judge",
        action="store_true",
        help="the judge hears with Whisper tiny.en as it ships, not the decoder trained on the game's words "
        "(models/whisper-tiny.en-earl, the default)",
    )
    parser.add_argument(
        "--no-judge",
        action="store_true",
        help="listen with the first pass alone (faster to start; table talk may move the game)",
    )
    parser.add_argument(
        "--judge-verifier",
        action="store_true",
        help="the judge decides by its trained verifier instead of its rules (docs/listening.md; "
        "not the default: on voices it never heard it let more talk move the game)",
    )


def add_language_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=None,
        help="language of the narrator and the screen: en (default), nl or it "
        "(the formulas stay English unless --chant names your own wording)",
    )


def activate_language(args: argparse.Namespace) -> None:
    """Switch to the language chosen (--lang, else the config's ``language``) before the game starts."""
    set_language(getattr(args, "lang", None) or DEFAULT_LANGUAGE)


def rules_profile(args: argparse.Namespace, default: str = "hoyle") -> RulesProfile:
    """The profile named on the command line, with its switches applied."""
    profile = profile_by_name(args.profile or default)
    changes: dict[str, object] = {}
    if getattr(args, "silent", False):
        changes["silent"] = True
    if args.open_hands:
        changes["open_hands"] = True
    if args.chant:
        changes["chant"] = args.chant
    parlour_only = {
        "scoring": args.scoring,
        "stack": args.stack,
        "elimination": args.elimination or None,
        "kitty": args.kitty or None,
    }
    given = [f"--{name}" for name, value in parlour_only.items() if value is not None]
    if given and profile.name != "parlour":
        belong = "belongs" if len(given) == 1 else "belong"
        raise UsageError(f"{', '.join(given)} {belong} to the parlour profile: add --profile parlour")
    if args.scoring:
        changes["scoring"] = Scoring(args.scoring)
    if args.stack is not None:
        changes["starting_stack"] = args.stack
    if args.elimination:
        changes["match_end"] = MatchEnd.ELIMINATION
        changes.setdefault("scoring", Scoring.COUNTERS)
    if args.kitty:
        changes["forfeit_kitty"] = True
        changes.setdefault("scoring", Scoring.COUNTERS)
    return profile.with_changes(**changes) if changes else profile


def check_seats(profile: RulesProfile, players: int, you: bool = False) -> None:
    """Refuse a table the rules do not allow, naming the rules that do: ``players`` around it, counted for the
    player as bots beside ``you`` (practice) or as players (play, demo, simulate)."""
    if profile.min_players <= players <= profile.max_players:
        return
    unit, mine = ("bots", 1) if you else ("players", 0)
    allowed = f"{profile.min_players - mine} to {profile.max_players - mine} {unit}"
    problem = f"the {profile.name} rules are for {allowed}, not {players - mine}"
    other = next((p for p in PROFILES.values() if p.min_players <= players <= p.max_players), None)
    if other is not None:
        took = f"{other.min_players - mine} to {other.max_players - mine}"
        problem += f"; the {other.name} rules take {took}: --profile {other.name}"
    raise UsageError(problem)


def chant_of(profile: RulesProfile) -> ChantSet:
    return chant_set(profile.chant)


def apply_config(args: argparse.Namespace) -> argparse.Namespace:
    """Fill the options not given on the command line from the config file (flags win).

    Problems in the file are reported on stderr and the rest of it still applies.
    """
    import sys

    from voice_earl.keep.config import effective_settings

    loaded = effective_settings(args)
    for problem in loaded.problems:
        print(f"voice-earl: config: {problem}", file=sys.stderr)
    s = loaded.settings
    defaults = {
        "players": list(s.players) or None,
        "profile": s.profile,
        "deck": s.deck,
        "chant": s.chant,
        "strictness": s.strictness,
        "recognizer": s.recognizer,
        "model": str(s.model) if s.model is not None else None,
        "device": s.input_device,
        "voice": s.narrator_voice,
        "rate": s.narrator_rate,
        "verbosity": s.verbosity,
        "lang": s.language,
        "knock": s.knock,
    }
    for name, value in defaults.items():
        if hasattr(args, name) and getattr(args, name) in (None, []):
            setattr(args, name, value)
    return args
