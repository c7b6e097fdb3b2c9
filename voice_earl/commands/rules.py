"""`voice-earl rules`: print the rules of a profile, or the project's rulings.

The texts are package data in ``voice_earl/docs/rules/`` (``docs/rules`` in the repository links
there), so an installed voice-earl prints the same texts a clone shows.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
from importlib.resources import files

from voice_earl.errors import UsageError

EXAMPLES = """examples:
  voice-earl rules                    the default profile, hoyle (English)
  voice-earl rules --lang nl          the parlour rules in Dutch
  voice-earl rules --profile parlour  the parlour rules and their variants
  voice-earl rules --rulings          how this game settles what the texts leave open"""

# Which text holds each profile's rules, per language (the hoyle text exists in English only).
TEXTS = {
    ("hoyle", "en"): "hoyle-profile.en.txt",
    ("parlour", "en"): "parlour-rules.en.txt",
    ("parlour", "nl"): "parlour-rules.nl.txt",
    ("parlour", "it"): "parlour-rules.it.txt",
}
RULINGS = "README.md"
LANGUAGES = ("en", "nl", "it")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default="en",
        help="en (default), nl or it; the Dutch and Italian texts are the parlour rules",
    )
    parser.add_argument(
        "--profile",
        choices=("hoyle", "parlour"),
        default=None,
        help="whose rules: hoyle (the default profile) or parlour (default with --lang nl|it)",
    )
    parser.add_argument(
        "--rulings", action="store_true", help="the rulings where the texts leave a point open (English)"
    )


def run(args: argparse.Namespace) -> int:
    name = rules_file(args.lang, args.profile, rulings=args.rulings)
    text = rules_text(name)
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    print(text if width is None else _wrapped(text, width), end="" if text.endswith("\n") else "\n")
    if not args.rulings:
        print("\n(Where the texts leave a point open: voice-earl rules --rulings)")
    return 0


def rules_file(lang: str, profile: str | None, *, rulings: bool = False) -> str:
    """The file name of the text asked for; a combination with no text is a usage error."""
    if rulings:
        if profile is not None or lang != "en":
            raise UsageError(
                "the rulings are written in English only and cover both profiles: voice-earl rules --rulings"
            )
        return RULINGS
    chosen = profile or ("hoyle" if lang == "en" else "parlour")
    try:
        return TEXTS[(chosen, lang)]
    except KeyError:
        raise UsageError(
            f"the {chosen} rules are written in English only: voice-earl rules --profile {chosen}"
        ) from None


def rules_text(name: str) -> str:
    return (files("voice_earl") / "docs" / "rules" / name).read_text(encoding="utf-8")


def _wrapped(text: str, width: int) -> str:
    """Long paragraphs wrapped at word boundaries to the terminal, the rest as it is."""
    return "\n".join(textwrap.fill(line, width) if len(line) > width else line for line in text.splitlines()) + "\n"
