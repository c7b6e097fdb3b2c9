"""Random command lines never give a traceback: argparse's parser for every command, and ``main`` for
every command that can run in a moment.

The words are drawn from each command's own options, sub-actions and choices, mixed with values that
have broken things before: long strings (paths of 10,000 characters stopped 11 commands), Unicode text
and digits ("٣", "²"), empty and blank strings, numbers (nan, 31 and 5,000 digits, negatives,
decimals), control characters, surrogates and devices. Runs are derandomized and bounded, so CI sees
the same examples every time. ``main`` runs only what cannot start a recognizer, a microphone, a
server or a download: the games silent, with nothing on their input, so that they end at once.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from voice_earl.commands.cli import COMMANDS, build_parser, main

PARSER = build_parser()  # every command configured
LONG = ["a" * 10_000, "a" * 256 + ".toml", "x/" * 2100, "é" * 2100, "Zoë" * 100]
NASTY = [
    "²",
    "٣",
    "nan",
    "inf",
    "-inf",
    "-1",
    "0",
    "1",
    "3",
    "7",
    "1" + "0" * 30,
    "9" * 5000,
    "",
    " ",
    "\t",
    "\x00",
    "\x1b[2J",
    "\udcff",
    "--",
    "-",
    "Q",
    "K",
    "jokers",
    "1,2",
    "/dev/zero",
    "x.toml",
    "Zoë",
    "a" * 300,
    "/",
    ".",
    "..",
    "--help=x",
    "-v",
]
# main() runs these; each finishes quickly, touches only the test's own data folders and never goes online.
CHEAP = ("rules", "simulate", "stats", "models", "history", "config")
NEVER = {"fetch", "install"}  # models actions that download or unpack
# ... and these games, silent and with nothing to read, so that they end at once (a recognizer takes seconds).
QUIET_GAMES = {"play": ["--silent", "--no-voice"], "practice": ["--silent", "--no-voice"], "drill": ["--typed"]}
NEVER_IN_GAMES = {"--phones", "--host", "--port", "--resume"}  # a server on the network, a name looked up


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def _words(parser: argparse.ArgumentParser) -> Iterator[str]:
    """Every option, choice and sub-action that ``parser`` and its sub-parsers know."""
    for action in parser._actions:
        yield from action.option_strings
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name
                yield from _words(sub)
        elif action.choices is not None:
            yield from (str(choice) for choice in action.choices)


WORDS = {name: sorted(set(_words(sub))) for name, sub in _subparsers(PARSER).items()}


NUMBERS = st.one_of(
    st.integers(-3, 40).map(str),  # small enough for every count: no run of a million deals
    st.integers(10**12, 10**40).map(str),  # out of every range
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.text(st.characters(categories=["Nd", "No"]), min_size=1, max_size=4),  # other scripts' digits
)
VALUES = st.one_of(
    st.sampled_from(NASTY),
    NUMBERS,
    st.text(max_size=6),
    st.text(st.characters(codec="utf-8", exclude_characters="/"), min_size=1, max_size=40),  # Unicode
    st.sampled_from(["", " ", "\u3000"]),  # empty and blank
    st.sampled_from(LONG),
)


def _arguments(parser: argparse.ArgumentParser, banned: frozenset[str]) -> st.SearchStrategy[list[str]]:
    """Options with values of their kind (a choice, a number, nonsense), positionals, then a sub-action."""

    def option(action: argparse.Action) -> st.SearchStrategy[list[str]]:
        flag = st.sampled_from(action.option_strings)
        if action.nargs == 0:
            return flag.map(lambda name: [name])
        choices = [str(choice) for choice in action.choices or ()]
        value = st.one_of(st.sampled_from(choices), VALUES) if choices else VALUES
        most = 3 if action.nargs in ("+", "*") else 1
        return st.tuples(flag, st.lists(value, min_size=1, max_size=most)).map(lambda pair: [pair[0], *pair[1]])

    quiet = (argparse._HelpAction, argparse._VersionAction)
    optionals = [a for a in parser._actions if a.option_strings and not isinstance(a, quiet)]
    positionals = [a for a in parser._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]
    options = st.lists(st.one_of(*map(option, optionals)), max_size=5) if optionals else st.just([])
    words = st.tuples(
        options.map(lambda parts: [word for part in parts for word in part]),
        st.lists(VALUES, max_size=len(positionals) + 1) if positionals else st.just([]),
    )
    flat = words.map(lambda pair: [*pair[0], *pair[1]])
    subs = {name: sub for name, sub in _subparsers(parser).items() if name not in banned}
    if not subs:
        return flat
    return st.tuples(
        flat,
        st.sampled_from(sorted(subs)).flatmap(
            lambda name: _arguments(subs[name], banned).map(lambda rest: [name, *rest])
        ),
    ).map(lambda pair: [*pair[0], *pair[1]])


def argv_for(commands: tuple[str, ...], banned: frozenset[str] = frozenset()) -> st.SearchStrategy[list[str]]:
    """A command, then either well-formed options with odd values or a jumble of its words and nonsense."""
    commands_parsers = _subparsers(PARSER)

    def rest(command: str) -> st.SearchStrategy[list[str]]:
        jumble = st.lists(
            st.one_of(st.sampled_from([w for w in WORDS[command] if w not in banned]), VALUES), max_size=7
        )
        return st.one_of(_arguments(commands_parsers[command], banned), jumble).map(lambda words: [command, *words])

    return st.sampled_from(commands).flatmap(rest)


def anywhere_outside(argv: list[str]) -> bool:
    """Whether ``argv`` names a file outside the test's folder (this may run as root: never write there)."""
    return any(word.startswith(("/", "~")) and word not in ("/", "/dev/zero") for word in argv)


def test_every_command_is_fuzzed() -> None:
    assert set(WORDS) == set(COMMANDS)
    assert "--remind-after" in WORDS["play"] and "list" in WORDS["models"] and "--lang" in WORDS["rules"]


@pytest.mark.slow
@settings(max_examples=600, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv_for(tuple(COMMANDS)))
def test_the_parser_of_every_command_refuses_or_accepts_never_crashes(argv: list[str]) -> None:
    try:
        PARSER.parse_args(argv)
    except SystemExit as stopped:
        assert stopped.code in (0, 2)  # --help / --version, or one line and status 2


@pytest.fixture
def quiet_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))  # where --plot or --out would write


@pytest.mark.slow
@settings(
    max_examples=250,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=argv_for(CHEAP, banned=frozenset(NEVER)))
def test_cheap_commands_run_on_random_arguments_without_a_traceback(
    argv: list[str], quiet_terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    if NEVER & set(argv) or anywhere_outside(argv):
        return  # random text may spell a banned action: never download or install here
    try:
        status = main(argv)
    except SystemExit as stopped:
        status = stopped.code
    err = capsys.readouterr().err
    event(f"{argv[0]} exit {status}")
    assert isinstance(status, int) and status in (0, 1, 2), (argv, err)
    assert "Traceback" not in err


@pytest.mark.slow
@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=argv_for(tuple(QUIET_GAMES), banned=frozenset(NEVER_IN_GAMES)))
def test_games_run_on_random_arguments_without_a_traceback(
    argv: list[str], quiet_terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    if NEVER_IN_GAMES & set(argv) or anywhere_outside(argv):
        return
    argv = [*argv, *QUIET_GAMES[argv[0]]]  # after "--" these are words, and refused: still no traceback
    try:
        status = main(argv)
    except SystemExit as stopped:
        status = stopped.code
    err = capsys.readouterr().err
    event(f"{argv[0]} exit {status}")
    assert isinstance(status, int) and status in (0, 1, 2), (argv, err)
    assert "Traceback" not in err
