"""Talk must not move the game: the ``talk`` group (``pytest -m talk``).

Through the whole listener with the judge trained on the game's words (the default, with its own
numbers): table talk that borrows the formulas' words (sentences of this group's own, in neither
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

from voice_earl.bench import room_alone
from voice_earl.bench.corpus import CHATTER, HUMAN_DIRS, framed, moved_the_game, typical_power
from voice_earl.game.cards import RANKS, Rank
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


def test_the_rooms_talk_alone_in_the_stretches_the_listener_looks_at_is_hardly_ever_a_pass(
    listener: Listener, voice_dir: Path
) -> None:
    """The listener looks at a loud room's talk many times a turn, in stretches of a third of a second to
    a second and a half, while no one speaks to it (voice_earl/bench/room_alone.py). The trained judge makes
    its passes likelier in any such talk; with its numbers (a pass on its mean above -3, below it on its gain
    only where the voice fell away after it) the cafe's talk alone, 12 and 6 dB below a speaker, moved the
    game in none of these 180 stretches; a patch trained in louder rooms, in 9 (passes and "Repeat.")."""
    judge = listener.judge
    assert judge is not None
    said = [
        framed(speak_kdl(line, voice_dir / f"kdl-{abs(hash(line))}.wav"))[0]
        for line in ("There's a King as good as he", "And there's the Earl of Coventry")
    ]
    heard = room_alone.heard_in(judge, list(room_alone.stretches(180, typical_power(said), voice_dir)))
    assert len(heard) <= 3, [str(one) for one in heard]
