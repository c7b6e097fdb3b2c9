"""The judge's rules on given scores (no model): which phrase each rule hears, and why it says it did."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from voice_earl.game.cards import Rank
from voice_earl.listening.judge.candidates import Candidate, Kind
from voice_earl.listening.judge.decision import (
    JudgeResult,
    JudgeSettings,
    Scored,
    Slot,
    Transcript,
    decide,
    fell_away,
    heard_where_voice_fell_away,
    sure_line,
    voice_stopped,
)
from voice_earl.listening.judge.rules import choose
from voice_earl.listening.judge.settings import trained_judge_settings
from voice_earl.listening.judge.whisper import speaker_stopped
from voice_earl.listening.stream.audio import SAMPLE_RATE
from voice_earl.words.text import normalise

SETTINGS = JudgeSettings(
    token_bonus=3.0,
    line_floor=-3.0,
    pass_floor=-3.0,
    command_floor=-2.0,
    agreed_line_floor=-5.0,
    agreed_line_gain=float("-inf"),
    agree_margin=8.0,
    rank_margin=1.0,
    line_gain=99.0,
    pass_gain=99.0,
    alone_margin=99.0,
    stop_floor=-99.0,
)  # the floors alone


# --- choosing --------------------------------------------------------------------------------------

LINE = Candidate(Kind.LINE, " There's a queen as good as he", "there is a queen as good as he", 2)
KING = Candidate(Kind.LINE, " There's a king as good as he", "there is a king as good as he", 2)
PASS = Candidate(Kind.PASS, " Pass.", "pass")
UNDO = Candidate(Kind.COMMAND, " Undo.", "undo")


def scored(candidate: Candidate, mean: float, tokens: int) -> Scored:
    return Scored(candidate, mean * tokens, tokens)


def test_every_verdict_says_which_rule_decided() -> None:
    """The reason reads the rule's name, then its measure against its bar (docs/listening.md)."""

    def why(
        *options: Scored, settings: JudgeSettings = SETTINGS, first_pass: str = "", free: Transcript | None = None
    ) -> str:
        said = free or Transcript(" Thank you.", -1.0)
        return decide(options, {}, settings, lambda: said, first_pass).why

    assert why(scored(LINE, -1.0, 8)) == "rule floor: line mean -1.00 >= -3"
    assert why(scored(LINE, -5.0, 8)) == "rules: nothing heard: rule floor: line mean -5.00 < -3, gain -inf (bar 99)"
    gains = replace(SETTINGS, line_gain=1.0, line_gain_floor=-4.5)
    assert why(Scored(LINE, -4.0 * 8, 8, -6.0 * 8), settings=gains) == "rule gain: line gain 2.00 >= 1, mean -4.00"
    assert why(scored(LINE, -4.0, 8), first_pass=LINE.phrase).startswith("rule agreement: the first pass heard it")
    alone = replace(SETTINGS, alone_margin=1.5, sure_floor=0.0)
    assert why(scored(PASS, -2.0, 2), settings=alone, free=Transcript(" Pass me the crisps.", -1.0)) == (
        "veto not-alone: 'Pass me the crisps.' goes on after it"
    )
    assert why(scored(PASS, -2.0, 2), settings=alone, free=Transcript(" Thank you.", -0.2)) == (
        "veto not-alone: 'Thank you.' is likelier by 1.8 > 1.5"
    )
    stop = replace(SETTINGS, stop_floor=-4.0)
    assert why(Scored(PASS, -6.0, 2, last_logprob=-5.0), settings=stop) == (
        "rules: nothing heard: veto full-stop: its full stop -5.0 < -4"
    )


def test_a_held_pass_need_not_be_said_alone_but_still_needs_its_full_stop() -> None:
    """A phone's Hold to speak marks the speaker's words: what Whisper writes around them is the room."""
    alone = replace(SETTINGS, alone_margin=1.5, sure_floor=0.0, stop_floor=-4.0)
    babble = Transcript(" Pass me!", -1.0)
    said = [scored(PASS, -2.0, 2)]
    assert decide(said, {}, alone, lambda: babble).why == "veto not-alone: 'Pass me!' goes on after it"
    assert decide(said, {}, alone, lambda: babble, held=True).phrase == "pass"
    cut = [Scored(PASS, -4.0, 2, last_logprob=-5.0)]  # "pass it to the left": the stop after "pass" is unlikely
    assert decide(cut, {}, alone, lambda: babble, held=True).phrase == ""


def test_a_held_pass_the_first_pass_heard_too_needs_less_evidence_but_must_be_said_alone() -> None:
    """A bare "pass" held in babble scores low; the first pass's grammar also makes "pass me the
    crisps" a pass, which the free transcript tells apart."""
    rules = replace(SETTINGS, alone_margin=2.5, sure_floor=0.0, stop_floor=-4.5, pass_gain_floor=-6.0)
    said = [scored(PASS, -4.5, 2), scored(LINE, -5.0, 8)]
    room = Transcript(" Buzz Light", -2.6)
    assert decide(said, {}, rules, lambda: room, "pass", held=True).phrase == "pass"
    assert decide(said, {}, rules, lambda: room, "pass", held=True).why.startswith(
        "rule held-agreement: the first pass heard 'pass' too, mean -4.50 >= -6"
    )
    assert decide(said, {}, rules, lambda: room, "", held=True).phrase == ""  # the first pass heard nothing
    assert decide(said, {}, rules, lambda: room, "pass").phrase == ""  # not held: the laptop's microphone
    talk = Transcript(" Pass me the crisps.", -1.0)
    assert decide(said, {}, rules, lambda: talk, "pass", held=True).phrase == ""  # goes on after it
    clear = Transcript(" You shall not pass.", -0.9)
    assert decide(said, {}, rules, lambda: clear, "pass", held=True).phrase == ""  # likelier by 3.6
    too_low = [scored(PASS, -6.5, 2)]
    assert decide(too_low, {}, rules, lambda: room, "pass", held=True).phrase == ""
    cut = [Scored(PASS, -9.0, 2, last_logprob=-5.0)]  # "pass it to the left": its full stop is unlikely
    assert decide(cut, {}, rules, lambda: room, "pass", held=True).phrase == ""


def test_the_best_candidate_is_heard_when_it_clears_its_floor() -> None:
    options = [scored(LINE, -1.0, 8), scored(PASS, -6.0, 2), scored(UNDO, -7.0, 2)]
    assert choose(options, {}, SETTINGS).phrase == "there is a queen as good as he"


def test_nothing_is_heard_below_the_floor() -> None:
    options = [scored(LINE, -5.0, 8), scored(PASS, -3.5, 2), scored(UNDO, -7.0, 2)]
    decided = choose(options, {}, SETTINGS)
    assert decided.phrase == "" and decided.best.candidate is PASS


def test_the_bonus_per_token_keeps_short_candidates_from_winning_on_their_length() -> None:
    options = [scored(LINE, -2.0, 9), scored(UNDO, -6.0, 2)]  # sums: -18 against -12
    assert choose(options, {}, SETTINGS).phrase == LINE.phrase
    assert choose(options, {}, replace(SETTINGS, token_bonus=0.0, command_floor=-9.0)).phrase == "undo"


def test_a_short_phrase_below_its_floor_never_hides_a_line_that_clears_its_own() -> None:
    options = [scored(LINE, -2.9, 8), scored(UNDO, -2.5, 2)]  # with the bonus: 0.8 against 1.0
    assert choose(options, {}, replace(SETTINGS, token_bonus=3.0)).phrase == LINE.phrase


def test_what_the_first_pass_heard_needs_less_evidence() -> None:
    options = [scored(LINE, -4.0, 8), scored(KING, -4.5, 8), scored(PASS, -7.0, 2)]
    assert choose(options, {}, SETTINGS).phrase == ""
    assert choose(options, {}, SETTINGS, first_pass=LINE.phrase).phrase == LINE.phrase
    assert choose(options, {}, SETTINGS, first_pass=KING.phrase).phrase == KING.phrase
    # ... but not when the judge clearly heard something else, nor below the lower floor.
    assert choose([scored(LINE, -3.2, 8), scored(KING, -5.0, 8)], {}, SETTINGS, first_pass=KING.phrase).phrase == ""
    assert choose([scored(LINE, -5.5, 8)], {}, SETTINGS, first_pass=LINE.phrase).phrase == ""
    # Nor when the same line with another rank scored better, or a number that is no rank is likelier.
    ranks = {
        KING: Slot(" There's a", " king", -4.0, "zero", -3.0, Rank.KING, 1),
        LINE: Slot(" There's a", " queen", -3.0, "zero", -2.0, Rank.QUEEN, 0),
    }
    assert choose(options, ranks, SETTINGS, first_pass=KING.phrase).phrase == ""
    assert choose(options, ranks, SETTINGS, first_pass=LINE.phrase).phrase == LINE.phrase
    zero = {KING: Slot(" There's a", " king", -4.0, "zero", 0.5, Rank.KING, 0)}
    assert choose(options, zero, SETTINGS, first_pass=KING.phrase).phrase == ""
    # The same rank after "an" that scored better is no other rank.
    a_ace = Candidate(Kind.LINE, " There's a ace as good as he", "there is a ace as good as he", 2)
    an_ace = Candidate(Kind.LINE, " There's an ace as good as he", "there is an ace as good as he", 2)
    aces = {
        a_ace: Slot(" There's a", " ace", -3.0, "zero", -2.0, Rank.ACE, 0),
        an_ace: Slot(" There's an", " ace", -3.0, "zero", -2.0, Rank.ACE, 0),
    }
    both = [scored(an_ace, -4.0, 8), scored(a_ace, -4.3, 8), scored(PASS, -7.0, 2)]
    assert choose(both, aces, SETTINGS, first_pass=a_ace.phrase).phrase == a_ace.phrase
    # A command is never taken on the first pass's word.
    assert choose([scored(UNDO, -2.5, 2)], {}, SETTINGS, first_pass="undo").phrase == ""


def test_the_first_pass_never_makes_talk_a_wrong_line_or_a_wrong_rank() -> None:
    """Its grammar forces talk onto a line ("the best of all the cakes"): agreement is for the line
    due, with a rank due, that the audio makes likelier than a quiet room does."""
    gained = replace(SETTINGS, agreed_line_gain=0.5)
    heard = Scored(KING, -4.0 * 8, 8, quiet_logprob=-5.0 * 8)  # gain 1.0
    flat = Scored(KING, -4.0 * 8, 8, quiet_logprob=-4.25 * 8)  # gain 0.25
    assert choose([heard], {}, gained, first_pass=KING.phrase, due_position=2).phrase == KING.phrase
    assert choose([flat], {}, gained, first_pass=KING.phrase, due_position=2).phrase == ""
    assert choose([heard], {}, gained, first_pass=KING.phrase, due_position=3).phrase == ""  # a wrong line
    due = {KING: Slot(" There's a", " king", -2.0, "zero", -3.0, Rank.KING, 0)}
    not_due = {KING: replace(due[KING], due=False)}
    assert choose([heard], due, gained, first_pass=KING.phrase, due_position=2).phrase == KING.phrase
    assert choose([heard], not_due, gained, first_pass=KING.phrase, due_position=2).phrase == ""  # a wrong rank


def test_a_nine_is_not_an_eight_when_the_first_pass_heard_a_nine() -> None:
    """ "a nine" sounds like "an ine": the judge may find "There's an eight" a little likelier."""
    nine = Candidate(Kind.LINE, " There's a 9 as good as he", "there is a nine as good as he", 2)
    an_eight = Candidate(Kind.LINE, " There's an eight as good as he", "there is an eight as good as he", 2)
    a_two = Candidate(Kind.LINE, " There's a two as good as he", "there is a two as good as he", 2)
    ranks = {
        nine: Slot(" There's a", " 9", -2.0, "zero", -3.0, Rank.NINE, 1),
        an_eight: Slot(" There's an", " eight", -1.5, "zero", -3.0, Rank.EIGHT, 0),
        a_two: Slot(" There's a", " two", -2.5, "zero", -3.0, Rank.TWO, 2),
    }
    close = [scored(an_eight, -2.0, 8), scored(nine, -2.2, 8), scored(a_two, -2.3, 8)]
    liaison = replace(SETTINGS, liaison_margin=3.0)
    assert choose(close, ranks, liaison, first_pass=nine.phrase).phrase == nine.phrase
    assert choose(close, ranks, liaison).phrase == an_eight.phrase  # the first pass heard nothing
    assert choose(close, ranks, liaison, first_pass=a_two.phrase).phrase == a_two.phrase
    far = [scored(an_eight, -1.0, 8), scored(nine, -2.2, 8)]  # 9.6 apart
    assert choose(far, ranks, liaison, first_pass=nine.phrase).phrase == an_eight.phrase
    # Only "an" against "a": a line with "a" that wins keeps its rank.
    a_won = [scored(nine, -2.0, 8), scored(a_two, -2.2, 8)]
    assert choose(a_won, ranks, liaison, first_pass=a_two.phrase).phrase == nine.phrase


def test_a_rank_not_due_is_heard_only_where_it_is_the_likeliest_in_its_slot() -> None:
    """Whisper scores the words after the slot given the rank, and "a king as good as he" is likelier
    English than "a ten as good as he": a whole line may favour a rank that the slot itself, the
    sound where the rank is said, ranks second."""
    ten = Candidate(Kind.LINE, " There's a ten as good as he", "there is a ten as good as he", 2)
    ranks = {
        ten: Slot(" There's a", " ten", -3.5, "zero", -5.5, Rank.TEN, 0),
        KING: Slot(" There's a", " king", -5.7, "zero", -3.3, Rank.KING, 1, due=False),
    }
    options = [scored(KING, -2.2, 8), scored(ten, -3.0, 8)]
    assert choose(options, ranks, replace(SETTINGS, line_floor=-3.5), due_position=2).phrase == ten.phrase
    # Where the slot says King, King is heard: a wrong rank.
    led = {ten: replace(ranks[ten], place=1), KING: replace(ranks[KING], place=0)}
    assert choose(options, led, replace(SETTINGS, line_floor=-3.5), due_position=2).phrase == KING.phrase


def test_a_rank_not_due_is_heard_only_when_clearly_likelier_in_its_slot_than_the_rank_due() -> None:
    """Whisper hears some voices' "a nine" as "an eight", only a little likelier than "a nine". A
    wrong rank is a penalty, so the player is asked again instead; a wrong rank clearly said is heard."""
    nine = Candidate(Kind.LINE, " There's a nine as good as he", "there is a nine as good as he", 2)
    eight = Candidate(Kind.LINE, " There's an eight as good as he", "there is an eight as good as he", 2)
    settings = replace(SETTINGS, line_floor=-3.5, wrong_rank_lead=2.0)
    heard_eight = Slot(" There's an", " eight", -7.0, "zero", -9.0, Rank.EIGHT, 0, lead=1.9, due=False, over_due=1.9)
    ranks = {eight: heard_eight, nine: Slot(" There's a", " nine", -8.9, "zero", -7.1, Rank.NINE, 1, lead=-1.9)}
    options = [scored(eight, -2.9, 8), scored(nine, -3.9, 8)]
    assert choose(options, ranks, settings, due_position=2).phrase == ""
    near = [scored(eight, -2.9, 8), scored(nine, -3.2, 8)]
    assert choose(near, ranks, settings, due_position=2).phrase == nine.phrase
    clearly = {**ranks, eight: replace(heard_eight, over_due=2.5)}
    assert choose(options, clearly, settings, due_position=2).phrase == eight.phrase


def test_a_rank_not_due_is_heard_only_when_its_whole_line_is_clearly_likelier_than_the_rank_dues() -> None:
    """In babble the slot alone may favour a rank that the rest of the line does not: some voices'
    "a queen" came back as "a three", clearly likeliest in the slot but hardly likelier as a whole
    line. A wrong rank is a penalty, and a wrong rank said ("six" where a five is held) can leave the
    line with the rank due nearly as likely: too close to call, so the player is asked again."""
    queen = Candidate(Kind.LINE, " There's a Queen as good as he", "there is a queen as good as he", 2)
    three = Candidate(Kind.LINE, " There's a three as good as he", "there is a three as good as he", 2)
    settings = replace(SETTINGS, line_floor=-3.5, wrong_rank_lead=2.0, wrong_rank_line_lead=0.6)
    slots = {
        three: Slot(" There's a", " three", -5.0, "zero", -9.0, Rank.THREE, 0, lead=2.3, due=False, over_due=2.3),
        queen: Slot(" There's a", " Queen", -7.3, "zero", -9.0, Rank.QUEEN, 1, lead=-2.3),
    }

    def heard(three_mean: float) -> str:
        return choose([scored(three, three_mean, 9), scored(queen, -3.2, 9)], slots, settings, due_position=2).phrase

    assert heard(-2.7) == ""
    assert heard(-2.5) == three.phrase
    assert heard(-3.6) == queen.phrase


def test_a_number_that_is_no_rank_is_heard_as_itself() -> None:
    seven = Candidate(Kind.LINE, " There's as good as 7 can be", "there is as good as seven can be", 1)
    slot = Slot(" There's as good as", " 7", -3.0, "eleven", 2.0, Rank.SEVEN, 0)
    assert choose([scored(seven, -1.0, 8)], {seven: slot}, SETTINGS).phrase == "there is as good as eleven can be"
    close = Slot(" There's as good as", " 7", -3.0, "eleven", 0.5, Rank.SEVEN, 0)
    assert choose([scored(seven, -1.0, 8)], {seven: close}, SETTINGS).phrase == seven.phrase


def test_below_its_floor_a_line_or_a_pass_is_heard_on_its_gain_over_a_quiet_room() -> None:
    """Noise makes every candidate unlikely; what counts then is how much likelier the audio makes it."""
    gains = replace(SETTINGS, line_gain=1.5, line_gain_floor=-4.5, pass_gain=1.0, pass_gain_floor=-5.0)
    noisy_line = Scored(LINE, -4.0 * 8, 8, quiet_logprob=-6.0 * 8)  # gain 2.0
    assert noisy_line.gain == pytest.approx(2.0)
    assert choose([noisy_line], {}, SETTINGS).phrase == ""  # floors alone: not heard
    assert choose([noisy_line], {}, gains).phrase == LINE.phrase
    assert choose([Scored(LINE, -4.0 * 8, 8, quiet_logprob=-4.5 * 8)], {}, gains).phrase == ""  # gain 0.5
    assert choose([Scored(LINE, -5.0 * 8, 8, quiet_logprob=-9.0 * 8)], {}, gains).phrase == ""  # below the lower floor
    assert choose([Scored(PASS, -4.5 * 2, 2, quiet_logprob=-7.0 * 2)], {}, gains).phrase == "pass"
    assert choose([Scored(UNDO, -4.5 * 2, 2, quiet_logprob=-9.0 * 2)], {}, gains).phrase == ""  # never a command
    # A line taken on its gain must have no number likelier than its rank where the rank goes.
    zero = {LINE: Slot(" There's a", " queen", -4.0, "zero", 0.5, Rank.QUEEN, 0)}
    assert choose([noisy_line], zero, gains).phrase == ""
    # ... and its rank clearly the likeliest there.
    close = {LINE: Slot(" There's a", " queen", -4.0, "zero", -3.0, Rank.QUEEN, 0, lead=0.2)}
    clear = {LINE: Slot(" There's a", " queen", -4.0, "zero", -3.0, Rank.QUEEN, 0, lead=2.0)}
    assert choose([noisy_line], close, gains).phrase == "" and choose([noisy_line], clear, gains).phrase == LINE.phrase
    # ... and a rank due: talk names ranks ("I had two aces"), so a wrong rank needs its mean.
    assert choose([noisy_line], {LINE: replace(clear[LINE], due=False)}, gains).phrase == ""
    clearly_said = Scored(LINE, -2.5 * 8, 8, quiet_logprob=-6.0 * 8)
    assert choose([clearly_said], {LINE: replace(clear[LINE], due=False)}, gains).phrase == LINE.phrase


def test_a_pass_heard_on_its_gain_must_be_clearly_likelier_than_the_rooms_babble_makes_it() -> None:
    """The babble of a loud room alone, no one speaking to the game, now and then makes "Pass,
    please." 0.8 to 0.9 per token likelier than a quiet room does; a pass said in it is likelier
    still. Below its floor, a pass at such a gain is not heard."""
    settings = JudgeSettings()

    def below_floor(gain: float) -> Scored:
        return Scored(PASS, -4.0 * 2, 2, quiet_logprob=(-4.0 - gain) * 2)

    assert below_floor(0.85).mean < settings.pass_floor
    assert choose([below_floor(0.85)], {}, settings).phrase == ""
    assert choose([below_floor(1.0)], {}, settings).phrase == "pass"


def test_with_the_trained_judges_numbers_a_pass_heard_on_its_gain_needs_the_voice_to_fall_away_after_it() -> None:
    """The trained judge makes its passes likelier in a room's talk alone (half a second of babble: "Pass,
    please." at -3.4, 2.0 likelier than a quiet room), but the talk does not stop where they end: below the
    trained floor a pass is heard on its gain only where the voice fell away after it (``veto room-raised``)."""
    trained = trained_judge_settings()
    room = Scored(PASS, -3.4 * 2, 2, quiet_logprob=-5.4 * 2, voice_drop_db=1.0, voice_back_db=2.0)
    said = replace(room, voice_drop_db=8.0, voice_back_db=-6.0)  # the voice fell 8 dB there and stayed down
    assert room.mean < trained.pass_floor and room.gain >= trained.pass_gain
    assert choose([room], {}, JudgeSettings()).phrase == "pass"  # tiny.en's numbers: heard on its gain
    decided = choose([room], {}, trained)
    assert decided.phrase == "" and "veto room-raised" in decided.why
    assert choose([said], {}, trained).phrase == "pass"
    assert choose([replace(room, logprob=-2.9 * 2, quiet_logprob=-4.9 * 2)], {}, trained).phrase == "pass"  # floor


def test_a_held_pass_whose_voice_fell_away_before_the_release_is_heard_on_its_gain() -> None:
    """A phone's hold ends 0.25 s after the voice, before the second in which a voice would come back:
    on the laptop's microphone that is no audio after it yet (the speaker may only pause), but in a hold the
    speaker let go of the button there, so a voice that fell away stayed away. Talk that went on past the
    pass (the voice back as loud) and a room whose level hardly fell are still the room raising it."""
    trained = trained_judge_settings()
    fell = Scored(PASS, -3.9 * 2, 2, quiet_logprob=-5.7 * 2, voice_drop_db=15.7, voice_back_db=None)
    assert fell.mean < trained.pass_floor and fell.gain >= trained.pass_gain
    assert fell_away(fell, trained, held=True) and not fell_away(fell, trained)
    room = Transcript(" Buzz Light", -2.6)
    assert decide([fell], {}, trained, lambda: room, held=True).why.startswith("rule gain: pass gain 1.80")
    assert "veto room-raised" in choose([fell], {}, trained).why  # the laptop's microphone: it may come back
    went_on = replace(fell, voice_back_db=0.2)  # "as good as new", held in the cafe: the voice came back
    level = replace(fell, voice_drop_db=2.5)  # the cafe's talk alone, held: the level hardly fell
    for talk in (went_on, level):
        assert "veto room-raised" in decide([talk], {}, trained, lambda: room, held=True).why


def test_a_line_heard_on_its_gain_is_not_heard_when_another_line_is_clearly_likelier() -> None:
    """ "There's a Nine as good as he" said where the Earl is due: too unlikely to be heard as a wrong
    line, yet the Earl line, far less likely, cleared its gain. The sound is more like the other."""
    gains = replace(
        SETTINGS, line_floor=-3.5, line_gain=1.0, line_gain_floor=-4.5, other_line_floor=-2.5, line_gain_rival=1.0
    )
    earl = Candidate(Kind.LINE, " And there's the Earl of Coventry", "and there is the earl of coventry", 4)
    nine = Candidate(Kind.LINE, " There's a nine as good as he", "there is a nine as good as he", 2)
    due = Scored(earl, -4.4 * 9, 9, quiet_logprob=-5.5 * 9)  # gain 1.1
    said = Scored(nine, -2.9 * 8, 8, quiet_logprob=-4.8 * 8)
    assert choose([due], {}, gains, due_position=4).phrase == earl.phrase
    assert choose([due, said], {}, gains, due_position=4).phrase == ""
    assert choose([due, replace(said, logprob=-5.0 * 8)], {}, gains, due_position=4).phrase == earl.phrase
    # A line heard on its own mean is heard whatever else is likely.
    assert choose([replace(due, logprob=-3.2 * 9), said], {}, gains, due_position=4).phrase == earl.phrase


def test_a_line_that_names_no_rank_must_be_clearly_likelier_than_in_a_quiet_room() -> None:
    """ "There's the best of all the three" is likely English for its words alone: a pass said in
    babble made it likely enough to clear the line floor, though hardly likelier than a quiet room."""
    text = " There's the best of all the three"
    third = Candidate(Kind.LINE, text, normalise(text), 3, rankless=True)
    settings = replace(SETTINGS, line_floor=-3.5, agreed_line_floor=-4.5, rankless_line_gain=0.8)
    babble = Scored(third, -3.3 * 9, 9, quiet_logprob=-3.95 * 9)  # gain 0.65
    said = Scored(third, -3.3 * 9, 9, quiet_logprob=-4.3 * 9)  # gain 1.0
    assert choose([babble], {}, settings, due_position=3).phrase == ""
    assert choose([babble], {}, settings, first_pass=third.phrase, due_position=3).phrase == ""
    assert choose([said], {}, settings, due_position=3).phrase == third.phrase
    # A line with a rank has its slot to show what was said.
    named = Scored(replace(third, rankless=False), -3.3 * 9, 9, quiet_logprob=-3.95 * 9)
    assert choose([named], {}, settings, due_position=3).phrase == third.phrase


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

    assert decide(options, {}, alone, free(" Thank you.", -1.0)).phrase == "pass"
    assert decide(options, {}, alone, free(" Pass. Pass.", -0.6)).phrase == "pass"
    assert decide(options, {}, alone, free(" Thank you.", -0.3)).phrase == ""  # much likelier than "Pass."
    assert decide(options, {}, alone, free(" Pass me the crisps, would you?", -1.0)).phrase == ""
    assert decide([scored(UNDO, -1.0, 2)], {}, alone, free(" Undo your seat belt.", -1.0)).phrase == ""
    assert len(asked) == 5
    assert decide([scored(LINE, -1.0, 8)], {}, alone, free(" Thank you.", 0.0)).phrase == LINE.phrase
    assert len(asked) == 5  # a line needs no free transcript
    # A pass that scores very well was said alone, whatever talk around it the transcript takes in.
    sure = replace(alone, sure_floor=-1.5)
    babble = free(" Pass. The weather was lovely this morning.", -0.5)
    assert decide([scored(PASS, -0.8, 3)], {}, sure, babble).phrase == "pass"
    assert len(asked) == 5  # not even asked
    assert decide([scored(PASS, -2.0, 3)], {}, sure, babble).phrase == ""


def test_talk_that_starts_with_any_pass_is_no_pass_whichever_pass_scored_best() -> None:
    """ "Pass me the crisps" cut short scores "Pass, please." best: the free transcript starts with
    another pass, "Pass.", and goes on, so it is talk. A transcript that is only passes is a pass."""
    alone = replace(SETTINGS, alone_margin=3.0, sure_floor=0.0)
    pass_please = Candidate(Kind.PASS, " Pass, please.", "pass")
    options = [scored(pass_please, -2.0, 4), scored(PASS, -3.0, 2)]
    assert decide(options, {}, alone, lambda: Transcript(" Pass me the...", -1.0)).phrase == ""
    assert decide(options, {}, alone, lambda: Transcript(" Pass. Pass, please.", -1.0)).phrase == "pass"


def test_a_line_must_not_go_on_past_its_words() -> None:
    """The full stop after a line's words, scored apart from them, is unlikely when talk goes on past
    them ("she picked the best of all the three puppies"): below ``line_stop_floor`` it is not heard."""
    floor = replace(SETTINGS, line_stop_floor=-2.0)
    went_on = Scored(LINE, -0.5 * 8, 8, last_logprob=-4.0)
    stopped = Scored(LINE, -0.5 * 8, 8, last_logprob=-0.3)
    assert choose([went_on], {}, SETTINGS).phrase == LINE.phrase
    decided = choose([went_on], {}, floor)
    assert decided.phrase == "" and decided.detail.startswith("veto line-goes-on"), decided
    assert choose([stopped], {}, floor).phrase == LINE.phrase
    # ... nor when the first pass heard it too.
    agreed = Scored(LINE, -4.0 * 8, 8, -6.0 * 8, last_logprob=-4.0)
    assert choose([agreed], {}, SETTINGS, LINE.phrase, 2).rule == "rule agreement"
    assert choose([agreed], {}, floor, LINE.phrase, 2).phrase == ""


def test_a_pass_or_a_command_must_end_where_its_full_stop_is() -> None:
    """A word after "pass" ("Pass it to the left", "my password is ...") makes the full stop that
    ends the pass phrase unlikely, however well "pass" itself scored; a line has no full stop."""
    stop = replace(SETTINGS, stop_floor=-4.0)
    went_on = Scored(PASS, -1.0 - 5.0, 2, last_logprob=-5.0)
    stopped = Scored(PASS, -3.0 - 3.0, 2, last_logprob=-3.0)
    assert choose([went_on], {}, replace(SETTINGS, pass_floor=-3.5)).phrase == "pass"  # its mean: -3.0
    assert choose([went_on], {}, replace(stop, pass_floor=-3.5)).phrase == ""
    assert choose([stopped], {}, stop).phrase == "pass"
    assert choose([Scored(UNDO, -1.0 - 5.0, 2, last_logprob=-5.0)], {}, replace(stop, command_floor=-3.5)).phrase == ""
    line = Scored(LINE, -1.0 * 8, 8, last_logprob=-6.0)
    assert choose([line], {}, stop).phrase == LINE.phrase  # a line's own floor is apart
    # A pass on its gain over a quiet room must end there too.
    gains = replace(stop, pass_gain=1.0, pass_gain_floor=-6.0)
    assert choose([Scored(PASS, -5.0 * 2, 2, -8.0 * 2, last_logprob=-3.5)], {}, gains).phrase == "pass"
    assert choose([Scored(PASS, -5.0 * 2, 2, -8.0 * 2, last_logprob=-6.0)], {}, gains).phrase == ""


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
        return item, JudgeResult(
            candidate.phrase, item, 0.05, (item,), slots if candidate is LINE else {}, position=position
        )

    def sure(candidate: Candidate, mean: float, due: bool = True, position: int = 2) -> bool:
        return sure_line(*result(candidate, mean, due, position), SETTINGS)

    assert sure(LINE, -2.5) and sure(KING, -2.9)  # KING: no slot kept, as for a line without one
    assert not sure(LINE, -3.2)  # below the line floor: heard on its gain alone
    assert not sure(LINE, -2.5, due=False)  # a wrong rank
    assert not sure(LINE, -2.5, position=3)  # a wrong line
    assert not sure(PASS, -0.5) and not sure(UNDO, -0.5)


def test_whether_the_speaker_stopped_after_a_line_is_asked_of_its_likeliest_spelling() -> None:
    """The line due is weighed in every spelling of the rank due: "a 9" just under the line floor and
    "a Nine" far under it do not keep "a nine", over it, from being taken where the voice fell away."""
    loud = replace(SETTINGS, line_floor=-3.5, line_gain=1.0, voice_drop_db=4.0)
    phrase = "there is a nine as good as he"
    means = {
        " There's a 9 as good as he": -3.56,
        " There's a nine as good as he": -3.31,
        " There's a Nine as good as he": -3.95,
    }
    spelled = tuple(
        Scored(Candidate(Kind.LINE, text, phrase, 2), mean * 8, 8, quiet_logprob=(mean - 1.5) * 8, end_s=1.0)
        for text, mean in means.items()
    )
    slot = Slot(" There's a", " 9", -7.9, "zero", -1.0, Rank.NINE, 1, due=True)
    result = JudgeResult(
        phrase, spelled[1], 0.05, spelled, dict.fromkeys((s.candidate for s in spelled), slot), position=2
    )
    voice = (8000 * np.sin(np.arange(SAMPLE_RATE) * 0.2)).astype(np.int16)
    assert speaker_stopped(result, np.concatenate([voice, voice // 100]), loud) is True
    assert speaker_stopped(result, np.concatenate([voice, voice]), loud) is False  # the voice went on
    assert speaker_stopped(result, voice, loud) is None  # nothing after it yet
