"""The ``voice-earl`` command line.

Each subcommand lives in ``voice_earl/commands/<name>.py`` and provides ``configure(parser)``,
``run(args) -> int`` and optionally ``EXAMPLES``; its one-line help is in ``COMMANDS`` here. Only the
command being run is imported, and heavy imports (recognizers, audio, the table) belong inside
``run``, so that ``--help`` and argument errors stay instant.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import io
import os
import sys
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import NoReturn

from voice_earl import __version__
from voice_earl.errors import VoiceEarlError

# Each command's one-line help, in the order --help lists them. Its module is imported only when it
# is the command being run (or its --help is asked for), so that `voice-earl --help` stays instant.
COMMANDS = {
    "play": "play a series at the table: the laptop listens, judges and narrates",
    "practice": "practise against bots: your hand on screen, you recite, bots answer aloud",
    "drill": "practise the four formulas alone: a random position and rank, you recite, it scores",
    "demo": "watch bots play a deal by voice: synthesized formulas go through the real recognizer",
    "simulate": "play bot games and print the game log (--jsonl) or a summary",
    "hear": "recognise formulas in WAV files or from the microphone and show the verdicts",
    "models": "list, check, fetch and install vosk speech models",
    "stats": "accuracy and speed per formula and rank, common slips, and the trend over time",
    "history": "list past series; 'show ID' for its deals, 'export ID' for its game log",
    "config": "show or change the default settings (config.toml)",
    "doctor": "check microphone, speakers, speech engines and models, and say what to fix",
    "rules": "print the rules (--lang nl|it for Dutch or Italian, --rulings for the rulings)",
}


class OneLineParser(argparse.ArgumentParser):
    """Argument errors are one clear line on stderr and exit status 2, never a usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _command_module(name: str) -> ModuleType:
    return importlib.import_module(f"voice_earl.commands.{name}")


def build_parser(configured: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; ``configured`` limits which commands get their options (None: all of them)."""
    parser = OneLineParser(
        prog="voice-earl",
        description="Earl of Coventry, played by voice around one laptop.",
        epilog="Run 'voice-earl COMMAND --help' for each command's options.",
    )
    parser.add_argument("--version", action="version", version=f"voice-earl {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="also show the log on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    wanted = set(COMMANDS if configured is None else configured)
    for name, help_line in COMMANDS.items():
        command = sub.add_parser(
            name, help=help_line, description=help_line, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        command.set_defaults(command_parser=command)  # the command's own help names what it takes
        if name in wanted:
            module = _command_module(name)
            command.epilog = getattr(module, "EXAMPLES", None)
            module.configure(command)
    return parser


def _command_named(argv: Sequence[str]) -> list[str]:
    """The command that ``argv`` runs, if any: the first word that is not an option."""
    first = next((word for word in argv if not word.startswith("-")), None)
    return [first] if first in COMMANDS else []


def _text_streams() -> None:
    """Output the terminal cannot show (a file name in another encoding, a card suit in a Latin-1 locale)
    is written as an escape, never a crash. Typed bytes that are no text in the locale read as "�", not as
    escapes a player never typed."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")


# Output that cannot be written: the disk (or the quota) is full, the file too big, the device failing.
_CANNOT_WRITE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def main(argv: Sequence[str] | None = None) -> int:
    _text_streams()
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(configured=_command_named(words))
    args, unknown = parser.parse_known_args(words)
    if unknown:  # said by the command's parser, which names the command and its help
        getattr(args, "command_parser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help()
        return 0
    from voice_earl.keep.logs import configure_logging

    configure_logging(verbose=args.verbose)
    try:
        result: int = _command_module(args.command).run(args)
        sys.stdout.flush()  # a full disk says so here, not in a traceback at exit
        return result
    except VoiceEarlError as error:
        print(f"voice-earl {args.command}: {error}", file=sys.stderr)
        return error.exit_code
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, without a second error at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:
        if error.errno not in _CANNOT_WRITE:
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # what is left unwritten goes nowhere
        print(f"voice-earl {args.command}: cannot write the output: {error.strerror}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nvoice-earl {args.command}: interrupted", file=sys.stderr)
        return 130
