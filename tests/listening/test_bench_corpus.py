"""The listening benchmark's trials (voice_earl/bench/corpus.py): what each voice is asked to say."""

from __future__ import annotations

from collections import Counter

from support.listening_audio import espeak_finds_variant, needs_espeak

from voice_earl.bench.corpus import (
    CHATTER,
    CONDITIONS,
    EVERY_LINE_RANKLESS,
    TUNING_CONDITIONS,
    Expect,
    synthetic_trials,
    voices,
)
from voice_earl.bench.rooms import BABBLE, BABBLE_VOICES, CAFE, CAFE_VOICES, PARTY, PARTY_VOICES
from voice_earl.game.cards import RANKS
from voice_earl.game.chants import EARL


def test_with_every_line_each_voice_says_every_line_due_and_every_pass_everywhere() -> None:
    drawn = list(synthetic_trials("heldout", seed=3))
    every = list(synthetic_trials("heldout", seed=3, every_line=True))
    for voice in voices("heldout"):
        lines = Counter(t.text for t in every if t.voice == voice and t.expect == Expect.CORRECT)
        assert all(lines[EARL.line(position, rank)] == 1 for rank in RANKS for position in (1, 2))
        assert lines[EARL.line(3, RANKS[0])] == lines[EARL.line(4, RANKS[0])] == EVERY_LINE_RANKLESS
        passes = {(t.text, t.context.position) for t in every if t.voice == voice and t.expect == Expect.PASS}
        assert len(passes) == 9
    # Everything else is what the seed draws without it.
    assert [t for t in every if t.expect not in (Expect.CORRECT, Expect.PASS)] == [
        t for t in drawn if t.expect not in (Expect.CORRECT, Expect.PASS)
    ]
    # The lines due are said at the position they are due at.
    due = [t for t in every if t.expect == Expect.CORRECT]
    assert all(t.text == EARL.line(t.context.position, t.context.ranks[-1]) for t in due)


@needs_espeak
def test_every_voice_with_a_variant_is_that_variant() -> None:
    """A voice under a false name would be another voice of the split, or of the room."""
    every = (*voices("all"), *BABBLE_VOICES, *PARTY_VOICES, *CAFE_VOICES)
    named = [v.name for v in every if v.engine == "espeak-ng" and "+" in v.name]
    assert named
    assert [name for name in named if not espeak_finds_variant(name)] == []


def test_the_party_is_a_room_of_its_own_that_nothing_is_tuned_in() -> None:
    """Other people saying other things: a measure of the listener in a room it was not tuned for."""
    others = {v.name for v in (*voices("all"), *BABBLE_VOICES, *CAFE_VOICES)}
    assert not others & {v.name for v in PARTY_VOICES}
    assert not set(PARTY) & (set(BABBLE) | set(CHATTER) | set(CAFE))
    assert {"party 12 dB", "party 6 dB"} <= set(CONDITIONS) - set(TUNING_CONDITIONS)


def test_the_cafe_is_a_second_room_to_choose_settings_in() -> None:
    """A setting chosen in the babble alone may hold there only: the cafe is other people saying other things."""
    others = {v.name for v in (*voices("all"), *BABBLE_VOICES)}
    assert not others & {v.name for v in CAFE_VOICES}
    assert not set(CAFE) & (set(BABBLE) | set(CHATTER))
    assert {"babble 12 dB", "babble 6 dB", "cafe 12 dB", "cafe 6 dB"} <= set(TUNING_CONDITIONS)
