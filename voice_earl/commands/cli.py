"""The ``voice-earl`` command line.

Each subcommand lives in ``voice_earl/commands/<name>.py`` and provides ``HELP`` (one line),
``configure(parser)`` and ``run(args) -> int``. Heavy imports (recognizers, audio) belong
inside ``run`` so that ``--help`` and argument errors stay instant.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from voice_earl import __version__
from voice_earl.errors import VoiceEarlError

COMMANDS = (
    "play",
    "practice",
    "drill",
    "demo",
    "simulate",
    "hear",
    "models",
    "stats",
    "history",
    "config",
    "doctor",
)


class OneLineParser(argparse.ArgumentParser):
    """Argument errors are one clear line on stderr and exit status 2, never a usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _command_module(name: str) -> ModuleType:
    return importlib.import_module(f"voice_earl.commands.{name}")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="voice-earl",
        description="Earl of Coventry, played by voice around one laptop.",
        epilog="Run 'voice-earl COMMAND --help' for each command's options.",
    )
    parser.add_argument("--version", action="version", version=f"voice-earl {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="also show the log on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for name in COMMANDS:
        module = _command_module(name)
        command = sub.add_parser(
            name,
            help=module.HELP,
            description=module.HELP,
            epilog=getattr(module, "EXAMPLES", None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.configure(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    from voice_earl.keep.logs import configure_logging

    configure_logging(verbose=args.verbose)
    try:
        result: int = _command_module(args.command).run(args)
        return result
    except VoiceEarlError as error:
        print(f"voice-earl {args.command}: {error}", file=sys.stderr)
        return error.exit_code
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, without a second error at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"\nvoice-earl {args.command}: interrupted", file=sys.stderr)
        return 130
