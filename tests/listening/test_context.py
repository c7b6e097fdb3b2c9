"""Listening contexts, normalisation and custom chant files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voice_earl.errors import UsageError
from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import EARL, SNIP_SNAP_SNORUM
from voice_earl.keep.chant_files import chant_set, load_chant_file
from voice_earl.words.context import PASS_WORDS, ListenContext
from voice_earl.words.text import normalise, template_words

# --- normalise -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("There's a Queen as good as he.", "there is a queen as good as he"),
        ("THERES as good as ten can be", "there is as good as ten can be"),
        ("there s the best of all the three", "there is the best of all the three"),
        ("There’s as good as Queen can be", "there is as good as queen can be"),
        ("there is a 7 as good as he", "there is a seven as good as he"),
        ("as good as 10 can be", "as good as ten can be"),
        ("the 7s and 10s", "the seven and ten"),
        ("Queens, Kings and Sixes", "queen king and six"),
        ("a queen's as good", "a queen as good"),
        ("[unk] there is <unk> the ++NOISE++ earl <sil>", "there is the earl"),
        ("um there uh is", "there is"),
        ("the(2) earl of(3) coventry", "the earl of coventry"),
        ("  snip-snap,   snorum!  ", "snip snap snorum"),
        ("", ""),
        ("[unk]", ""),
    ],
)
def test_normalise(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60))
def test_normalise_is_idempotent(text: str) -> None:
    once = normalise(text)
    assert normalise(once) == once
    assert "  " not in once and once == once.strip()


def test_template_words_mark_the_rank() -> None:
    assert template_words("There's a {rank} as good as he") == (
        "there",
        "is",
        "a",
        "{rank}",
        "as",
        "good",
        "as",
        "he",
    )
    assert template_words("{rank}") == ("{rank}",)


# --- ListenContext ---------------------------------------------------------------------------


def test_following_position_allows_due_line_other_lines_and_pass() -> None:
    context = ListenContext(3, (Rank.SEVEN,))
    phrases = context.phrases()
    assert phrases[0] == "there is the best of all the three"
    assert set(phrases) == {
        "there is the best of all the three",
        "there is as good as seven can be",
        "there is as good a seven can be",
        "there is a seven as good as he",
        "and there is the earl of coventry",
        "pass",
    }
    assert context.due_lines() == ("There's the best of all the three",)


def test_lead_due_lines_cover_every_rank_and_the_accepted_slip() -> None:
    context = ListenContext(1, (Rank.ACE, Rank.KING))
    assert context.due_lines() == (
        "There's as good as Ace can be",
        "There's as good an Ace can be",
        "There's as good a Ace can be",
        "There's as good as King can be",
        "There's as good a King can be",
    )
    assert context.phrases()[:5] == tuple(normalise(line) for line in context.due_lines())
    assert "there is a king as good as he" in context.phrases()
    assert not any("queen" in phrase for phrase in context.phrases())


def test_every_grammar_takes_an_and_a_before_a_vowel() -> None:
    for context in (ListenContext(2, (Rank.ACE,)), ListenContext(1, (Rank.EIGHT, Rank.TWO)), ListenContext.fixed()):
        for rank in (Rank.ACE, Rank.EIGHT):
            if rank in context.ranks:
                assert f"there is an {rank.word.lower()} as good as he" in context.phrases()
                assert f"there is a {rank.word.lower()} as good as he" in context.phrases()
    assert ListenContext(2, (Rank.ACE,)).due_lines() == ("There's an Ace as good as he", "There's a Ace as good as he")
    assert "there is an queen as good as he" not in ListenContext(2, (Rank.QUEEN,)).phrases()


def test_phrases_are_normalised_and_unique() -> None:
    for context in (ListenContext.fixed(), ListenContext.fixed(SNIP_SNAP_SNORUM), ListenContext(2, (Rank.TEN,))):
        phrases = context.phrases()
        assert len(phrases) == len(set(phrases))
        assert all(phrase == normalise(phrase) and phrase for phrase in phrases)


def test_fixed_grammar_is_every_line_for_every_rank() -> None:
    fixed = ListenContext.fixed()
    expected = {normalise(text) for p in (1, 2, 3, 4) for rank in RANKS for text in EARL.accepted(p, rank)}
    assert set(fixed.phrases()) == expected | set(PASS_WORDS)
    snip = ListenContext.fixed(SNIP_SNAP_SNORUM)
    assert set(snip.phrases()) == {r.word.lower() for r in RANKS} | {"snip", "snap", "snorum", "snorem", "pass"}


def test_the_grammar_holds_the_pass_word_the_tables_rules_name() -> None:
    english, dutch, italian = (ListenContext(2, (Rank.TEN,), language=code).phrases() for code in ("en", "nl", "it"))
    assert set(dutch) - set(english) == {"pas"} and set(italian) - set(english) == {"passo"}
    assert "pass" in dutch and "pass" in italian
    assert set(ListenContext.fixed(language="it").phrases()) == set(ListenContext.fixed().phrases()) | {"passo"}


def test_rival_ranks_add_the_due_line_for_every_other_rank() -> None:
    context = ListenContext(2, (Rank.QUEEN,))
    rivals = context.phrases(rival_ranks=True)
    assert "there is a king as good as he" in rivals
    assert "there is a king as good as he" not in context.phrases()
    assert "there is as good as king can be" not in rivals  # only the due position gains rivals
    assert set(context.phrases()) < set(rivals)


def test_vocabulary_is_the_words_of_the_phrases() -> None:
    context = ListenContext(4, (Rank.TWO,))
    assert context.vocabulary() == frozenset(
        {"there", "is", "as", "good", "two", "can", "be", "a", "he", "the", "best", "of", "all", "three", "and"}
        | {"earl", "coventry", "pass"}
    )
    assert "king" not in context.vocabulary()
    assert "king" not in ListenContext(2, (Rank.TWO,)).vocabulary()
    assert "king" in ListenContext(2, (Rank.TWO,)).vocabulary(rival_ranks=True)


@pytest.mark.parametrize(
    ("position", "ranks", "message"),
    [
        (0, (Rank.ACE,), "position must be 1-4"),
        (5, (Rank.ACE,), "position must be 1-4"),
        (1, (), "at least one rank"),
        (2, (Rank.ACE, Rank.TWO), "follows one rank"),
    ],
)
def test_bad_context_is_refused(position: int, ranks: tuple[Rank, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ListenContext(position, ranks)


def test_context_is_hashable_and_dedupes_ranks() -> None:
    context = ListenContext(1, [Rank.ACE, Rank.ACE, Rank.TWO])  # type: ignore[arg-type]
    assert context.ranks == (Rank.ACE, Rank.TWO)
    assert hash(context) == hash(ListenContext(1, (Rank.ACE, Rank.TWO)))
    assert context.due_rank is None
    assert ListenContext(2, (Rank.TWO,)).due_rank is Rank.TWO


# --- custom chant files ----------------------------------------------------------------------


def _write(tmp_path: Path, text: str, name: str = "chant.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("lines = [", "not valid TOML"),
        ('name = "x"', "'lines' must be a list of exactly four"),
        ('lines = ["{rank}", "b", "c"]', "'lines' must be a list of exactly four"),
        ('lines = ["{rank}", "b", "c", ""]', "'lines' must be a list of exactly four"),
        ('lines = ["{rank}", "b", "c", 4]', "'lines' must be a list of exactly four"),
        ('lines = ["a", "b", "c", "d"]', "must contain {rank}"),
        ('name = ""\nlines = ["{rank}", "b", "c", "d"]', "'name' must be a non-empty string"),
        ('lines = ["{rank}", "b", "c", "d"]\ncolour = "red"', "unknown key(s) colour"),
        ('lines = ["{rank}", "b", "c", "d"]\nalternates = 3', "'alternates' must be a table"),
        ('lines = ["{rank}", "b", "c", "d"]\n[alternates]\n5 = ["x"]', "alternates key '5'"),
        ('lines = ["{rank}", "b", "c", "d"]\n[alternates]\n2 = "x"', "alternates.2 must be a list"),
    ],
)
def test_bad_chant_file_names_the_file_and_the_problem(tmp_path: Path, content: str, problem: str) -> None:
    path = _write(tmp_path, content)
    with pytest.raises(UsageError) as caught:
        load_chant_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert problem in message
    assert "\n" not in message


def test_missing_and_unreadable_chant_files(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"missing\.toml: no such chant file"):
        chant_set(str(tmp_path / "missing.toml"))
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes('lines = ["caf\xe9"]'.encode("latin-1"))
    with pytest.raises(UsageError, match=r"latin1\.toml: not UTF-8 text"):
        load_chant_file(latin1)
    with pytest.raises(UsageError, match="unknown chant set 'hiccup'"):
        chant_set("hiccup")


def test_good_chant_file_loads_with_alternates(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'lines = ["Here\'s as good as {rank} can be", "Here\'s a {rank} as good as he",'
        ' "Here\'s the best of all the three", "And here\'s the Earl of Earl\'s Court"]\n'
        '[alternates]\n4 = ["And here\'s the Earl of Coventry"]\n',
        name="earls-court.toml",
    )
    chant = chant_set(str(path))
    assert chant.name == "earls-court"
    assert chant.accepted(4, Rank.ACE) == ("And here's the Earl of Earl's Court", "And here's the Earl of Coventry")
    context = ListenContext(4, (Rank.ACE,), chant)
    assert context.phrases()[:2] == ("and here is the earl of earls court", "and here is the earl of coventry")
