"""Chant sets by name, or read from a custom TOML wording.

>>> chant_set("earl").name
'earl'
"""

from __future__ import annotations

import sys
from pathlib import Path

from voice_earl.errors import UsageError
from voice_earl.game.chants import BUILTIN, ChantSet
from voice_earl.paths import UnreadableFile, path_problem, read_regular_file, shown_path
from voice_earl.words.context import OWN_PASS_WORDS, PASS_WORDS, SPOKEN_COMMANDS
from voice_earl.words.text import template_words

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MAX_FILE_BYTES = 64 * 1024
MAX_LINE_WORDS = 30  # the formulas have 6 to 8; a line must be something a player can say in one breath
# A chant file is the same whatever the table's language: every language's pass word is kept free.
RESERVED = (*PASS_WORDS, *(word for words in OWN_PASS_WORDS.values() for word in words), *SPOKEN_COMMANDS)


def chant_set(name_or_path: str) -> ChantSet:
    """A built-in chant set by name, or a custom one from a TOML file path."""
    if name_or_path in BUILTIN:
        return BUILTIN[name_or_path]
    problem = path_problem(name_or_path)
    if problem is not None:
        raise UsageError(f"{shown_path(name_or_path)!r} is no chant set nor a chant file: {problem}")
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        return load_chant_file(path)
    known = ", ".join(sorted(BUILTIN))
    raise UsageError(f"unknown chant set {name_or_path!r}: use one of {known}, or a path to a .toml file")


def load_chant_file(path: Path) -> ChantSet:
    """Load a custom wording (Hiccup / Earl's Court, or another language).

    The file holds ``name`` (optional) and ``lines``: a list of four strings, where
    ``{rank}`` stands for the rank's word. ``alternates`` (optional) is a table from
    position ("1".."4") to a list of other accepted wordings.
    """
    try:
        text = read_regular_file(path, MAX_FILE_BYTES).decode("utf-8-sig")
        data = tomllib.loads(text)
    except UnreadableFile as error:
        message = str(error)
        raise UsageError(message.replace("no such file", "no such chant file")) from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text; save the chant file as UTF-8") from None
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path}: not valid TOML ({error})") from None
    except RecursionError:
        raise UsageError(f"{path}: not valid TOML (a value is nested too deep to read)") from None
    chant = chant_from_table(str(path), data, path.stem)
    _check_sayable(path, chant)
    return chant


def chant_from_table(path: str, data: dict[str, object], default_name: str = "custom") -> ChantSet:
    """A chant set from its table (a chant file's, or one saved with a series); ``path`` names it in errors."""
    name = data.get("name", default_name)
    lines = data.get("lines")
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"{path}: 'name' must be a non-empty string")
    if not isinstance(lines, list) or len(lines) != 4 or not all(isinstance(x, str) and x.strip() for x in lines):
        raise UsageError(f"{path}: 'lines' must be a list of exactly four non-empty strings")
    if "{rank}" not in lines[0]:
        raise UsageError(f"{path}: the first line (the lead) must contain {{rank}}, so the lead names its rank")
    unknown = set(data) - {"name", "lines", "alternates"}
    if unknown:
        raise UsageError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}: allowed are name, lines, alternates")
    alternates: list[tuple[str, ...]] = [(), (), (), ()]
    table = data.get("alternates", {})
    if not isinstance(table, dict):
        raise UsageError(f"{path}: 'alternates' must be a table such as alternates.1 = [\"...\"]")
    for key, texts in table.items():
        if key not in {"1", "2", "3", "4"}:
            raise UsageError(f"{path}: alternates key {key!r} must be a position 1-4")
        if not isinstance(texts, list) or not all(isinstance(x, str) and x.strip() for x in texts):
            raise UsageError(f"{path}: alternates.{key} must be a list of non-empty strings")
        alternates[int(key) - 1] = tuple(texts)
    return ChantSet(name=name.strip(), lines=(lines[0], lines[1], lines[2], lines[3]), alternates=tuple(alternates))


def _check_sayable(path: Path, chant: ChantSet) -> None:
    """Every wording must be heard as itself: words left once normalised, not a command, one per position.

    Wordings are compared as the listener hears them (:func:`template_words`): "There's" and
    "there is" are the same, and so are two wordings that differ only in punctuation.
    """
    owner: dict[tuple[str, ...], int] = {}
    for position, (line, alternates) in enumerate(zip(chant.lines, chant.alternates, strict=True), start=1):
        for text in (line, *alternates):
            words = template_words(text)
            where = f"{path}: the wording {_short(text)!r} for position {position}"
            if not words:
                raise UsageError(f"{where} has no words a recognizer can hear")
            if len(words) > MAX_LINE_WORDS:
                raise UsageError(f"{where} has {len(words)} words; at most {MAX_LINE_WORDS} are allowed")
            if " ".join(words) in RESERVED:
                raise UsageError(f"{where} is a word the table listens for ({', '.join(RESERVED)}); choose another")
            other = owner.setdefault(words, position)
            if other != position:
                raise UsageError(f"{where} sounds the same as position {other}'s: each position needs its own words")


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."
