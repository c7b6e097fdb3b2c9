"""pocketsphinx's memory: a bounded set of turn grammars, and the second-pass decoder only when needed."""

from __future__ import annotations

import random

import numpy as np

from voice_earl.game.cards import RANKS, Rank
from voice_earl.listening.sphinx_recognizer import MAX_GRAMMARS, SphinxRecognizer
from voice_earl.words.context import ListenContext


def test_old_lead_grammars_are_freed() -> None:
    recognizer = SphinxRecognizer()
    rng = random.Random(4)
    contexts = [ListenContext(1, tuple(rng.sample(RANKS, rng.randint(2, 13)))) for _ in range(3 * MAX_GRAMMARS)]
    for context in contexts:
        recognizer.begin(context.phrases())
    assert len(recognizer._searches) == MAX_GRAMMARS
    # A grammar that was dropped is simply made again, and one still kept is reused.
    recognizer.begin(contexts[0].phrases())
    kept = recognizer._search
    recognizer.begin(contexts[-1].phrases())
    recognizer.begin(contexts[0].phrases())
    assert recognizer._search == kept and len(recognizer._searches) == MAX_GRAMMARS


def test_the_second_pass_decoder_is_made_only_when_needed() -> None:
    recognizer = SphinxRecognizer()
    assert recognizer._second is None
    recognizer.begin(ListenContext(2, (RANKS[0],)).phrases())
    quiet = np.zeros(8000, np.int16).tobytes()
    recognizer.accept(quiet)
    assert recognizer._second is None
    recognizer._decode_again(quiet)  # what finish() does when no phrase was completed
    assert recognizer._second is not None


def test_pocketsphinx_knows_the_pass_word_of_every_tables_rules() -> None:
    """Its dictionary has "pas" but not the Italian "passo", which the recognizer adds."""
    recognizer = SphinxRecognizer()
    for language in ("nl", "it"):
        recognizer.begin(ListenContext(2, (Rank.KING,), language=language).phrases())
        assert recognizer.missing_words == frozenset()
    assert not recognizer.notices
