"""The README and docs/ say only what is true of the command line, and hold together: every command
and flag they name exists, every page is linked from the README, and every relative link leads somewhere."""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from voice_earl.commands.cli import COMMANDS, build_parser
from voice_earl.paths import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
TESTS = REPO_ROOT / "tests"
MAX_README_LINES = 150

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
COMMAND = re.compile(r"voice-earl ((?:[a-z]+ ?)+)")
SCRIPT = re.compile(r"scripts/([\w.-]+)")
FENCE = re.compile(r"```.*?```", re.DOTALL)
CODE = re.compile(r"```.*?```|`(?:[^`\n]|\n(?!\n))+`", re.DOTALL)  # an inline span may go on to the next line
LINK = re.compile(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"")


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return {
        name: sub
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name, sub in action.choices.items()
    }


def help_text(parser: argparse.ArgumentParser) -> str:
    """A parser's --help, and that of every action below it (``models install``, ``history export``)."""
    return parser.format_help() + "".join(help_text(sub) for sub in subparsers(parser).values())


@cache
def parser() -> argparse.ArgumentParser:
    return build_parser()


@cache
def command_help() -> dict[str, str]:
    """Each command's real --help, and the top level's under ""."""
    return {"": parser().format_help(), **{name: help_text(sub) for name, sub in subparsers(parser()).items()}}


@cache
def script_text(name: str) -> str:
    """A script's text, and that of the package module whose ``main`` it runs (where its flags are)."""
    path = REPO_ROOT / "scripts" / name
    if not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8")
    for module in re.findall(r"^from (voice_earl[\w.]*) import main\b", text, re.M):
        text += (REPO_ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
    return text


@cache
def all_scripts() -> str:
    return "".join(script_text(path.name) for path in sorted((REPO_ROOT / "scripts").iterdir()))


def code_spans(text: str) -> Iterator[str]:
    """Every inline code span and every line of a fenced code block."""
    for span in CODE.findall(text):
        yield from span.strip("`").splitlines() if span.startswith("```") else [span.strip("`").replace("\n", " ")]


def flags_named(text: str) -> list[tuple[str, str]]:
    """Each ``--flag`` in a code span with where it must exist: ``voice-earl COMMAND``'s --help,
    ``script:NAME`` for a script's, or ``*`` (some command's or script's) when the span names neither."""
    found: list[tuple[str, str]] = []
    for span in code_spans(text):
        for part in re.split(r"[|;]|&&|<|>", span):
            command = COMMAND.search(part)
            script = SCRIPT.search(part)
            owner = "*"
            if command is not None:
                owner = command.group(1).split()[0]
            elif script is not None:
                owner = "script:" + script.group(1)
            found += [(flag, owner) for flag in FLAG.findall(part)]
    return found


def mentions(text: str, flag: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text) is not None


def flag_exists(flag: str, owner: str) -> bool:
    helps = command_help()
    if owner == "script:play":  # scripts/play passes its arguments on to `voice-earl play`
        owner = "play"
    if owner.startswith("script:"):
        return flag == "--help" or mentions(script_text(owner.removeprefix("script:")), flag)
    if owner != "*":
        return mentions(helps.get(owner, "") + helps[""], flag)
    return any(mentions(text, flag) for text in helps.values()) or mentions(all_scripts(), flag)


def unknown_flags(text: str) -> list[str]:
    return sorted({f"{owner} {flag}" for flag, owner in flags_named(text) if not flag_exists(flag, owner)})


def unknown_commands(text: str) -> list[str]:
    """``voice-earl WORD ...`` where WORD is no command, or the next word no action of one that has them."""
    commands = subparsers(parser())
    wrong = []
    for span in code_spans(text):
        for match in COMMAND.finditer(span):
            words = match.group(1).split()
            if words[0] not in COMMANDS:
                wrong.append(match.group(0))
                continue
            actions = subparsers(commands[words[0]])
            if actions and len(words) > 1 and words[1] not in actions and words[1].isalpha() and words[1].islower():
                wrong.append(match.group(0))
    return sorted(set(wrong))


@pytest.mark.parametrize("page", pages(), ids=lambda path: path.name)
def test_every_command_and_flag_named_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert unknown_commands(text) == []
    assert unknown_flags(text) == []


def test_a_made_up_flag_or_command_is_caught() -> None:
    assert unknown_flags("`voice-earl play --players Ann Ben --open-sesame`") == ["play --open-sesame"]
    assert unknown_flags("`voice-earl hear --open-hands`") == ["hear --open-hands"]  # a flag of play, not of hear
    bench = "`scripts/bench_listening.py --every-other-line`"
    assert unknown_flags(bench) == ["script:bench_listening.py --every-other-line"]
    assert unknown_flags("with `--no-such-flag` on") == ["* --no-such-flag"]
    assert unknown_flags("`voice-earl play --players Ann Ben --deck virtual --phone-mics`") == []
    assert unknown_flags("`voice-earl models install --force`, `voice-earl history export ID --out x`") == []
    made_up = ["voice-earl juggle", "voice-earl models polish"]
    assert unknown_commands("`voice-earl juggle`, `voice-earl models polish`") == made_up
    assert unknown_commands("`voice-earl models fetch whisper-tiny.en`, `voice-earl history show ID`") == []


def test_the_readme_fits_on_a_page() -> None:
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines: move the details to docs/"


def test_every_page_of_docs_is_linked_from_the_readme() -> None:
    linked = {(README.parent / target).resolve() for target, _ in LINK.findall(README.read_text(encoding="utf-8"))}
    unlinked = [page.name for page in sorted(DOCS.glob("*.md")) if page.resolve() not in linked]
    assert unlinked == []


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", FENCE.sub("", page.read_text(encoding="utf-8")), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def broken_links(page: Path) -> list[str]:
    """The relative links (and images) of ``page`` whose file, or whose heading after ``#``, does not exist."""
    text = page.read_text(encoding="utf-8")
    targets = [link or image for link, image in LINK.findall(text) if not re.match(r"[a-z]+:", link or image)]
    missing = []
    for target in targets:
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in anchors(linked)):
            missing.append(target)
    return missing


@pytest.mark.parametrize("page", pages(), ids=lambda path: path.name)
def test_relative_links_point_at_files_and_headings_that_exist(page: Path) -> None:
    assert broken_links(page) == []


def test_a_link_to_a_missing_file_or_heading_is_caught(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## The `state.json` file\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[a](other.md#the-statejson-file) [b](other.md#nowhere) [c](gone.md) [d](#page) "
        '[e](https://example.org/x.md) <img src="no.png">\n\n# Page\n',
        encoding="utf-8",
    )
    assert broken_links(page) == ["other.md#nowhere", "gone.md", "no.png"]


TEST_NAMED = re.compile(r"(test_\w+\.py)::(test_\w+)")


def test_every_test_the_docs_name_exists() -> None:
    """docs/listening.md names the test that covers each of the judge's rules: it must be there, in a file of that
    name (in whichever folder of tests/)."""
    named = {match for page in pages() for match in TEST_NAMED.findall(page.read_text(encoding="utf-8"))}
    missing = [
        f"{file}::{test}"
        for file, test in sorted(named)
        if not any(f"def {test}(" in path.read_text(encoding="utf-8") for path in TESTS.rglob(file))
    ]
    assert named and missing == []


def source_defaults() -> dict[str, float]:
    """Every numeric default of a settings dataclass (``JudgeSettings.line_floor``) and every numeric
    module constant (``MIN_SPEECH_S``) in voice_earl/, read from the source wherever the module is."""
    found: dict[str, float] = {}
    for path in (REPO_ROOT / "voice_earl").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    if isinstance(target, ast.Name) and isinstance(node.value.value, int | float):
                        found[target.id] = float(node.value.value)
            if isinstance(node, ast.ClassDef) and node.name.endswith("Settings"):
                for field in node.body:
                    if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) and field.value:
                        literal = isinstance(field.value, ast.Constant | ast.UnaryOp)
                        value = ast.literal_eval(field.value) if literal else None
                        if isinstance(value, int | float) and not isinstance(value, bool):
                            found[f"{node.name}.{field.target.id}"] = float(value)
    return found


def rules_rows() -> list[list[str]]:
    text = (DOCS / "listening.md").read_text(encoding="utf-8")
    table = text.split("| rule | kind | setting | default | why | test |", 1)[1].split("\n\n", 1)[0]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in table.strip().splitlines()[1:]]


def test_the_rules_table_gives_each_settings_real_default() -> None:
    defaults = source_defaults()
    wrong = []
    rows = rules_rows()
    for _rule, _kind, setting, default, _why, _test in rows:
        names = re.findall(r"`([\w.]+)`", setting)
        values = [value.split()[0] for value in default.split(", ")] if default else []
        owner = ""
        for name, value in zip(names, values, strict=True):
            owner = name.split(".")[0] if "." in name else owner
            key = name if "." in name or name.isupper() else f"{owner}.{name}"
            if defaults.get(key) != float(value):
                wrong.append(f"{key}: docs {value}, code {defaults.get(key)}")
    assert len(rows) >= 20 and wrong == []
