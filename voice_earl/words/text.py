"""Words: one normal form for recognizer transcripts and for the lines they are matched against.

Both sides go through :func:`normalise`, so a chant set's wording and a transcript always meet
in the same form: lowercase words without punctuation, single spaces.

>>> normalise("There's a 7 as good as he!")
'there is a seven as good as he'
>>> normalise("[unk] THERES  the best of all the 3 <unk>")
'there is the best of all the three'
>>> normalise("Queens, um, as good as Queen's")
'queen as good as queen'
>>> template_words("There's as good as {rank} can be")
('there', 'is', 'as', 'good', 'as', '{rank}', 'can', 'be')
"""

from __future__ import annotations

import re
import unicodedata

from voice_earl.game.cards import RANKS, Rank

# Stands for the rank word inside a normalised line; normalise() can never produce it.
SLOT = "{rank}"

# Recognizer markers: vosk "[unk]", pocketsphinx "<unk>", "<sil>", "[NOISE]", "++NOISE++".
_NOISE = re.compile(r"\[[^\]]*\]|<[^>]*>|\+\+[^+\s]*\+\+")
# pocketsphinx marks alternative pronunciations as "the(2)".
_ALT_PRONUNCIATION = re.compile(r"(?<=\w)\([0-9]+\)")
# Numbers in ASCII digits only, as everywhere ("٣" is no 3), and short ones: int() takes 4,300 digits at most.
_NUMBER = re.compile(r"(?<![\w])([0-9]{1,9})(s?)(?![\w])")
_CONTRACTED_IS = re.compile(r"\b(there|here|that|it|what|where|who)'s\b")
_SPLIT_THERES = re.compile(r"\btheres\b|\bthere s\b")
_NOT_A_WORD_CHAR = re.compile(r"[^\w\s]|_")
_HESITATIONS = frozenset({"um", "uh", "uhm", "umm", "erm", "hmm", "mm", "mhm"})

_ONES = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")

RANK_BY_WORD: dict[str, Rank] = {rank.word.lower(): rank for rank in RANKS}
_SINGULAR = {rank.plural.lower(): rank.word.lower() for rank in RANKS}
# Words a free-running recognizer writes for a rank it heard; trusted only where the rank goes.
RANK_HOMOPHONES: dict[str, Rank] = {
    "to": Rank.TWO,
    "too": Rank.TWO,
    "for": Rank.FOUR,
    "fore": Rank.FOUR,
    "ate": Rank.EIGHT,
}


def number_words(number: int) -> str:
    """Spell out 0-999 the way a recognizer would write it; larger numbers stay digits.

    >>> number_words(10), number_words(42), number_words(300)
    ('ten', 'forty two', 'three hundred')
    """
    if number < 20:
        return _ONES[number]
    if number < 100:
        tens, ones = divmod(number, 10)
        return _TENS[tens] + (f" {_ONES[ones]}" if ones else "")
    if number < 1000:
        hundreds, rest = divmod(number, 100)
        return f"{_ONES[hundreds]} hundred" + (f" {number_words(rest)}" if rest else "")
    return str(number)


def _spell_number(match: re.Match[str]) -> str:
    words = number_words(int(match.group(1)))
    return f" {words}{match.group(2)} "


def normalise(text: str) -> str:
    """Lowercase words, no punctuation: what both transcripts and lines are compared as.

    Handles case, punctuation, "there's"/"theres"/"there s" (all become "there is"), digits
    ("7" -> "seven"), plural or possessive ranks ("queens", "queen's" -> "queen"), recognizer
    noise tokens ("[unk]", "<unk>", "++NOISE++"), hesitations ("um", "uh") and extra spaces.
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("’", "'").replace("‘", "'").replace("`", "'")
    text = _NOISE.sub(" ", text)
    text = _ALT_PRONUNCIATION.sub("", text)
    text = _CONTRACTED_IS.sub(r"\1 is", text)
    text = text.replace("'", "")
    text = _NOT_A_WORD_CHAR.sub(" ", text)  # before numbers: "0_" must split like "0 "
    text = _NUMBER.sub(_spell_number, text)
    text = _SPLIT_THERES.sub("there is", " ".join(text.split()))
    words = (_SINGULAR.get(word, word) for word in text.split() if word not in _HESITATIONS)
    return " ".join(words)


def template_words(line: str) -> tuple[str, ...]:
    """A chant line's normalised words, with :data:`SLOT` where ``{rank}`` stands."""
    parts = [normalise(part) for part in line.split(SLOT)]
    words: list[str] = []
    for i, part in enumerate(parts):
        if i:
            words.append(SLOT)
        words.extend(part.split())
    return tuple(words)


def fill(words: tuple[str, ...], rank: Rank) -> tuple[str, ...]:
    """Put a rank's word where :data:`SLOT` stands."""
    return tuple(rank.word.lower() if word == SLOT else word for word in words)
