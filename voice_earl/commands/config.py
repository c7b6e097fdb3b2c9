"""`voice-earl config`: where the settings file is, what it holds, and changing it."""

from __future__ import annotations

import argparse
import sys

from voice_earl.keep import config, config_write
from voice_earl.keep.config import KEYS, LoadedSettings
from voice_earl.keep.toml_text import toml_value

KEY_HELP = (
    "keys: players (names, one value each: 'config set players Ann Ben \"Mary Jo\"'; or one value with commas: "
    "'config set players \"Ann, Ben, Cy\"'), profile (hoyle|parlour), deck (physical|virtual), "
    "chant (earl|snip-snap-snorum|path.toml), strictness (lenient|normal|strict), "
    "recognizer (auto|vosk|pocketsphinx), model (path), input_device (index or name), "
    "verbosity (quiet|normal|chatty), language (en|nl|it), narrator.voice, narrator.rate (80-450 words per minute)"
)


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("path", help="print where the config file is")
    actions.add_parser("show", help="print every setting and where it comes from")
    set_parser = actions.add_parser("set", help="set KEY to VALUE", epilog=KEY_HELP)
    set_parser.add_argument("key", metavar="KEY", help="a dotted key such as profile or narrator.rate")
    set_parser.add_argument(
        "value",
        metavar="VALUE",
        nargs="+",
        help="the new value; players takes several, one name each (quote a name with spaces)",
    )
    unset_parser = actions.add_parser("unset", help="remove KEY so its default applies", epilog=KEY_HELP)
    unset_parser.add_argument("key", metavar="KEY")


def run(args: argparse.Namespace) -> int:
    path = config.config_path()
    if args.action == "path":
        print(path)
    elif args.action == "show":
        _show(config.load_settings())
    elif args.action == "set":
        if args.key == "narrator.voice":
            from voice_earl.table.speech_synth import check_variant

            check_variant(" ".join(args.value))  # where it is typed, not when the narrator first speaks
        stored = config_write.set_value(args.key, args.value)
        print(f"{args.key} = {toml_value(stored)}  (saved in {path})")
    else:
        if config_write.unset_value(args.key):
            print(f"{args.key} removed: its default applies  ({path})")
        else:
            print(f"{args.key} was not set: its default applies")
    return 0


def _show(loaded: LoadedSettings) -> None:
    if loaded.path.exists():
        state = ""
    elif loaded.problems:  # a file where its folder should be: there, but unreadable, as the warning says
        state = " (cannot be read: every value is a default, see the warning below)"
    else:
        state = " (not created yet: every value is a default)"
    print(f"# {loaded.path}{state}")
    for key in KEYS:
        value = getattr(loaded.settings, key.field)
        origin = "from the config file" if key.name in loaded.from_file else "default"
        text = "(not set)" if value is None else toml_value(value)
        print(f"{key.name + ' = ' + text:<44} # {origin}")
    for problem in loaded.problems:
        print(f"warning: {problem}", file=sys.stderr)
