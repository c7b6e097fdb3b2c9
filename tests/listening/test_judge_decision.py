"""The trained verifier's decision on given scores (no model; ``JudgeSettings(verifier=True)``): its
operating points, the named vetoes around it, and why each verdict was given (docs/listening.md)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voice_earl.game.cards import Rank
from voice_earl.listening.judge.candidates import Candidate, Heard, Kind
from voice_earl.listening.judge.decision import (
    JudgeResult,
    JudgeSettings,
    Scored,
    Slot,
    Transcript,
    decide,
    heard_where_voice_fell_away,
    sure_line,
)
from voice_earl.listening.judge.verifier import (
    CLIP,
    MODEL_FILE,
    Look,
    features,
    free_ranges,
    goes_on,
    load_verifier,
)

QUEEN = Candidate(Kind.LINE, " There's a Queen as good as he", "there is a queen as good as he", 2)
KING = Candidate(Kind.LINE, " There's a King as good as he", "there is a king as good as he", 2)
THIRD = Candidate(
    Kind.LINE, " There's the best of all the three", "there is the best of all the three", 3, rankless=True
)
PASS = Candidate(Kind.PASS, " Pass.", "pass")
I_PASS = Candidate(Kind.PASS, " I pass.", "pass")
UNDO = Candidate(Kind.COMMAND, " Undo.", "undo")
SETTINGS = JudgeSettings(verifier=True)


def scored(
    candidate: Candidate, mean: float, gain: float, tokens: int = 8, stop: float = -0.5, **more: float
) -> Scored:
    """A candidate scored ``mean`` per token, ``gain`` per token likelier than on a quiet room."""
    return Scored(candidate, mean * tokens, tokens, (mean - gain) * tokens, stop, end_s=0.4 * tokens**0.5, **more)  # type: ignore[arg-type]


def slot(
    rank: Rank,
    place: int = 0,
    lead: float = 5.0,
    due: bool = True,
    over_due: float = 0.0,
    margin: float = -8.0,
    other: str = "zero",
) -> Slot:
    return Slot(" There's a", f" {rank.word}", -0.5, other, margin, rank, place, lead, due, over_due)


THANKS = Transcript(" Thank you.", -0.8)


def heard(
    *items: Scored,
    slots: dict[Candidate, Slot] | None = None,
    first_pass: str = "",
    free: Transcript = THANKS,
    position: int = 2,
) -> tuple[str, str]:
    decision = decide(items, slots or {}, SETTINGS, lambda: free, first_pass, position)
    return decision.phrase, decision.why


def talk() -> list[Scored]:
    """Scores as table talk gives them: every candidate unlikely, hardly likelier than a quiet room."""
    return [
        scored(QUEEN, -5.5, -0.5),
        scored(KING, -5.7, -0.6),
        scored(THIRD, -5.0, 0.1),
        scored(PASS, -5.0, 0.2, 2, -4.0),
        scored(I_PASS, -5.5, 0.0, 3, -3.0),
        scored(UNDO, -6.5, -1.0, 2),
    ]


# --- the verifier --------------------------------------------------------------------------------


def test_the_verifier_ships_what_it_was_trained_on_and_when() -> None:
    data = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    assert "judge_corpus.npz" in data["trained_on"] and "fitted on the voices" in data["trained_on"]
    assert datetime.date.fromisoformat(data["trained_at"]) <= datetime.date.today()
    verifier = load_verifier()
    assert set(verifier.points) == {kind.value for kind in Heard}
    assert all(0.0 < point < 1.0 for point in verifier.points.values())
    for model in (verifier.line, verifier.short):
        assert len(model.features) == len(model.mean) == len(model.scale) == len(model.coef)
        assert all(scale > 0 for scale in model.scale)
    # The settings' operating points are the verifier's own.
    assert SETTINGS.point(Heard.PASS) == verifier.points["pass"] == JudgeSettings().pass_point


def test_a_line_said_clearly_is_heard_and_says_why() -> None:
    phrase, why = heard(scored(QUEEN, -0.4, 3.0), *talk()[1:], slots={QUEEN: slot(Rank.QUEEN)}, first_pass=QUEEN.phrase)
    assert phrase == QUEEN.phrase
    assert why.startswith("verifier: line ") and f">= {SETTINGS.line_point:.2f}" in why


def test_talk_that_makes_no_candidate_likely_is_none_of_these() -> None:
    phrase, why = heard(*talk(), slots={QUEEN: slot(Rank.QUEEN), KING: slot(Rank.KING, 1, due=False)})
    assert phrase == ""
    assert why.startswith("verifier: ") and " < " in why


def test_the_first_pass_hearing_a_line_makes_it_likelier() -> None:
    line = scored(QUEEN, -3.0, 1.0)
    alone = decide([line, *talk()[1:]], {}, SETTINGS, lambda: Transcript("", 0.0), "", 2)
    agreed = decide([line, *talk()[1:]], {}, SETTINGS, lambda: Transcript("", 0.0), QUEEN.phrase, 2)
    assert agreed.best.candidate == alone.best.candidate == QUEEN
    assert agreed.probability > alone.probability


def test_a_pass_said_alone_is_heard_and_one_that_goes_on_is_not() -> None:
    said = [scored(PASS, -0.6, 4.0, 2, -0.4), *talk()[:3]]
    assert heard(*said, free=Transcript(" Pass.", -0.5))[0] == "pass"
    assert heard(*said, free=Transcript(" Pass. Pass.", -0.5))[0] == "pass"
    phrase, why = heard(*said, free=Transcript(" Pass me the crisps, would you?", -0.4))
    assert phrase == "" and why.startswith("veto not-alone: 'Pass me the crisps, would you?' goes on after it")
    # A word that follows "pass" makes its full stop unlikely.
    went_on = [scored(PASS, -1.0, 3.0, 2, -6.0), *talk()[:3]]
    stop = decide(went_on, {}, replace(SETTINGS, pass_point=0.0), lambda: Transcript(" Pass.", -1.0), "", 2)
    assert stop.phrase == "" and stop.why.startswith("veto not-alone: its full stop -6.0 < -4.5")


def test_a_pass_whose_full_stop_is_unlikely_was_followed_by_more_words() -> None:
    """ "my password is on the fridge": "pass" likely enough, the full stop after it not."""
    stopped = scored(PASS, -1.5, 2.0, 2, -0.5)
    went_on = scored(PASS, -1.5, 2.0, 2, -7.0)
    free = Transcript(" My password is on the fridge.", -0.6)
    weigh = [decide([item, *talk()[:3]], {}, SETTINGS, lambda: free, "", 2).probability for item in (stopped, went_on)]
    assert weigh[0] > weigh[1]


def test_the_free_transcript_is_asked_for_only_when_a_short_phrase_could_win() -> None:
    asked: list[str] = []

    def free() -> Transcript:
        asked.append("asked")
        return Transcript(" Pass.", -0.5)

    line = decide([scored(QUEEN, -0.4, 3.0), *talk()[1:]], {QUEEN: slot(Rank.QUEEN)}, SETTINGS, free, QUEEN.phrase, 2)
    assert line.phrase == QUEEN.phrase and asked == []
    passed = decide([scored(PASS, -0.6, 4.0, 2, -0.4), *talk()[:3]], {}, SETTINGS, free, "pass", 2)
    assert passed.phrase == "pass" and asked == ["asked"]


@given(
    st.floats(-5.0, 0.0),
    st.floats(-3.0, 5.0),
    st.floats(-8.0, 0.0),
    st.floats(-8.0, 0.0),
    st.booleans(),
    st.sampled_from([" Pass.", " Pass me the crisps.", " Thank you.", ""]),
)
def test_a_short_phrases_bounds_hold_whatever_the_free_transcript_says(
    mean: float, gain: float, stop: float, free_mean: float, agree: bool, free_text: str
) -> None:
    """What lets the free transcript be skipped: no transcript can make a short phrase likelier."""
    item = scored(PASS, mean, gain, 2, stop)
    look = Look([item, *talk()], {}, "pass" if agree else "", 2, False)
    short = load_verifier().short
    low, high = short.bounds(features(item, look), free_ranges())
    assert low - 1e-12 <= short.probability(features(item, look, (free_text, free_mean))) <= high + 1e-12


def test_each_kind_is_heard_at_its_own_operating_point() -> None:
    said = [scored(PASS, -4.5, 0.5, 2, -1.0), *talk()[:3]]  # a pass heard weakly, in a loud room
    free = Transcript(" Pass.", -4.0)
    decision = decide(said, {}, SETTINGS, lambda: free, "pass", 2, loud_room=True, exact=True)
    assert decision.heard is Heard.PASS and decision.phrase == "pass"
    strict = replace(SETTINGS, pass_point=min(0.999, decision.probability + 0.001))
    assert decide(said, {}, strict, lambda: free, "pass", 2, loud_room=True).phrase == ""
    lines_strict = replace(SETTINGS, line_point=0.999)
    assert decide(said, {}, lines_strict, lambda: free, "pass", 2, loud_room=True).phrase == "pass"


# --- the rules around it ---------------------------------------------------------------------------


def test_a_rank_not_due_needs_a_clear_lead_in_its_slot() -> None:
    """A wrong rank is a penalty: where the rank due is nearly as likely in the slot, or the rank not
    due is not even the likeliest there, nothing is heard and the player is asked again."""
    king, queen = scored(KING, -0.5, 3.0), scored(QUEEN, -2.5, 1.5)
    clear = {KING: slot(Rank.KING, 0, lead=4.0, due=False, over_due=4.0), QUEEN: slot(Rank.QUEEN, 1, lead=-4.0)}
    assert heard(king, queen, *talk()[2:], slots=clear)[0] == KING.phrase  # a wrong rank, clearly said
    close = {**clear, KING: replace(clear[KING], lead=1.0, over_due=1.0)}
    phrase, why = heard(king, queen, *talk()[2:], slots=close)
    assert phrase == "" and why.startswith("veto rank-not-clear: King leads the rank due by 1.0 < 2")
    second = {**clear, KING: replace(clear[KING], place=1)}
    assert heard(king, queen, *talk()[2:], slots=second)[0] == ""


def test_in_a_quiet_room_what_is_heard_is_clearly_likelier_than_in_a_silent_room() -> None:
    """A murmur at the start of a recording ("I A X 2") scored "Pass, please." at -4.4 per token, hardly
    likelier than silence: in a loud room the noise makes that likely for a pass said, in a quiet one not."""
    murmur = [scored(Candidate(Kind.PASS, " Pass, please.", "pass"), -4.4, 0.4, 4, -0.8), *talk()[:3]]
    free = Transcript(" e", -3.5)
    quiet = decide(murmur, {}, replace(SETTINGS, pass_point=0.0), lambda: free, "", 2, loud_room=False)
    assert quiet.phrase == "" and quiet.why.startswith("veto weak-in-quiet: likelier than in a silent room by 0.4 < 1")
    loud = decide(murmur, {}, replace(SETTINGS, pass_point=0.0), lambda: free, "", 2, loud_room=True)
    assert loud.phrase == "pass"


def test_a_number_that_is_no_rank_is_heard_as_itself() -> None:
    seven = Candidate(Kind.LINE, " There's as good as 7 can be", "there is as good as seven can be", 1)
    eleven = {seven: replace(slot(Rank.SEVEN, margin=2.5, other="eleven"), before=" There's as good as", spelling=" 7")}
    phrase, why = heard(scored(seven, -0.4, 3.0), *talk()[2:], slots=eleven, position=1)
    assert phrase == "there is as good as eleven can be"
    assert why.startswith("rule no-rank: 'eleven' where the rank goes (line ")
    close = {seven: replace(eleven[seven], margin=0.5)}
    assert heard(scored(seven, -0.4, 3.0), *talk()[2:], slots=close, position=1)[0] == seven.phrase


def test_talk_that_starts_with_a_pass_goes_on() -> None:
    sayings = (" Pass.", " I pass.", " Pass, please.")
    assert goes_on(sayings, " Pass it to the left.") and goes_on(sayings, " I pass, said the cat.")
    assert not goes_on(sayings, " Pass. Pass.") and not goes_on(sayings, " Thank you.")


def test_features_are_cut_off_where_they_stop_saying_more() -> None:
    item = scored(PASS, -9.0, float("-inf"), 2, -30.0, voice_drop_db=50.0, voice_back_db=-80.0)
    values = features(item, Look([item], {}, "", 2, True), (" Pass.", 0.0))
    for name, (low, high) in CLIP.items():
        if name in values:
            assert low <= values[name] <= high, name
    assert values["lead"] == CLIP["lead"][1]  # nothing else was scored


# --- the voice falling away (a loud room) ----------------------------------------------------------


def heard_result(
    candidate: Candidate, slots: dict[Candidate, Slot] | None = None, position: int = 2, drop: float = 9.0
) -> JudgeResult:
    item = Scored(candidate, -0.5 * 8, 8, -3.5 * 8, -0.5, voice_drop_db=drop, voice_back_db=-6.0)
    return JudgeResult(candidate.phrase, item, 0.05, (item,), slots or {}, position=position)


def test_with_the_verifier_a_phrase_heard_where_the_voice_fell_away_is_taken_at_once() -> None:
    assert heard_where_voice_fell_away(heard_result(QUEEN), SETTINGS)
    assert heard_where_voice_fell_away(heard_result(PASS), SETTINGS)
    assert not heard_where_voice_fell_away(heard_result(QUEEN, drop=1.0), SETTINGS)
    nothing = replace(heard_result(QUEEN), phrase="")
    assert not heard_where_voice_fell_away(nothing, SETTINGS)


def test_with_the_verifier_only_the_line_due_heard_is_taken_before_the_whole_speech() -> None:
    """What :meth:`WhisperJudge.stopped_after` may take once the voice fell away after it: never a
    pass (talk starts with one), a wrong rank or a wrong line."""

    def sure(candidate: Candidate, due: bool = True, position: int = 2) -> bool:
        result = heard_result(candidate, {candidate: slot(Rank.QUEEN, due=due)}, position)
        return sure_line(result.scored[0], result, SETTINGS)

    assert sure(QUEEN) and sure(THIRD, position=3)
    assert not sure(QUEEN, due=False)  # a wrong rank
    assert not sure(QUEEN, position=3)  # a wrong line
    assert not sure(PASS) and not sure(UNDO)
    assert not sure_line(heard_result(QUEEN).scored[0], replace(heard_result(QUEEN), phrase=""), SETTINGS)


def free_asked_never() -> Callable[[], Transcript]:
    def never() -> Transcript:
        raise AssertionError("the free transcript was asked for")

    return never


def test_a_line_needs_no_free_transcript() -> None:
    decision = decide([scored(QUEEN, -0.4, 3.0)], {QUEEN: slot(Rank.QUEEN)}, SETTINGS, free_asked_never(), "", 2)
    assert decision.phrase == QUEEN.phrase


@pytest.mark.parametrize("kind", list(Heard))
def test_every_kind_has_an_operating_point_in_the_settings(kind: Heard) -> None:
    assert 0.0 < SETTINGS.point(kind) < 1.0
