"""Update the translation catalogs from the messages in the code.

Extracts every literal passed to ``_()``, ``N_()`` and ``ngettext()`` in ``voice_earl/**/*.py`` (with
the ast module: f-strings cannot be extracted, so messages use ``{placeholders}`` and ``.format()``),
writes the template ``voice_earl/locale/voice_earl.pot`` and updates each language's
``voice_earl/locale/<code>/LC_MESSAGES/voice_earl.po``: new messages are added with an empty
translation, messages gone from the code are kept as obsolete (``#~``) so their translation is not lost.
Prints a table of each catalog's translated, missing and obsolete counts.

    .venv/bin/python scripts/update_catalogs.py          # update the files
    .venv/bin/python scripts/update_catalogs.py --check  # only report; exit 1 if a catalog is incomplete

It lives in the package, beside the catalogs it writes, so that the tests check the catalogs with the
same extraction (no test imports ``scripts/``).
"""

from __future__ import annotations

import argparse
import ast
import string
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from voice_earl.i18n import DEFAULT_LANGUAGE, DOMAIN, LANGUAGES, PoEntry, catalog_path, parse_po

PACKAGE = Path(__file__).resolve().parent
TEMPLATE = PACKAGE / "locale" / f"{DOMAIN}.pot"
MARKERS = {"_": 1, "N_": 1, "ngettext": 2}  # function name -> how many leading string arguments are messages
PLURAL_FORMS = "nplurals=2; plural=(n != 1);"  # Dutch and Italian alike
LANGUAGE_NAMES = {"nl": "Dutch", "it": "Italian"}


@dataclass
class Message:
    msgid: str
    plural: str | None = None
    places: list[str] = field(default_factory=list)  # "voice_earl/narrator.py:88"


def extract_messages(package: Path = PACKAGE) -> dict[str, Message]:
    """Every marked message in the package's modules, in the order first met."""
    messages: dict[str, Message] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = path.relative_to(package.parent).as_posix()
        calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
        for node in calls:
            if (found := _marked(node)) is None:
                continue
            msgid, plural = found
            message = messages.setdefault(msgid, Message(msgid, plural))
            message.plural = message.plural or plural
            message.places.append(f"{where}:{node.lineno}")
    for message in messages.values():
        message.places.sort(key=_place_key)
    return dict(sorted(messages.items(), key=lambda item: _place_key(item[1].places[0])))


def unextractable(package: Path = PACKAGE) -> list[str]:
    """Marker calls whose message is built (an f-string, a concatenation, a call): they cannot be translated."""
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = path.relative_to(package.parent).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _marker_name(node) in MARKERS:
                built = [arg for arg in node.args if isinstance(arg, ast.JoinedStr | ast.BinOp | ast.Call)]
                found.extend(f"{where}:{arg.lineno}: {ast.unparse(arg)[:60]}" for arg in built)
    return found


def _marker_name(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _place_key(place: str) -> tuple[str, int]:
    path, _, line = place.rpartition(":")
    return path, int(line)


def _marked(node: ast.Call) -> tuple[str, str | None] | None:
    """(msgid, plural) when ``node`` is a call of a marker with literal strings."""
    count = MARKERS.get(_marker_name(node) or "")
    if count is None or len(node.args) < count:
        return None
    texts = [arg.value for arg in node.args[:count] if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    if len(texts) != count:
        return None  # a variable: its literal is marked where it is defined
    return texts[0], texts[1] if count == 2 else None


def placeholders(text: str) -> frozenset[str]:
    """The ``{names}`` in a message."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


def problems(messages: dict[str, Message], entries: Iterable[PoEntry]) -> list[str]:
    """What a catalog lacks: each message missing or untranslated, or whose placeholders differ."""
    found = {entry.msgid: entry for entry in entries if not entry.obsolete and entry.msgid}
    result: list[str] = []
    for msgid, message in messages.items():
        entry = found.get(msgid)
        if entry is None:
            result.append(f"missing: {msgid!r}")
        elif not entry.translated:
            result.append(f"not translated: {msgid!r}")
        else:
            wanted = placeholders(msgid) | (placeholders(message.plural) if message.plural else frozenset())
            for form in entry.msgstr:
                # A plural form may leave out the number ({count}) when the words already say it.
                if placeholders(form) != wanted and placeholders(form) != wanted - {"count"}:
                    result.append(f"placeholders differ: {msgid!r} -> {form!r}")
    return result


# ---------------------------------------------------------------------------------------------------------
# Writing


def quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    if "\n" not in escaped.rstrip("\n"):
        return '"' + escaped.replace("\n", "\\n") + '"'
    parts = escaped.split("\n")
    lines = [p + "\\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    return '""\n' + "\n".join(f'"{line}"' for line in lines)


def format_entry(entry: PoEntry) -> str:
    prefix = "#~ " if entry.obsolete else ""
    lines = list(entry.comments)

    def field_lines(keyword: str, text: str) -> None:
        lines.extend(prefix + line for line in f"{keyword} {quote(text)}".splitlines())

    field_lines("msgid", entry.msgid)
    if entry.msgid_plural is not None:
        field_lines("msgid_plural", entry.msgid_plural)
        for index, form in enumerate(entry.msgstr):
            field_lines(f"msgstr[{index}]", form)
    else:
        field_lines("msgstr", entry.msgstr[0] if entry.msgstr else "")
    return "\n".join(lines)


def header(language: str | None) -> PoEntry:
    fields = [
        "Project-Id-Version: voice-earl",
        f"Language: {language or ''}",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=UTF-8",
        "Content-Transfer-Encoding: 8bit",
        f"Plural-Forms: {PLURAL_FORMS}",
    ]
    title = f"# {LANGUAGE_NAMES[language]} messages of voice-earl." if language else "# voice-earl messages."
    return PoEntry("", ("\n".join(fields) + "\n",), comments=(title,))


def source_comments(message: Message) -> tuple[str, ...]:
    return (f"#: {' '.join(message.places)}",)


def template(messages: dict[str, Message]) -> list[PoEntry]:
    return [header(None)] + [
        PoEntry(m.msgid, ("", "") if m.plural else ("",), m.plural, source_comments(m)) for m in messages.values()
    ]


def merge(messages: dict[str, Message], old: list[PoEntry], language: str) -> list[PoEntry]:
    """The catalog for the messages now in the code, keeping the translations it already has."""
    known = {entry.msgid: entry for entry in old if entry.msgid}
    kept_header = next((entry for entry in old if not entry.msgid and not entry.obsolete), None)
    result = [kept_header or header(language)]
    for message in messages.values():
        previous = known.get(message.msgid)
        forms = 2 if message.plural else 1
        msgstr = previous.msgstr if previous is not None and len(previous.msgstr) == forms else ("",) * forms
        translator_notes = tuple(c for c in (previous.comments if previous else ()) if c.startswith("# "))
        flags = tuple(c for c in (previous.comments if previous else ()) if c.startswith("#,"))
        comments = translator_notes + source_comments(message) + flags
        result.append(PoEntry(message.msgid, msgstr, message.plural, comments))
    for entry in old:
        if entry.msgid and entry.msgid not in messages and any(entry.msgstr):
            notes = tuple(c for c in entry.comments if c.startswith("# "))
            result.append(PoEntry(entry.msgid, entry.msgstr, entry.msgid_plural, notes, obsolete=True))
    return result


def write(path: Path, entries: list[PoEntry]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n\n".join(format_entry(entry) for entry in entries) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="report only; exit 1 if a catalog is incomplete")
    args = parser.parse_args(argv)
    messages = extract_messages()
    for place in unextractable():
        print(f"cannot extract (use a literal with {{placeholders}} and .format()): {place}", file=sys.stderr)
    if not args.check:
        write(TEMPLATE, template(messages))
    print(f"{'catalog':<10}{'messages':>10}{'translated':>12}{'problems':>10}{'obsolete':>10}")
    incomplete = False
    for language in LANGUAGES:
        if language == DEFAULT_LANGUAGE:
            continue
        path = catalog_path(language)
        old = parse_po(path.read_text(encoding="utf-8")) if path.exists() else []
        entries = old if args.check else merge(messages, old, language)
        if not args.check:
            write(path, entries)
        found = problems(messages, entries)
        obsolete = sum(entry.obsolete for entry in entries)
        print(f"{language:<10}{len(messages):>10}{len(messages) - len(found):>12}{len(found):>10}{obsolete:>10}")
        for problem in found:
            print(f"  {language}: {problem}")
        incomplete = incomplete or bool(found)
    return 1 if args.check and incomplete else 0
