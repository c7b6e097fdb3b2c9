"""Fuzzy verdicts on transcripts: the line due, the rank word, slips and feedback."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import EARL, SNIP_SNAP_SNORUM, ChantSet
from voice_earl.keep.chant_files import chant_set
from voice_earl.words.align import SMALL_WORDS
from voice_earl.words.context import ListenContext
from voice_earl.words.text import normalise
from voice_earl.words.verdicts import DiffOp, Strictness, Verdict, grade_line, word_diff

QUEENS_SECOND = ListenContext(2, (Rank.QUEEN,))
OPEN_LEAD = ListenContext(1, RANKS)
LENIENT, NORMAL, STRICT = Strictness.LENIENT, Strictness.NORMAL, Strictness.STRICT

positions = st.integers(min_value=1, max_value=4)
ranks = st.sampled_from(RANKS)
chants = st.sampled_from((EARL, SNIP_SNAP_SNORUM))


def _context(chant: ChantSet, position: int, rank: Rank) -> ListenContext:
    return ListenContext(position, (rank,) if position > 1 else RANKS, chant)


# --- the plain verdicts ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "transcript"),
    [
        (1, "There's as good as Queen can be"),
        (1, "there's as good a queen can be"),
        (2, "There's a Queen as good as he"),
        (3, "There's the best of all the three"),
        (4, "And there's the Earl of Coventry"),
    ],
)
@pytest.mark.parametrize("strictness", list(Strictness))
def test_each_line_said_right_is_correct(position: int, transcript: str, strictness: Strictness) -> None:
    context = ListenContext(position, (Rank.QUEEN,))
    result = grade_line(transcript, context, strictness)
    assert result.verdict is Verdict.CORRECT
    assert (result.score, result.heard_position, result.rank) == (100, position, Rank.QUEEN)
    assert result.feedback() == ""
    slip = "good a " in transcript  # accepted, but the diff is against the line as taught
    assert all(op.kind == "equal" for op in result.diff) is not slip


def test_the_line_taught_is_never_the_accepted_slip() -> None:
    seven = ListenContext(1, (Rank.SEVEN,))
    for said in (
        "there's as good a seven can be",
        "there's good a seven can",
        "there's the best of all the three",
        "as good a seven",
        "",
        "there's as good a seven can me",
    ):
        result = grade_line(said, seven, STRICT)
        assert result.expected == "There's as good as Seven can be", said
        assert "good a " not in result.feedback(), said
        assert [word for op in result.diff for word in op.due] == normalise(result.expected).split(), said


@pytest.mark.parametrize("said", ["There's an Ace as good as he", "There's a Ace as good as he"])
@pytest.mark.parametrize("strictness", list(Strictness))
def test_an_ace_or_a_ace_is_correct_and_the_line_says_an(said: str, strictness: Strictness) -> None:
    result = grade_line(said, ListenContext(2, (Rank.ACE,)), strictness)
    assert (result.verdict, result.score) == (Verdict.CORRECT, 100)
    assert result.expected == "There's an Ace as good as he"
    wrong = grade_line("There's the best of all the three", ListenContext(2, (Rank.EIGHT,)))
    assert wrong.feedback() == "that is the third card's line; the second card says 'There's an Eight as good as he'"


def test_wrong_rank_on_the_due_line() -> None:
    result = grade_line("There's a King as good as he", QUEENS_SECOND)
    assert result.verdict is Verdict.WRONG_RANK
    assert (result.rank, result.heard_rank, result.heard_position) == (Rank.QUEEN, Rank.KING, 2)
    assert result.expected == "There's a Queen as good as he"
    assert result.feedback() == "you said King, but the rank is Queen"
    assert DiffOp("replace", ("king",), ("queen",)) in result.diff


def test_lead_settles_on_the_rank_heard() -> None:
    lead = ListenContext(1, (Rank.SEVEN, Rank.TEN))
    result = grade_line("there's as good as 10 can be", lead)
    assert (result.verdict, result.rank, result.heard_rank) == (Verdict.CORRECT, Rank.TEN, Rank.TEN)
    assert result.expected == "There's as good as Ten can be"
    refused = grade_line("there's as good as king can be", lead)
    assert (refused.verdict, refused.rank, refused.heard_rank) == (Verdict.WRONG_RANK, Rank.KING, Rank.KING)
    assert refused.expected == "There's as good as King can be"
    assert refused.feedback() == "you said King, which is not a rank you can lead now"


def test_wrong_line_names_both_lines() -> None:
    result = grade_line("and there's the earl of coventry", QUEENS_SECOND)
    assert (result.verdict, result.heard_position, result.position) == (Verdict.WRONG_LINE, 4, 2)
    assert result.feedback() == ("that is the fourth card's line; the second card says 'There's a Queen as good as he'")
    lead_line = grade_line("there's as good as queen can be", QUEENS_SECOND)
    assert (lead_line.verdict, lead_line.heard_position, lead_line.heard_rank) == (Verdict.WRONG_LINE, 1, Rank.QUEEN)


def test_wrong_line_at_a_lead_still_settles_the_rank() -> None:
    result = grade_line("there's a seven as good as he", ListenContext(1, (Rank.SEVEN, Rank.TWO)))
    assert (result.verdict, result.heard_position, result.rank) == (Verdict.WRONG_LINE, 2, Rank.SEVEN)


@pytest.mark.parametrize("transcript", ["pass", "Pass!", "I pass", "pass, pass", "[unk] pass"])
def test_pass(transcript: str) -> None:
    result = grade_line(transcript, QUEENS_SECOND, STRICT)
    assert (result.verdict, result.heard_position, result.feedback()) == (Verdict.PASS, None, "")


@pytest.mark.parametrize("transcript", ["pass me the salt", "past", "I passed it to you"])
def test_talk_mentioning_pass_is_not_a_pass(transcript: str) -> None:
    assert grade_line(transcript, QUEENS_SECOND, LENIENT).verdict is Verdict.UNCLEAR


@pytest.mark.parametrize(
    ("language", "transcript"), [("nl", "pas"), ("nl", "Pas!"), ("nl", "pas, pas"), ("it", "passo"), ("it", "Passo.")]
)
def test_at_a_dutch_or_italian_table_the_word_its_rules_name_passes(language: str, transcript: str) -> None:
    result = grade_line(transcript, ListenContext(2, (Rank.QUEEN,), language=language), STRICT)
    assert (result.verdict, result.heard_position, result.feedback()) == (Verdict.PASS, None, "")


@pytest.mark.parametrize("language", ["nl", "it"])
def test_pass_passes_in_every_language(language: str) -> None:
    for transcript in ("pass", "I pass"):
        assert grade_line(transcript, ListenContext(2, (Rank.QUEEN,), language=language)).verdict is Verdict.PASS


@pytest.mark.parametrize(
    ("language", "transcript"),
    [
        ("nl", "ik pas op"),  # I will mind it
        ("nl", "pas op"),  # watch out
        ("nl", "pasen"),  # Easter
        ("nl", "pasta"),
        ("nl", "mijn pas"),  # my bank card
        ("nl", "past"),  # fits
        ("it", "passa il sale"),  # pass the salt
        ("it", "passa"),
        ("it", "pasta"),
        ("it", "compasso"),  # compasses
        ("it", "il passo"),  # the step
        ("it", "passo dopo"),  # I will come by later
        ("en", "pas"),  # another language's word
        ("en", "passo"),
        ("nl", "passo"),
        ("it", "pas"),
    ],
)
def test_talk_around_the_tables_own_pass_word_is_not_a_pass(language: str, transcript: str) -> None:
    context = ListenContext(2, (Rank.QUEEN,), language=language)
    assert grade_line(transcript, context, LENIENT).verdict is Verdict.UNCLEAR


@pytest.mark.parametrize("transcript", ["", "   ", "[unk]", "<unk> <sil>", "um", "uh ++NOISE++"])
def test_silence(transcript: str) -> None:
    result = grade_line(transcript, QUEENS_SECOND)
    assert (result.verdict, result.score, result.heard, result.heard_position) == (Verdict.SILENT, 0, "", None)
    assert result.feedback() == "nothing was heard; the line is 'There's a Queen as good as he'"


@pytest.mark.parametrize("transcript", ["whose turn is it", "what's for dinner", "hold on a second"])
def test_chatter_is_unclear_and_matches_no_line(transcript: str) -> None:
    result = grade_line(transcript, QUEENS_SECOND, LENIENT)
    assert (result.verdict, result.heard_position, result.heard_rank) == (Verdict.UNCLEAR, None, None)
    assert result.feedback() == "that did not sound like the line 'There's a Queen as good as he'"


# --- recognizer slips and strictness ---------------------------------------------------------


def test_a_dropped_small_word_is_correct_even_when_strict() -> None:
    result = grade_line("there's queen as good as he", QUEENS_SECOND, STRICT)
    assert result.verdict is Verdict.CORRECT
    assert 90 <= result.score < 100
    assert DiffOp("delete", (), ("a",)) in result.diff


def test_one_wrong_word_passes_normal_but_not_strict() -> None:
    transcript = "there's a queen as good as me"
    assert grade_line(transcript, QUEENS_SECOND, LENIENT).verdict is Verdict.CORRECT
    assert grade_line(transcript, QUEENS_SECOND, NORMAL).verdict is Verdict.CORRECT
    strict = grade_line(transcript, QUEENS_SECOND, STRICT)
    assert strict.verdict is Verdict.UNCLEAR
    assert strict.feedback() == "you said 'as good as me', the line ends 'as good as he'"


def test_two_wrong_words_pass_only_lenient() -> None:
    transcript = "there's a queen as could as me"
    assert grade_line(transcript, QUEENS_SECOND, LENIENT).verdict is Verdict.CORRECT
    assert grade_line(transcript, QUEENS_SECOND, NORMAL).verdict is Verdict.UNCLEAR


def test_chatter_around_the_line_is_tolerated() -> None:
    result = grade_line("um well there's a queen as good as he I think", QUEENS_SECOND)
    assert result.verdict is Verdict.CORRECT
    assert DiffOp("insert", ("well",), ()) in result.diff


@pytest.mark.parametrize(
    ("context", "transcript"),
    [
        (ListenContext(2, (Rank.SEVEN,)), "there's a eleven as good as he"),
        (ListenContext(1, (Rank.SEVEN,)), "there's as good as eleven can be"),
        (ListenContext(1, (Rank.ACE,)), "there's as good as a can be"),
        (ListenContext(2, (Rank.QUEEN,)), "there's a green as good as he"),
    ],
)
@pytest.mark.parametrize("strictness", list(Strictness))
def test_a_near_rank_word_is_never_the_rank(context: ListenContext, transcript: str, strictness: Strictness) -> None:
    result = grade_line(transcript, context, strictness)
    assert result.verdict is Verdict.UNCLEAR
    assert result.heard_rank is None


def test_ace_after_a_is_still_the_rank() -> None:
    aces = ListenContext(2, (Rank.ACE,))
    for transcript in ("there's a ace as good as he", "there's an ace as good as he", "there's ace as good as he"):
        assert grade_line(transcript, aces, STRICT).verdict is Verdict.CORRECT, transcript
    assert grade_line("there's as good as ace can be", ListenContext(1, RANKS), STRICT).rank is Rank.ACE


def test_a_missing_rank_passes_only_lenient_and_only_when_the_rank_is_known() -> None:
    transcript = "there's a as good as he"
    assert grade_line(transcript, ListenContext(2, (Rank.ACE,)), NORMAL).verdict is Verdict.UNCLEAR
    assert grade_line(transcript, ListenContext(2, (Rank.ACE,)), LENIENT).verdict is Verdict.CORRECT
    lead = grade_line("there's as good as can be", OPEN_LEAD, LENIENT)
    assert (lead.verdict, lead.rank, lead.expected) == (Verdict.UNCLEAR, None, "There's as good as RANK can be")
    assert lead.feedback() == "you said 'as good as can', the line goes 'as good as RANK can'"


def test_recognizer_homophones_count_only_where_the_rank_goes() -> None:
    assert grade_line("there's a for as good as he", ListenContext(2, (Rank.FOUR,))).verdict is Verdict.CORRECT
    assert grade_line("there's as good as to can be", OPEN_LEAD).rank is Rank.TWO
    assert grade_line("there's a four as good as he", ListenContext(2, (Rank.EIGHT,))).verdict is Verdict.WRONG_RANK


def test_pocketsphinx_and_vosk_markup_is_ignored() -> None:
    grade = grade_line("<s> there's(2) a queen [unk] as good as he </s>", QUEENS_SECOND, STRICT)
    assert grade.verdict is Verdict.CORRECT


# --- other chant sets ------------------------------------------------------------------------


def test_snip_snap_snorum() -> None:
    lead = ListenContext(1, (Rank.QUEEN, Rank.TWO), SNIP_SNAP_SNORUM)
    assert grade_line("Queen!", lead).verdict is Verdict.CORRECT
    assert grade_line("queens", lead).rank is Rank.QUEEN
    assert grade_line("King", lead).verdict is Verdict.WRONG_RANK
    assert grade_line("snorem", ListenContext(4, (Rank.TWO,), SNIP_SNAP_SNORUM)).verdict is Verdict.CORRECT
    assert grade_line("snorum", ListenContext(4, (Rank.TWO,), SNIP_SNAP_SNORUM)).verdict is Verdict.CORRECT
    snap = grade_line("snap", ListenContext(2, (Rank.TWO,), SNIP_SNAP_SNORUM))
    assert (snap.verdict, snap.heard_position) == (Verdict.WRONG_LINE, 3)
    assert snap.feedback() == "that is the third card's line; the second card says 'Snip'"
    assert grade_line("two", ListenContext(2, (Rank.TWO,), SNIP_SNAP_SNORUM)).verdict is Verdict.WRONG_LINE
    assert grade_line("um snip I think", ListenContext(2, (Rank.TWO,), SNIP_SNAP_SNORUM)).verdict is Verdict.CORRECT


def _chant_file(tmp_path: Path, name: str, body: str) -> ChantSet:
    path = tmp_path / f"{name}.toml"
    path.write_text(body, encoding="utf-8")
    return chant_set(str(path))


def test_earls_court_file_end_to_end(tmp_path: Path) -> None:
    chant = _chant_file(
        tmp_path,
        "earls-court",
        'lines = ["Here\'s as good as {rank} can be", "Here\'s a {rank} as good as he",'
        ' "Here\'s the best of all the three", "And here\'s the Earl of Earl\'s Court"]\n',
    )
    fourth = ListenContext(4, (Rank.JACK,), chant)
    assert grade_line("and here's the earl of earl's court", fourth, STRICT).verdict is Verdict.CORRECT
    assert grade_line("And there's the Earl of Coventry", fourth, STRICT).verdict is not Verdict.CORRECT
    second = grade_line("here's a 10 as good as he", ListenContext(2, (Rank.JACK,), chant))
    assert (second.verdict, second.heard_rank, second.expected) == (
        Verdict.WRONG_RANK,
        Rank.TEN,
        "Here's a Jack as good as he",
    )


def test_dutch_file_end_to_end(tmp_path: Path) -> None:
    chant = _chant_file(
        tmp_path,
        "nederlands",
        'name = "nederlands"\n'
        'lines = ["Daar is zo goed als {rank} kan zijn", "Daar is een {rank} zo goed als hij",'
        ' "Daar is de beste van alle drie", "En daar is de graaf van Coventry"]\n'
        '[alternates]\n1 = ["Daar is zo goed een {rank} kan zijn"]\n',
    )
    assert chant.name == "nederlands"
    lead = ListenContext(1, RANKS, chant)
    result = grade_line("daar is zo goed een queen kan zijn", lead, STRICT)
    assert (result.verdict, result.rank, result.expected) == (
        Verdict.CORRECT,
        Rank.QUEEN,
        "Daar is zo goed als Queen kan zijn",  # the alternate is heard, the line taught
    )
    third = ListenContext(3, (Rank.QUEEN,), chant)
    assert grade_line("Daar is de beste van alle drie!", third, STRICT).verdict is Verdict.CORRECT
    wrong = grade_line("en daar is de graaf van coventry", third)
    assert (wrong.verdict, wrong.heard_position) == (Verdict.WRONG_LINE, 4)
    assert wrong.feedback() == "that is the fourth card's line; the third card says 'Daar is de beste van alle drie'"


def test_custom_lines_that_cannot_name_or_match_anything() -> None:
    # Chant files refuse a line with no words (keep.chant_files); the judge must still cope with one.
    chant = ChantSet("odd", ("Lead the {rank}", "Snip", "!!!", "Done"), (("Off we go",), (), (), ()))
    # An alternate lead without {rank} is heard, but names no rank to lead.
    assert grade_line("off we go", ListenContext(1, RANKS, chant)).verdict is Verdict.UNCLEAR
    assert grade_line("off we go", ListenContext(1, (Rank.TEN,), chant)).verdict is Verdict.CORRECT
    # A line with no words in it is never what was heard.
    third = grade_line("whatever you like", ListenContext(3, (Rank.TEN,), chant), LENIENT)
    assert (third.verdict, third.heard_position) == (Verdict.UNCLEAR, None)


# --- properties over every line and rank -----------------------------------------------------


@given(chants, positions, ranks, st.data())
def test_every_accepted_wording_is_correct_at_every_strictness(
    chant: ChantSet, position: int, rank: Rank, data: st.DataObject
) -> None:
    wording = data.draw(st.sampled_from(chant.accepted(position, rank)))
    context = _context(chant, position, rank)
    for strictness in Strictness:
        result = grade_line(wording, context, strictness)
        assert (result.verdict, result.score) == (Verdict.CORRECT, 100)
        assert result.rank is rank


@given(chants, positions, ranks, ranks, st.booleans())
def test_another_rank_on_the_due_line_is_never_correct(
    chant: ChantSet, position: int, due: Rank, said: Rank, slip: bool
) -> None:
    if due is said or not chant.names_rank[position - 1]:
        return
    words = normalise(chant.line(position, said)).split()
    if slip:  # plus a dropped small word, which alone would be forgiven
        small = [i for i, word in enumerate(words) if word in SMALL_WORDS]
        if small:
            del words[small[0]]
    context = ListenContext(position, (due,), chant)
    for strictness in Strictness:
        result = grade_line(" ".join(words), context, strictness)
        assert result.verdict is Verdict.WRONG_RANK
        assert result.heard_rank is said


@given(chants, positions, positions, ranks)
def test_another_positions_line_is_a_wrong_line(chant: ChantSet, due: int, said: int, rank: Rank) -> None:
    if due == said:
        return
    context = _context(chant, due, rank)
    for strictness in Strictness:
        result = grade_line(chant.line(said, rank), context, strictness)
        assert (result.verdict, result.heard_position) == (Verdict.WRONG_LINE, said)


@given(positions, ranks, st.data())
def test_any_one_small_word_dropped_is_forgiven_at_normal(position: int, rank: Rank, data: st.DataObject) -> None:
    words = normalise(EARL.line(position, rank)).split()
    small = [i for i, word in enumerate(words) if word in SMALL_WORDS]
    index = data.draw(st.sampled_from(small))
    said = " ".join(words[:index] + words[index + 1 :])
    assert grade_line(said, _context(EARL, position, rank), NORMAL).verdict is Verdict.CORRECT


@given(positions, ranks, st.lists(st.sampled_from(["good", "me", "the", "coventry", "queen", "as", "pass", "zap"])))
def test_strictness_only_narrows_what_is_correct(position: int, rank: Rank, noise: list[str]) -> None:
    words = normalise(EARL.line(position, rank)).split()
    said = " ".join(words[: len(words) // 2] + noise + words[len(words) // 2 :])
    context = _context(EARL, position, rank)
    verdicts = [grade_line(said, context, strictness).verdict is Verdict.CORRECT for strictness in Strictness]
    lenient, normal, strict = verdicts
    assert lenient >= normal >= strict


@given(st.text(max_size=80), chants, positions, ranks)
def test_feedback_is_empty_exactly_when_nothing_needs_correcting(
    text: str, chant: ChantSet, position: int, rank: Rank
) -> None:
    result = grade_line(text, _context(chant, position, rank))
    assert 0 <= result.score <= 100
    assert (result.feedback() == "") == (result.verdict in (Verdict.CORRECT, Verdict.PASS))
    assert "\n" not in result.feedback()


# --- the word diff ---------------------------------------------------------------------------


def test_word_diff_speaks_from_the_speaker() -> None:
    said = ("well", "there", "is", "queen", "as", "good", "as", "me")
    diff = word_diff(said, ("there", "is", "a", "queen", "as", "good", "as", "he"))
    assert diff == (
        DiffOp("insert", ("well",), ()),
        DiffOp("equal", ("there", "is"), ("there", "is")),
        DiffOp("delete", (), ("a",)),
        DiffOp("equal", ("queen", "as", "good", "as"), ("queen", "as", "good", "as")),
        DiffOp("replace", ("me",), ("he",)),
    )


def test_neighbouring_changes_merge_into_one_stretch() -> None:
    diff = word_diff(("the", "girl", "off", "coventry"), ("the", "earl", "of", "coventry"))
    assert diff[1] == DiffOp("replace", ("girl", "off"), ("earl", "of"))


def test_feedback_for_a_missing_word_quotes_its_neighbours() -> None:
    result = grade_line("there's the best of the three", ListenContext(3, (Rank.TWO,)), STRICT)
    assert result.verdict is Verdict.UNCLEAR
    assert result.feedback() == "you said 'the best of the', the line goes 'the best of all the'"


def test_a_player_who_may_only_pass_is_taught_i_pass_not_the_line() -> None:
    must_pass = ListenContext(3, (Rank.QUEEN,), must_pass=True)
    assert grade_line("pass", must_pass).verdict is Verdict.PASS
    mumbled = grade_line("the cat sat on the mat", must_pass)
    assert (mumbled.verdict, mumbled.expected) == (Verdict.UNCLEAR, "I pass")
    assert mumbled.feedback() == "nothing clear was heard; to pass, say 'I pass'"
    assert grade_line("", must_pass).expected == "I pass"
    line = grade_line("there is the best of all the three", must_pass)  # the table refuses it: no Queen held
    assert (line.verdict, line.expected, line.must_pass) == (
        Verdict.CORRECT,
        "There's the best of all the three",
        False,
    )
    with pytest.raises(ValueError, match="a lead cannot be passed"):
        ListenContext(1, (Rank.QUEEN,), must_pass=True)


def test_a_player_who_may_pass_or_play_is_taught_both_when_not_heard() -> None:
    """A real pack: the laptop cannot know whether the player holds the rank, so a mumble is answered
    with the line and with "I pass", never with the line alone."""
    either = ListenContext(3, (Rank.SIX,), may_pass=True)
    mumbled = grade_line("the cat sat on the mat", either)
    assert (mumbled.verdict, mumbled.expected, mumbled.or_pass) == (
        Verdict.UNCLEAR,
        "There's the best of all the three",
        True,
    )
    assert mumbled.feedback() == (
        "that did not sound like the line 'There's the best of all the three'; or, to pass, say 'I pass'"
    )
    assert grade_line("", either).feedback() == (
        "nothing was heard; the line is 'There's the best of all the three'; or, to pass, say 'I pass'"
    )
    assert grade_line("pass", either).feedback() == ""
    assert not grade_line("there is the best of all the three", either).or_pass
    wrong = grade_line("there is a king as good as he", ListenContext(2, (Rank.SIX,), may_pass=True))
    assert (wrong.verdict, wrong.or_pass) == (Verdict.WRONG_RANK, False)  # a card named: it was played
    with pytest.raises(ValueError, match="a lead cannot be passed"):
        ListenContext(1, (Rank.SIX,), may_pass=True)
