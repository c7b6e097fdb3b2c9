"""Talk must not move the game: the ``talk`` group (``pytest -m talk``).

Through the whole listener with the judge trained on the game's words (``--trained-judge``, with its
own numbers): table talk that borrows the formulas' words (sentences of this group's own, in neither
the benchmark's talk nor the judge's training talk), said at every place in the quartet, and real
people's recorded speech. None of it is a line, a pass or a command, so none of it may move the game.
``tiny.en`` as it ships, with its rules, lets 14 of the 96 borrowed sentences move the game (most of
them a formula's words and more: "she picked the best of all the three puppies").
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from support.listening_audio import needs_espeak, needs_festival, padded, speak_kdl

from voice_earl.bench.corpus import CHATTER, HUMAN_DIRS, moved_the_game
from voice_earl.game.cards import RANKS, Rank
from voice_earl.listening.judge.whisper import WhisperJudge
from voice_earl.listening.models import trained_judge
from voice_earl.listening.models.judge_models import discover_judge_model, packaged_judge_model
from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
from voice_earl.listening.stream.audio import Pcm16, pcm_chunks, read_wav
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.utterance import grade_utterance
from voice_earl.training.data import GOES_ON, TALK
from voice_earl.words.context import ListenContext

pytestmark = [pytest.mark.slow, pytest.mark.talk, needs_espeak, needs_festival]

COMMANDS = ("undo", "repeat")
# Talk near the formulas: their words, their rhythm, a rank or "pass" in it, but never one of them.
BORROWED_TALK: tuple[str, ...] = (
    "there's as good a chance as any",
    "she can be as good as gold when she wants",
    "he thinks he's as good as the king",
    "she picked the best of all the three puppies",
    "the earl of Coventry was a real person you know",
    "and there's the door if you don't like it",
    "there's as much tea as you like",
    "we drove to Coventry and back in a day",
    "there's the best pub in town",
    "is the earl the one who leads next",
    "I can be there by seven",
    "there's a queen in the other pack as well",
    "all three of them passed their exams",
    "there's the earl again winning everything",
    "nothing is as good as a full house",
    "I'll pass the cards round now",
    "as good as he says he is",
    "that was the best of all",
    "there's a nice view of Coventry cathedral",
    "the three of clubs can be played later",
    "good as he is at cards he still loses",
    "pass the best bits to me",
    "a jack can be as good as an ace sometimes",
    "there's an eight on the floor",
)
CONTEXTS = (
    ListenContext(1, (Rank.SEVEN, Rank.TWO), commands=COMMANDS),
    ListenContext(2, (Rank.KING,), commands=COMMANDS),
    ListenContext(3, (Rank.JACK,), commands=COMMANDS),
    ListenContext(4, (Rank.EIGHT,), commands=COMMANDS),
)


@pytest.fixture(scope="module")
def listener() -> Listener:
    """The first pass with the trained judge, built over the package's tiny.en."""
    if trained_judge.read_manifest(trained_judge.shipped_patch_dir()) is None or packaged_judge_model() is None:
        pytest.skip("no trained judge ships here, or the judge extra is not installed")
    found = discover_judge_model(trained=True)
    assert found is not None
    return Listener(SphinxRecognizer(), judge=WhisperJudge(found.path))


@pytest.fixture(scope="module")
def voice_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("talk-voices")


def moved(listener: Listener, samples: Pcm16, context: ListenContext) -> str | None:
    """What the game heard, when hearing ``samples`` moved it (None: it did not)."""
    utterance = listener.listen(pcm_chunks(samples, chunk_ms=40), context)
    verdict = grade_utterance(utterance, context).verdict
    return f"{utterance.text!r} ({verdict.value}: {utterance.why})" if moved_the_game(verdict, utterance.text) else None


def test_the_borrowed_talk_is_its_own() -> None:
    """Measured on sentences nothing was tuned or trained on."""
    assert not set(BORROWED_TALK) & {*CHATTER, *TALK, *GOES_ON}
    assert len(set(BORROWED_TALK)) == len(BORROWED_TALK) >= 24


@pytest.mark.parametrize("place", [1, 2, 3, 4])
def test_talk_borrowing_the_formulas_words_never_moves_the_game(
    listener: Listener, voice_dir: Path, place: int
) -> None:
    context = CONTEXTS[place - 1]
    heard = {}
    for number, text in enumerate(BORROWED_TALK):
        said = padded(speak_kdl(text, voice_dir / f"talk-{number}.wav"), 0.4, 1.2)
        heard[text] = moved(listener, said, context)
    assert not {text: what for text, what in heard.items() if what}


def test_real_people_talking_at_every_place_never_moves_the_game(listener: Listener) -> None:
    """Asterisk's recorded prompts (one woman's voice, many sentences), each at a place of the quartet."""
    recordings = [p for folder in HUMAN_DIRS if folder.is_dir() for p in sorted(folder.glob("*.wav"))]
    recordings = [p for p in recordings if p.name != "Noise.wav" and 8_000 < p.stat().st_size < 200_000]
    if len(recordings) < 60:
        pytest.skip("no recordings of people (apt-get install asterisk-core-sounds-en-wav)")
    rng = random.Random(47)
    heard = {}
    for number, path in enumerate(rng.sample(recordings, 60)):
        context = ListenContext(1 + number % 4, (rng.choice(RANKS),), commands=COMMANDS)
        heard[path.name] = moved(listener, padded(read_wav(path), 0.4, 1.2), context)
    assert not {name: what for name, what in heard.items() if what}
