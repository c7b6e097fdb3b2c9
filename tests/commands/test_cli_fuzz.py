"""Random command lines never give a traceback: argparse's parser for every command, and ``main`` for cheap ones.

The words are drawn from each command's own options, sub-actions and choices, mixed with values that
have broken things before (Unicode digits, nan, 31-digit numbers, control characters, surrogates,
devices) and random text. Runs are derandomized and bounded, so CI sees the same examples every time.
``main`` runs only commands that cannot start a game, a recognizer or a download.
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
NASTY = ["²", "٣", "nan", "inf", "-inf", "-1", "0", "1", "3", "7", "1" + "0" * 30, "9" * 5000, "", " ", "\t",
         "\x00", "\x1b[2J", "\udcff", "--", "-", "Q", "K", "jokers", "1,2", "/dev/zero", "x.toml", "Zoë", "a" * 300,
         "/", ".", "..", "--help=x", "-v"]
# main() runs these; each finishes quickly, touches only the test's own data folders and never goes online.
CHEAP = ("rules", "simulate", "stats", "models")
NEVER = {"fetch", "install"}  # models actions that download or unpack


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


VALUES = st.one_of(st.sampled_from(NASTY), st.integers(-3, 40).map(str), st.text(max_size=6))


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
    words = st.tuples(options.map(lambda parts: [word for part in parts for word in part]),
                      st.lists(VALUES, max_size=len(positionals) + 1) if positionals else st.just([]))
    flat = words.map(lambda pair: [*pair[0], *pair[1]])
    subs = {name: sub for name, sub in _subparsers(parser).items() if name not in banned}
    if not subs:
        return flat
    return st.tuples(flat, st.sampled_from(sorted(subs)).flatmap(
        lambda name: _arguments(subs[name], banned).map(lambda rest: [name, *rest])
    )).map(lambda pair: [*pair[0], *pair[1]])


def argv_for(commands: tuple[str, ...], banned: frozenset[str] = frozenset()) -> st.SearchStrategy[list[str]]:
    """A command, then either well-formed options with odd values or a jumble of its words and nonsense."""
    commands_parsers = _subparsers(PARSER)

    def rest(command: str) -> st.SearchStrategy[list[str]]:
        jumble = st.lists(
            st.one_of(st.sampled_from([w for w in WORDS[command] if w not in banned]), VALUES), max_size=7
        )
        return st.one_of(_arguments(commands_parsers[command], banned), jumble).map(lambda words: [command, *words])

    return st.sampled_from(commands).flatmap(rest)


def test_every_command_is_fuzzed() -> None:
    assert set(WORDS) == set(COMMANDS)
    assert "--remind-after" in WORDS["play"] and "list" in WORDS["models"] and "--lang" in WORDS["rules"]


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
    if NEVER & set(argv):
        return  # random text may spell a banned action: never download or install here
    try:
        status = main(argv)
    except SystemExit as stopped:
        status = stopped.code
    err = capsys.readouterr().err
    event(f"{argv[0]} exit {status}")
    assert isinstance(status, int) and status in (0, 1, 2), (argv, err)
    assert "Traceback" not in err
