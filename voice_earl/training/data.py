"""The judge's training clips: who says what, and in which room, for each split.

Three splits, by voice and by engine, so that nothing reported was heard in training:

- ``train``: espeak-ng's English accents with its variants, at many speeds and pitches;
- ``choose`` (which checkpoint ships): espeak-ng variants never trained on;
- ``report``: the listening benchmark's held-out voices (festival's ked, which no split trains on,
  and espeak-ng variants no split trains on), and hibari's neural voice when it is installed.

No voice of the benchmark (either split, or its rooms' talkers) is trained on, and the talk and the
babble said here are sentences of their own: the benchmark and the golden corpus measure the
trained judge on voices, rooms and talk it never heard. Real speech is Asterisk's prompts in the
folders the benchmark does not read (digits, letters, phonetic alphabet ...): talk, never a line.

Rooms: quiet, babble of 3-6 talkers, pink and white noise, and reverb with noise, at 0-20 dB.
Everything is drawn from one seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from voice_earl.bench.corpus import CACHE, VOICES, Voice
from voice_earl.bench.rooms import ROOMS
from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import EARL
from voice_earl.listening.judge.candidates import PASS_PHRASES
from voice_earl.words.context import OWN_PASS_WORDS, SPOKEN_COMMANDS

SPLITS = ("train", "choose", "report")
TRAIN_CACHE = CACHE / "train-judge"
ACCENTS = ("en", "en-us", "en-gb-scotland", "en-gb-x-rp", "en-gb-x-gbclan", "en-gb-x-gbcwmd", "en-029", "en-us-nyc")
# espeak-ng's variants that sound like a person (not a robot, a whisper or a croak).
HUMAN_VARIANTS = (
    "",
    "m1",
    "m2",
    "m3",
    "m4",
    "m5",
    "m6",
    "m7",
    "m8",
    "f1",
    "f2",
    "f5",
    "Andy",
    "Annie",
    "adam",
    "Alex",
    "Alicia",
    "Andrea",
    "aunty",
    "belinda",
    "benjamin",
    "caleb",
    "david",
    "ed",
    "edward",
    "Gene",
    "iven",
    "john",
    "Lee",
    "max",
    "Mike",
    "paul",
    "rob",
    "robert",
    "steph",
    "travis",
    "victor",
    "zac",
    "shelby",
    "norbert",
    "quincy",
    "grandpa",
    "grandma",
    "klatt",
    "klatt2",
    "klatt3",
    "Jacky",
    "Mr",
    "sandro",
    "Storm",
)
CHOOSE_VARIANTS = ("m4", "Alicia", "david", "steph", "klatt3", "norbert")
TRAIN_VOICES = 48
CHOOSE_VOICES = 8
# Said where a rank goes, these are no rank: the line is heard as said ("eleven" is never "seven").
NOT_RANK_WORDS = ("eleven", "twelve", "thirteen", "zero", "twenty")
# A Dutch or Italian table passes with its own word (words.context.OWN_PASS_WORDS), said by espeak-ng's
# voice for that language; its talk, some of it near the word, must not pass. The default voice (no
# variant) is left out: the tests speak with it.
OWN_PASS_TALK: dict[str, tuple[str, ...]] = {
    "nl": (
        "pas op voor de hond",
        "het paspoort ligt op tafel",
        "wie heeft er nog koffie",
        "ik ben zo terug",
        "wat een mooi spel",
        "de passage was dicht",
    ),
    "it": (
        "passami il pane per favore",
        "facciamo una passeggiata",
        "chi ha le carte",
        "torno subito",
        "che bella partita",
        "il passaporto è sul tavolo",
    ),
}
OWN_PASS_VOICES = {"train": 4, "choose": 1}  # per language
# Talk that says a formula's words and goes on (or starts before them): a line said alone ends with it.
GOES_ON: tuple[str, ...] = (
    "he said there's the best of all the three of them",
    "and there's the earl of coventry's castle on the hill",
    "the best of all the three films was the second",
    "the earl of coventry is a pub near my house",
    "my brother can be as good as anyone",
    "there's as good as nothing left in the fridge",
    "there's a king as good as any in the history books",
    "and there's the earl's hat on the chair",
    "there's the best of all the three sisters over there",
    "you can be as good as he is with practice",
    "there's as good as a whole pack here",
    "the earl of coventry story is in this book",
)
GOES_ON_EACH = 2  # sentences of it each voice says

# Talk of its own (the benchmark's is kept for measuring), a part of it borrowing the formulas' words.
TALK: tuple[str, ...] = (
    "she is as good as her word",
    "my aunt was born near Coventry",
    "there's a good film on later",
    "the best of the three was the first one",
    "as good as it gets",
    "pass the water jug please",
    "I passed my exam in june",
    "who dealt this hand",
    "it's the earl's turn apparently",
    "that can't be right",
    "there's a queen in here somewhere",
    "we had the best of times",
    "Coventry is a lovely city",
    "I'm as good as anyone at this",
    "there's the door on the left",
    "and there's the kettle boiling",
    "the king is dead long live the king",
    "good as gold that one",
    "a nine and a ten please",
    "that's the third time tonight",
    "all three of them came late",
    "is he any good at cards",
    "pass the biscuits over",
    "I'd rather not pass judgement",
    "the earl of Grey tea is in the cupboard",
    "can you hear the rain",
    "she's as good as he is",
    "let's have a quick break",
    "there's nobody better than my mum",
    "your turn I think",
    "seven eight nine ten",
    "queen of diamonds",
    "jack of all trades master of none",
    "ace is high in this game",
    "I'll be right back",
    "where did I put my glasses",
    "the best of all the biscuits is the ginger one",
    "can we play a different game next",
    "there's a fox in the garden again",
    "he's a good lad really",
    "the three of us went to Coventry",
    "don't look at my cards",
    "is it my go",
    "how many cards do you have left",
    "I've got loads of twos",
    "put the kettle on would you",
    "that's a clever move",
    "you always win this",
    "let me think for a moment",
    "there's as much as you want",
    "it can be done",
    "a good one as well",
    "the earl and the countess",
    "best of luck everyone",
    "passing through Birmingham on the way",
    "I'm passing on this round",
    "he's the best",
    "shall we stop after this one",
    "there's plenty of time",
    "who's keeping the score",
    "four of a kind wins",
    "the kids are asleep upstairs",
    "mind the candle",
    "that's my drink not yours",
    "nobody say anything",
    "hang on I dropped a card",
    "it's getting late now",
    "one more round then",
    "are you sure about that",
)
# What the babble's talkers say: sentences the benchmark's rooms never say.
BABBLE: tuple[str, ...] = (
    "we went to the seaside on sunday and the tide was right out",
    "the car needs a service before the long drive in august",
    "my neighbour has started keeping bees in the back garden",
    "the new restaurant by the station does a very good curry",
    "I have to get up early tomorrow for the dentist",
    "our team lost again on saturday in the last minute",
    "she bought a bicycle and now she cycles everywhere",
    "the roof leaks whenever it rains from the west",
    "I can never remember where I left the car keys",
    "they are building a new school at the end of our road",
    "the shop had run out of bread by nine in the morning",
    "we are thinking of painting the kitchen a pale yellow",
)
# Asterisk's prompts the benchmark does not read (it reads the folder's own files, not its subfolders).
HUMAN_TALK_DIR = Path("/usr/share/asterisk/sounds/en_US_f_Allison")
ROOM_KINDS = ("quiet", "babble", "pink", "white", "reverb")
ROOM_WEIGHTS = (0.15, 0.4, 0.15, 0.1, 0.2)
SNR_DB = (0.0, 20.0)
REPORT_ROOMS = ("quiet", "babble 12 dB", "babble 6 dB")


@dataclass(frozen=True)
class Utterance:
    """Something said (or recorded): what it is, and what was said when it is a phrase of the game."""

    kind: str  # "line", "pass", "command", "talk", "human" or "room" (the room alone)
    text: str  # as said; for a recording, its file's name
    voice: Voice | None  # None: a recording, or the room alone
    position: int | None = None  # a line's place in the quartet
    rank: Rank | None = None  # the rank a line names
    path: Path | None = None  # a recording
    not_rank: str | None = None  # a line said with a word that is no rank where the rank goes
    language: str = "en"  # the table's: a Dutch or Italian table passes with its own word too

    @property
    def game_phrase(self) -> bool:
        return self.kind in ("line", "pass", "command")


@dataclass(frozen=True)
class Clip:
    utterance: Utterance
    room: str  # "quiet", or a kind and a level: "babble 6 dB", "reverb 12 dB"
    seed: int  # the room's draw


def _excluded_voices() -> set[tuple[str, str]]:
    """The (accent, variant) pairs the benchmark speaks with, in its splits and its rooms."""
    voices = [*VOICES["tune"], *VOICES["heldout"], *(v for room in ROOMS.values() for v in room[0])]
    return {(v.name.split("+")[0], v.name.split("+")[1] if "+" in v.name else "") for v in voices}


def _heldout_variants() -> set[str]:
    return {v.name.split("+")[1] for v in VOICES["heldout"] if "+" in v.name}


def split_voices(seed: int) -> dict[str, tuple[Voice, ...]]:
    """The voices of each split: train and choose are drawn from espeak-ng's accents and variants (the
    benchmark's own left out, and the variants of its held-out voices in no split); report is the
    benchmark's held-out split, with hibari's voice at two speeds."""
    rng = random.Random(f"voices-{seed}")
    excluded, heldout = _excluded_voices(), _heldout_variants()
    pairs = [(a, v) for a in ACCENTS for v in HUMAN_VARIANTS if (a, v) not in excluded and v not in heldout]

    def drawn(variants: list[tuple[str, str]], count: int) -> tuple[Voice, ...]:
        chosen = rng.sample(variants, min(count, len(variants)))
        return tuple(
            Voice("espeak-ng", f"{a}+{v}" if v else a, rng.randint(125, 195), rng.randint(25, 75)) for a, v in chosen
        )

    choose = [p for p in pairs if p[1] in CHOOSE_VARIANTS]
    train = [p for p in pairs if p[1] not in CHOOSE_VARIANTS]
    report = (*VOICES["heldout"], Voice("hibari", "heart", 100), Voice("hibari", "heart", 85))
    return {"train": drawn(train, TRAIN_VOICES), "choose": drawn(choose, CHOOSE_VOICES), "report": report}


def not_rank_lines(voice: Voice, rng: random.Random) -> Iterator[Utterance]:
    """The two lines that name a rank, each said once with a word that is no rank."""
    for position in (1, 2):
        word = rng.choice(NOT_RANK_WORDS)
        text = EARL.lines[position - 1].replace("{rank}", word)
        yield Utterance("line", text, voice, position, None, not_rank=word)


def own_pass_voices(split: str, seed: int) -> tuple[Voice, ...]:
    """Voices of espeak-ng's Dutch and Italian, drawn like the English ones (the choice's variants apart)."""
    if split not in OWN_PASS_VOICES:
        return ()
    rng = random.Random(f"own-pass-voices-{seed}")
    heldout = _heldout_variants()
    made: list[Voice] = []
    for language in OWN_PASS_TALK:
        variants = [v for v in HUMAN_VARIANTS if v and v not in heldout]
        pool = [v for v in variants if (v in CHOOSE_VARIANTS) == (split == "choose")]
        for variant in rng.sample(pool, OWN_PASS_VOICES[split]):
            made.append(Voice("espeak-ng", f"{language}+{variant}", rng.randint(125, 195), rng.randint(25, 75)))
    return tuple(made)


def own_pass_phrases(voice: Voice, rng: random.Random) -> Iterator[Utterance]:
    """A Dutch or Italian voice: its table's pass word three times and its talk (heard at that table)."""
    language = voice.name.split("+")[0]
    for _ in range(3):
        yield Utterance("pass", OWN_PASS_WORDS[language][0], voice, language=language)
    for text in rng.sample(OWN_PASS_TALK[language], 3):
        yield Utterance("talk", text, voice, language=language)


def phrases(voice: Voice, rng: random.Random, talk: int) -> Iterator[Utterance]:
    """What a voice says: every line with every rank it names, the rankless lines twice, every pass
    twice, the spoken commands and ``talk`` sentences of talk."""
    for rank in RANKS:
        yield Utterance("line", EARL.line(1, rank), voice, 1, rank)
        yield Utterance("line", EARL.line(2, rank), voice, 2, rank)
    for position in (3, 4):
        for rank in rng.sample(RANKS, 2):
            yield Utterance("line", EARL.line(position, rank), voice, position, rank)
    for phrase in PASS_PHRASES:
        for _ in range(2):
            yield Utterance("pass", phrase.replace(",", ""), voice)
    for command in SPOKEN_COMMANDS:
        yield Utterance("command", command, voice)
    for text in rng.sample(TALK, talk):
        yield Utterance("talk", text, voice)


def human_talk(seed: int) -> dict[str, tuple[Utterance, ...]]:
    """Asterisk's prompts in its subfolders, split between train and choose by file (none is reported:
    the benchmark's recordings are the report's)."""
    found = sorted(HUMAN_TALK_DIR.glob("*/*.wav")) if HUMAN_TALK_DIR.is_dir() else []
    recordings = [Utterance("human", p.stem, None, path=p) for p in found]
    rng = random.Random(f"human-{seed}")
    rng.shuffle(recordings)
    cut = len(recordings) * 4 // 5
    return {"train": tuple(recordings[:cut]), "choose": tuple(recordings[cut:]), "report": ()}


def clips(split: str, seed: int, rooms_each: int = 2, talk: int = 10) -> list[Clip]:
    """The split's clips: each utterance in ``rooms_each`` rooms drawn by the seed (the choice's in one,
    the report's in each of :data:`REPORT_ROOMS`), Asterisk's prompts once each, and the room alone."""
    rng = random.Random(f"clips-{split}-{seed}")
    said = [u for voice in split_voices(seed)[split] for u in phrases(voice, rng, talk)]
    made = []
    each = {"report": 0, "choose": 1}.get(split, rooms_each)
    for utterance in [*said, *human_talk(seed)[split]]:
        rooms = (
            REPORT_ROOMS if split == "report" else [_room(rng) for _ in range(1 if utterance.voice is None else each)]
        )
        made += [Clip(utterance, room, rng.randrange(1 << 30)) for room in rooms]
    for number in range(len(said) // 20):
        room = REPORT_ROOMS[1 + number % 2] if split == "report" else _room(rng, quiet=False)
        made.append(Clip(Utterance("room", f"room {number}", None), room, rng.randrange(1 << 30)))
    return made + _negatives(split, seed, each)


def _negatives(split: str, seed: int, each: int) -> list[Clip]:
    """Lines with a word that is no rank, the Dutch and Italian tables' passes and talk, and talk that
    says a formula's words and goes on: drawn
    apart (their own seed) so that the clips before them stay as they were."""
    rng = random.Random(f"negatives-{split}-{seed}")
    said = [u for voice in split_voices(seed)[split] for u in not_rank_lines(voice, rng)]
    said += [u for voice in own_pass_voices(split, seed) for u in own_pass_phrases(voice, rng)]
    said += [
        Utterance("talk", text, voice)
        for voice in split_voices(seed)[split]
        for text in rng.sample(GOES_ON, GOES_ON_EACH)
    ]
    made = []
    for utterance in said:
        rooms = REPORT_ROOMS if split == "report" else [_room(rng) for _ in range(each)]
        made += [Clip(utterance, room, rng.randrange(1 << 30)) for room in rooms]
    return made


def _room(rng: random.Random, quiet: bool = True) -> str:
    kinds, weights = (ROOM_KINDS, ROOM_WEIGHTS) if quiet else (ROOM_KINDS[1:], ROOM_WEIGHTS[1:])
    kind = rng.choices(kinds, weights)[0]
    return kind if kind == "quiet" else f"{kind} {rng.uniform(*SNR_DB):.0f} dB"
