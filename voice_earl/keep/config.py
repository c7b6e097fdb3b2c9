"""The settings file (``config.toml`` in the user config directory) and how flags override it.

Precedence: built-in defaults < the config file < command-line flags. A bad value or an
unknown key in the file is reported as a problem and skipped; every other key still loads.
Writing the file is in :mod:`voice_earl.keep.config_write`.

>>> settings = Settings()
>>> settings.profile, settings.narrator_rate
('hoyle', 175)
>>> with_flags(settings, {"profile": "parlour", "deck": None}).profile
'parlour'
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import logging
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.keep.chant_files import chant_set
from voice_earl.keep.toml_text import toml_value
from voice_earl.names import is_printable_name
from voice_earl.paths import config_dir, path_problem, shown_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

log = logging.getLogger(__name__)

Profile = Literal["hoyle", "parlour"]
Deck = Literal["physical", "virtual"]
Strictness = Literal["lenient", "normal", "strict"]
Recognizer = Literal["auto", "vosk", "pocketsphinx"]
Verbosity = Literal["quiet", "normal", "chatty"]
Language = Literal["en", "nl", "it"]

# Words per minute: espeak-ng's range and default, as voice_earl.table.speech has them (a test keeps them equal).
MIN_RATE, MAX_RATE, DEFAULT_RATE = 80, 450, 175
MAX_PLAYERS = 13  # the largest table any profile allows (parlour)
# Off: the knock detector's false passes were measured above the goal of 0.5% (README, Listening).
KNOCK_BY_DEFAULT = False


@dataclass(frozen=True)
class Settings:
    """Every setting with its built-in default. Flags are matched by field name or a key's alias."""

    players: tuple[str, ...] = ()  # empty: ask for names at the start
    profile: Profile = "hoyle"
    deck: Deck = "physical"  # as `voice-earl play` has it
    chant: str = "earl"  # a built-in chant set name or the path of a .toml chant file
    strictness: Strictness = "normal"
    recognizer: Recognizer = "auto"
    model: Path | None = None  # None: discover a model
    input_device: int | str | None = None  # None: the system default input
    narrator_voice: str | None = None  # None: the engine's voice for the language
    narrator_rate: int = DEFAULT_RATE
    verbosity: Verbosity = "normal"
    language: Language = "en"
    knock: bool = KNOCK_BY_DEFAULT  # a knock on the table passes (positions 2-4), as saying "pass" does


@dataclass(frozen=True)
class LoadedSettings:
    """Settings as loaded from the file, with every problem found (each one line)."""

    settings: Settings
    problems: list[str]
    path: Path
    from_file: frozenset[str] = frozenset()  # dotted keys whose value came from the file


class InvalidValue(ValueError):
    """A value a key does not allow; the message says what is allowed."""


def _choice(*allowed: str) -> Callable[[object], object]:
    def parse(value: object) -> object:
        if isinstance(value, str) and value in allowed:
            return value
        raise InvalidValue(f"allowed: {', '.join(allowed)}")

    return parse


def _players(value: object) -> object:
    """Two or more different names (or none: the game asks), as a list or one comma-separated text."""
    rule = f"2 to {MAX_PLAYERS} different names, one value each: players Ann Ben Cy"
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple) or not all(isinstance(name, str) for name in value):
        raise InvalidValue(f"allowed: {rule}")
    names = tuple(name.strip() for name in value)
    if names == ("",):
        return ()
    if "" in names:
        raise InvalidValue(f"a name is empty; allowed: {rule}")
    for name in names:
        if not is_printable_name(name):
            raise InvalidValue(f"{name!r} holds a control character; allowed: {rule}")
    folded = [name.casefold() for name in names]
    twice = next((name for name, fold in zip(names, folded, strict=True) if folded.count(fold) > 1), None)
    if twice is not None:
        raise InvalidValue(f"{twice} is named twice; allowed: {rule}")
    if len(names) == 1:
        what = "one name: give each name as its own value" if " " in names[0] else "only one name"
        raise InvalidValue(f"{what}; allowed: {rule}")
    if len(names) > MAX_PLAYERS:
        raise InvalidValue(f"{len(names)} names; allowed: {rule}")
    return names


def _whole_number(value: object) -> int | None:
    """An int from the file, or a text of ASCII digits (``str.isdigit`` takes "²", which ``int`` refuses)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.fullmatch(r"\s*[0-9]+\s*", value):
        return int(value)
    return None


def _chant(value: object) -> object:
    if not isinstance(value, str) or not value.strip():
        raise InvalidValue("allowed: earl, snip-snap-snorum, or the path of a .toml chant file")
    text = value.strip()
    try:
        chant_set(os.path.expanduser(text))
    except VoiceEarlError as error:
        raise InvalidValue(str(error)) from None
    return text


def _model(value: object) -> object:
    if not isinstance(value, str | Path) or not str(value).strip():
        raise InvalidValue("allowed: the path of a model directory")
    text = os.path.expanduser(str(value).strip())
    problem = path_problem(text)
    if problem is not None:
        raise InvalidValue(f"allowed: the path of a model directory ({shown_path(text)!r}: {problem})")
    path = Path(text)
    if not path.is_dir():
        raise InvalidValue("allowed: the path of an existing model directory")
    return path


def _input_device(value: object) -> object:
    index = _whole_number(value)
    if index is not None and index >= 0:
        return index
    text = value.strip() if isinstance(value, str) else ""
    if text and not text.isnumeric():  # a name; "²" or "-1" is no device
        return text
    raise InvalidValue("allowed: a device index (0, 1, ...) or part of a device name")


def _voice(value: object) -> object:
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise InvalidValue("allowed: a voice id or name (see 'voice-earl doctor')")


def _switch(value: object) -> object:
    """A TOML boolean, or on/off (true/false, yes/no) as typed after `config set`."""
    if isinstance(value, bool):
        return value
    text = value.strip().lower() if isinstance(value, str) else ""
    if text in ("on", "true", "yes"):
        return True
    if text in ("off", "false", "no"):
        return False
    raise InvalidValue("allowed: true or false (on or off)")


def _rate(value: object) -> object:
    rate = _whole_number(value)
    if rate is not None and MIN_RATE <= rate <= MAX_RATE:
        return rate
    raise InvalidValue(f"allowed: a whole number of words per minute from {MIN_RATE} to {MAX_RATE}")


@dataclass(frozen=True)
class Key:
    """One setting as the file spells it: ``table.name`` or a top-level ``name``."""

    name: str  # dotted, as ``voice-earl config set`` takes it
    field: str  # the Settings field
    parse: Callable[[object], object]  # file, flag or command-line text -> Settings value
    alias: str | None = None  # the argparse dest of the table commands' flag, when it is not ``field``

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.name.split("."))


KEYS: tuple[Key, ...] = (
    Key("players", "players", _players),
    Key("profile", "profile", _choice("hoyle", "parlour")),
    Key("deck", "deck", _choice("physical", "virtual")),
    Key("chant", "chant", _chant),
    Key("strictness", "strictness", _choice("lenient", "normal", "strict")),
    Key("recognizer", "recognizer", _choice("auto", "vosk", "pocketsphinx")),
    Key("model", "model", _model),
    Key("input_device", "input_device", _input_device, alias="device"),
    Key("verbosity", "verbosity", _choice("quiet", "normal", "chatty")),
    Key("language", "language", _choice("en", "nl", "it")),
    Key("narrator.voice", "narrator_voice", _voice, alias="voice"),
    Key("narrator.rate", "narrator_rate", _rate, alias="rate"),
    Key("knock", "knock", _switch),
)
KEYS_BY_NAME: dict[str, Key] = {key.name: key for key in KEYS}
KEYS_BY_FIELD: dict[str, Key] = {key.field: key for key in KEYS}
KEYS_BY_DEST: dict[str, Key] = {**KEYS_BY_FIELD, **{key.alias: key for key in KEYS if key.alias}}


def config_path() -> Path:
    return config_dir() / "config.toml"


def find_key(name: str) -> Key:
    """The key called ``name``, or a UsageError listing the known keys."""
    try:
        return KEYS_BY_NAME[name]
    except KeyError:
        raise UsageError(unknown_key_message(name)) from None


def unknown_key_message(name: str) -> str:
    close = difflib.get_close_matches(name, KEYS_BY_NAME, n=1)
    hint = f" - did you mean {close[0]}?" if close else ""
    return f"unknown key {toml_value(name)}{hint} (known keys: {', '.join(KEYS_BY_NAME)})"


def invalid_value_message(key: str, value: object, error: InvalidValue) -> str:
    shown = toml_value(value)
    if len(shown) > 80:  # a value of thousands of characters would fill the screen
        shown = shown[:70] + "…" + shown[-5:]
    return f"invalid value for {key}: {shown} ({error})"


def parse_value(key: Key, value: object) -> object:
    """The Settings value for ``value``, or a UsageError naming the key, the value and what is allowed."""
    try:
        return key.parse(value)
    except InvalidValue as error:
        raise UsageError(invalid_value_message(key.name, value, error)) from None
    except (TypeError, ValueError) as error:  # a parser's own mistake must not stop the game
        log.warning("%s: %r could not be checked", key.name, value, exc_info=True)
        raise UsageError(invalid_value_message(key.name, value, InvalidValue(str(error)))) from None


# ---- reading ---------------------------------------------------------------------------------


def read_text(path: Path) -> str | None:
    """The file's text (None when there is no file); a UTF-8 byte-order mark at its start is dropped."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise VoiceEarlError(f"{path}: cannot read the config file ({error})") from None


def read_table(path: Path) -> dict[str, object]:
    """The file's TOML table ({} when there is no file), or a VoiceEarlError naming the line."""
    text = read_text(path)
    return {} if text is None else table_of(path, text)


def table_of(path: Path, text: str) -> dict[str, object]:
    """``text``, read from ``path``, as a TOML table, or a VoiceEarlError naming the line."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise VoiceEarlError(f"{path}: not valid TOML: {error}{_quote_line(text, str(error))}") from None
    except RecursionError:  # the parser recurses once a level: a thousand brackets run out of stack
        raise VoiceEarlError(f"{path}: not valid TOML: a value is nested too deep to read") from None


def _quote_line(text: str, message: str) -> str:
    """The offending line, so the message shows what to fix."""
    lines = text.splitlines()
    found = re.search(r"at line (\d+)", message)
    if found is not None and 1 <= int(found[1]) <= len(lines):
        return f": {lines[int(found[1]) - 1].strip()!r}"
    if "end of document" in message and lines:
        last = lines[-1].strip()
        return f": something opened before line {len(lines)} (the last line, {last!r}) is never closed"
    return ""


def flatten(table: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    """Dotted names for every value; known tables such as ``narrator`` are opened up.

    >>> flatten({"profile": "hoyle", "narrator": {"rate": 150}})
    {'profile': 'hoyle', 'narrator.rate': 150}
    """
    tables = {key.path[0] for key in KEYS if len(key.path) > 1}
    flat: dict[str, object] = {}
    for name, value in table.items():
        dotted = f"{prefix}{name}"
        if isinstance(value, dict) and not prefix and name in tables:
            flat.update(flatten(value, prefix=f"{dotted}."))
        else:
            flat[dotted] = value
    return flat


def load_settings(path: Path | None = None) -> LoadedSettings:
    """Defaults overlaid with every valid key of the config file; problems are listed, never raised."""
    path = config_path() if path is None else path
    try:
        table = read_table(path)
    except VoiceEarlError as error:
        problem = f"{error}; using the defaults until it is fixed"
        log.warning(problem)
        return LoadedSettings(Settings(), [problem], path)
    values: dict[str, object] = {}
    problems: list[str] = []
    for name, value in flatten(table).items():
        key = KEYS_BY_NAME.get(name)
        try:
            if key is None:
                raise UsageError(unknown_key_message(name))
            values[key.field] = parse_value(key, value)
        except UsageError as error:
            problems.append(f"{path}: {error}")
    for problem in problems:
        log.warning(problem)
    from_file = frozenset(KEYS_BY_FIELD[name].name for name in values)
    return LoadedSettings(dataclasses.replace(Settings(), **values), problems, path, from_file)  # type: ignore[arg-type]


def with_flags(settings: Settings, flags: argparse.Namespace | Mapping[str, object]) -> Settings:
    """``settings`` with every flag that was given (not None) laid over it.

    Flags are matched by their argparse dest: the Settings field name (``--narrator-rate`` ->
    ``narrator_rate``) or the key's alias (``--rate``, ``--voice``, ``--device``). Other
    attributes are ignored.
    """
    given = vars(flags) if isinstance(flags, argparse.Namespace) else dict(flags)
    changes: dict[str, object] = {}
    for dest, value in given.items():
        key = KEYS_BY_DEST.get(dest)
        if key is None or value is None:
            continue
        try:
            changes[key.field] = key.parse(value)
        except ValueError as error:  # InvalidValue, or a parser's own mistake: never a traceback
            flag = "--" + dest.replace("_", "-")
            raise UsageError(f"invalid value for {flag}: {value!r} ({error})") from None
    return dataclasses.replace(settings, **changes)  # type: ignore[arg-type]


def effective_settings(flags: argparse.Namespace | Mapping[str, object]) -> LoadedSettings:
    """Defaults < config file < flags: what a command runs with, and the file's problems to show."""
    loaded = load_settings()
    return dataclasses.replace(loaded, settings=with_flags(loaded.settings, flags))


# ---- flags -----------------------------------------------------------------------------------


def add_setting_flags(parser: argparse.ArgumentParser, *fields: str) -> None:
    """Add ``--FIELD`` options for these Settings fields (default None: the config file's value stands)."""
    for name in fields:
        key = KEYS_BY_FIELD[name]
        flag = "--" + name.replace("_", "-")
        help_text = f"overrides '{key.name}' in the config file"
        if name == "players":
            parser.add_argument(flag, dest=name, nargs="+", metavar="NAME", default=None, help=help_text)
        else:
            parser.add_argument(flag, dest=name, default=None, help=help_text)
