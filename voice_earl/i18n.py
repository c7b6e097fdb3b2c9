"""Languages: the narrator's speech and the screen text in English, Dutch or Italian.

Messages are written in English in the code, wrapped in ``_()`` (or ``ngettext()``) with brace
placeholders filled by ``.format()`` after translation, so that ``scripts/update_catalogs.py`` can
extract them. ``N_()`` marks a message kept in a constant and translated where it is shown.
Translation happens at call time: :func:`set_language` switches every later message.

The catalogs are the ``.po`` files in ``voice_earl/locale/<code>/LC_MESSAGES/voice_earl.po``, read
directly by the small reader below: no build step and no binary files in the repository.
The formulas themselves are never translated (custom chant sets exist for other wordings).

>>> set_language("nl")
>>> _("{player} passes").format(player="Ann")
'Ann past'
>>> rank_plural(Rank.QUEEN), ngettext("{count} card, total {total}", "{count} cards, total {total}", 3)
('Vrouwen', '{count} kaarten, totaal {total}')
>>> set_language("en")
>>> _("{player} passes").format(player="Ann")
'Ann passes'
"""

from __future__ import annotations

import ast
import functools
import gettext
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from voice_earl.errors import UsageError
from voice_earl.game.cards import Rank

log = logging.getLogger(__name__)

LANGUAGES = ("en", "nl", "it")
DEFAULT_LANGUAGE = "en"
DOMAIN = "voice_earl"
LOCALE_DIR = Path(__file__).parent / "locale"

# The espeak-ng voice that speaks each language (English is the default voice already).
_NARRATOR_VOICES = {"nl": "nl", "it": "it"}


# ---------------------------------------------------------------------------------------------------------
# Reading .po files


@dataclass(frozen=True)
class PoEntry:
    """One message of a catalog. ``msgstr`` has one form, or one per plural form when ``msgid_plural`` is set."""

    msgid: str
    msgstr: tuple[str, ...]
    msgid_plural: str | None = None
    comments: tuple[str, ...] = ()  # the "#..." lines above the entry, as written
    obsolete: bool = False  # "#~": no longer in the code, kept for its translation
    fuzzy: bool = False  # a guess waiting for review: not used

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr) and not self.fuzzy


class PoSyntaxError(ValueError):
    pass


def parse_po(text: str) -> list[PoEntry]:
    r"""The entries of a ``.po`` file (the header is the entry whose msgid is empty).

    >>> entry = parse_po('msgid "Deal {deal}"\nmsgstr ""\n"Ronde {deal}"')[0]
    >>> entry.msgid, entry.msgstr
    ('Deal {deal}', ('Ronde {deal}',))
    """
    entries: list[PoEntry] = []
    for number, block in _blocks(text):
        try:
            entries.append(_entry(block))
        except (PoSyntaxError, ValueError, SyntaxError) as error:
            raise PoSyntaxError(f"line {number}: {error}") from None
    return entries


def _blocks(text: str) -> Iterator[tuple[int, list[str]]]:
    """Entries are separated by blank lines; yields each with its first line number."""
    block: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line.rstrip())
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _entry(block: list[str]) -> PoEntry:
    comments: list[str] = []
    fields: dict[str, list[str]] = {}
    current: list[str] | None = None
    obsolete = False
    for raw in block:
        line = raw
        if line.startswith("#~"):
            obsolete = True
            line = line[2:].strip()
        elif line.startswith("#"):
            comments.append(line)
            continue
        if line.startswith('"'):
            if current is None:
                raise PoSyntaxError("a string without a keyword")
            current.append(_unquote(line))
            continue
        keyword, _, rest = line.partition(" ")
        current = fields.setdefault(keyword, [])
        current.append(_unquote(rest.strip()))
    if "msgid" not in fields:
        raise PoSyntaxError("an entry without msgid")
    plural = "".join(fields["msgid_plural"]) if "msgid_plural" in fields else None
    if plural is None:
        msgstr: tuple[str, ...] = ("".join(fields.get("msgstr", [])),)
    else:
        count = sum(1 for key in fields if key.startswith("msgstr["))
        msgstr = tuple("".join(fields.get(f"msgstr[{index}]", [])) for index in range(count))
    fuzzy = any(line.startswith("#,") and "fuzzy" in line for line in comments)
    return PoEntry("".join(fields["msgid"]), msgstr, plural, tuple(comments), obsolete, fuzzy)


def _unquote(token: str) -> str:
    if len(token) < 2 or not (token.startswith('"') and token.endswith('"')):
        raise PoSyntaxError(f"expected a quoted string, not {token!r}")
    value = ast.literal_eval(token)  # .po strings use C escapes, which Python's agree with here
    if not isinstance(value, str):
        raise PoSyntaxError(f"expected a quoted string, not {token!r}")
    return value


def header_field(entries: list[PoEntry], name: str) -> str | None:
    """A field of the catalog's header (``Plural-Forms``, ``Language``)."""
    header = next((e for e in entries if e.msgid == "" and not e.obsolete), None)
    if header is None:
        return None
    for line in header.msgstr[0].splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == name.lower():
            return value.strip()
    return None


class PoTranslations(gettext.NullTranslations):
    """Translations read from a ``.po`` file; a message without a translation stays English."""

    def __init__(self, entries: list[PoEntry]) -> None:
        super().__init__()
        used = [e for e in entries if e.msgid and e.translated and not e.obsolete]
        self._messages = {e.msgid: e.msgstr[0] for e in used if e.msgid_plural is None}
        self._plurals = {e.msgid: e.msgstr for e in used if e.msgid_plural is not None}
        self._plural_of = _plural_rule(header_field(entries, "Plural-Forms"))

    def gettext(self, message: str) -> str:
        return self._messages.get(message, message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        forms = self._plurals.get(msgid1)
        if forms is None:
            return msgid1 if n == 1 else msgid2
        return forms[min(self._plural_of(n), len(forms) - 1)]


def _plural_rule(plural_forms: str | None) -> Callable[[int], int]:
    """``nplurals=2; plural=(n != 1);`` as a function (English's rule when missing)."""
    if plural_forms and "plural=" in plural_forms:
        expression = plural_forms.split("plural=", 1)[1].strip().rstrip(";")
        return gettext.c2py(expression)
    return lambda n: int(n != 1)


def catalog_path(code: str) -> Path:
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def _translations_for(code: str) -> gettext.NullTranslations:
    if code == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    path = catalog_path(code)
    try:
        return PoTranslations(parse_po(path.read_text(encoding="utf-8")))
    except OSError as error:
        log.warning("no catalog for %s (%s): English is used", code, error)
        return gettext.NullTranslations()


# ---------------------------------------------------------------------------------------------------------
# The active language


@dataclass
class _Active:
    code: str = DEFAULT_LANGUAGE
    translations: gettext.NullTranslations = field(default_factory=gettext.NullTranslations)


_active = _Active()


def set_language(code: str) -> None:
    """Translate every later message into ``code`` (``en``, ``nl`` or ``it``)."""
    cleaned = code.strip().lower()
    if cleaned not in LANGUAGES:
        raise UsageError(f"unknown language {code!r}: use {', '.join(LANGUAGES)}")
    _active.translations = _translations_for(cleaned)
    _active.code = cleaned


def current_language() -> str:
    return _active.code


def _(message: str) -> str:
    """``message`` in the current language."""
    return _active.translations.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the current language."""
    return _active.translations.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a message for the catalogs without translating it (translate it with ``_()`` where shown)."""
    return message


def language_voice(code: str) -> str | None:
    """The espeak-ng voice that speaks the language; None for English, whose voice is the default.

    Whether that voice is installed is the narrator's business (``table.speech``).
    """
    if code not in LANGUAGES:
        raise UsageError(f"unknown language {code!r}: use {', '.join(LANGUAGES)}")
    return _NARRATOR_VOICES.get(code)


# ---------------------------------------------------------------------------------------------------------
# Card words in screen and narrator text (never in the formulas)


def rank_name(rank: Rank) -> str:
    """``Queen``, ``Vrouw``, ``Regina``."""
    return {
        Rank.ACE: _("Ace"),
        Rank.TWO: _("Two"),
        Rank.THREE: _("Three"),
        Rank.FOUR: _("Four"),
        Rank.FIVE: _("Five"),
        Rank.SIX: _("Six"),
        Rank.SEVEN: _("Seven"),
        Rank.EIGHT: _("Eight"),
        Rank.NINE: _("Nine"),
        Rank.TEN: _("Ten"),
        Rank.JACK: _("Jack"),
        Rank.QUEEN: _("Queen"),
        Rank.KING: _("King"),
    }[rank]


def a_rank(rank: Rank) -> str:
    """The rank with its article, as in "holds an Eight": ``an Eight``, ``een Acht``, ``un Otto``, ``una Regina``."""
    return {
        Rank.ACE: _("an Ace"),
        Rank.TWO: _("a Two"),
        Rank.THREE: _("a Three"),
        Rank.FOUR: _("a Four"),
        Rank.FIVE: _("a Five"),
        Rank.SIX: _("a Six"),
        Rank.SEVEN: _("a Seven"),
        Rank.EIGHT: _("an Eight"),
        Rank.NINE: _("a Nine"),
        Rank.TEN: _("a Ten"),
        Rank.JACK: _("a Jack"),
        Rank.QUEEN: _("a Queen"),
        Rank.KING: _("a King"),
    }[rank]


def rank_plural(rank: Rank) -> str:
    """``Queens``, ``Vrouwen``, ``Regine``."""
    return {
        Rank.ACE: _("Aces"),
        Rank.TWO: _("Twos"),
        Rank.THREE: _("Threes"),
        Rank.FOUR: _("Fours"),
        Rank.FIVE: _("Fives"),
        Rank.SIX: _("Sixes"),
        Rank.SEVEN: _("Sevens"),
        Rank.EIGHT: _("Eights"),
        Rank.NINE: _("Nines"),
        Rank.TEN: _("Tens"),
        Rank.JACK: _("Jacks"),
        Rank.QUEEN: _("Queens"),
        Rank.KING: _("Kings"),
    }[rank]
