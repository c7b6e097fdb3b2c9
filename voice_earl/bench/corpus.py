"""Speech for the listening benchmark: voices, what they say, noise, and real recordings.

Voices are synthesized by espeak-ng (its English variants) and by festival's ``kdl`` voice
(``ked_diphone``, Debian package festvox-kdlpc16k). They come in two splits: ``tune``, the only
one looked at while choosing settings, and ``heldout``, the one reported. flite, piper and the
``kal`` and ``slt`` speakers are kept for an evaluation by others and are not used here.

Real human speech comes from packages: the Asterisk prompts (asterisk-core-sounds-en-wav, a
woman reading ordinary telephone prompts) and ALSA's channel test recordings (alsa-utils).
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import EARL
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16, read_wav
from voice_earl.listening.stream.speech_end import speech_end_s
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import Verdict


@dataclass(frozen=True)
class Voice:
    engine: str  # "espeak-ng" or "festival"
    name: str
    speed: int = 150  # words per minute (espeak-ng); festival: percent of its own pace
    pitch: int = 50

    @property
    def label(self) -> str:
        return f"{self.engine}:{self.name}@{self.speed}"


VOICES: dict[str, tuple[Voice, ...]] = {
    "tune": (
        Voice("espeak-ng", "en-us", 150, 50),
        Voice("espeak-ng", "en-gb-x-rp+f2", 150, 60),
        Voice("espeak-ng", "en-us+m3", 140, 40),
        Voice("espeak-ng", "en+Annie", 160, 55),
        Voice("espeak-ng", "en-gb-scotland+m1", 150, 45),
        Voice("espeak-ng", "en-us+Andy", 165, 50),
    ),
    "heldout": (
        Voice("festival", "ked_diphone", 100),
        Voice("festival", "ked_diphone", 85),
        Voice("espeak-ng", "en-us-nyc+f4", 150, 65),
        Voice("espeak-ng", "en-029", 140, 50),
        Voice("espeak-ng", "en-gb-x-gbclan+Michael", 160, 45),
        Voice("espeak-ng", "en-gb-x-gbcwmd+f3", 150, 55),
        Voice("espeak-ng", "en-us+linda", 145, 60),
    ),
}
# Table talk, including sentences with "pass", rank words and parts of the lines.
CHATTER: tuple[str, ...] = (
    "pass me the crisps would you",
    "could you pass the salt please",
    "I think I'll pass on dessert tonight",
    "you shall not pass",
    "did you pass your driving test",
    "pass it to the left",
    "my password is on the fridge",
    "I think it's your turn now Ben",
    "whose turn is it now",
    "what time is it",
    "that was a good game",
    "can you deal the cards again",
    "hold on a second",
    "good evening everybody",
    "I have three queens and a king",
    "the king of hearts is my favourite card",
    "seven is my lucky number",
    "there is a jack in my hand somewhere",
    "I had two aces last round",
    "ten more minutes and then bed",
    "is the queen still out",
    "there is nothing as good as a cup of tea",
    "he is as good as his word",
    "the best of all the cakes was the lemon one",
    "my uncle lived near Coventry",
    "the earl of Sandwich invented the sandwich",
    "there's a cat in the garden",
    "as good as new",
    "can be tricky this game",
    "who has the nine of clubs",
    "shuffle them properly this time",
    "I'm not sure what to play",
    "wait I wasn't ready",
    "somebody get the door",
    "are we keeping score",
    "let me count my cards",
    "I always lose at this",
    "that's not fair at all",
    "is there any more wine",
    "you're cheating aren't you",
    "remember to say the rhyme",
    "the three of us should play again tomorrow",
    "there is one more biscuit left",
    "undo your seat belt first",
    "can you repeat the question",
    "the dog wants to go out",
)
EVERY_LINE_RANKLESS = 3  # with every line: how often each voice says the third and the fourth line
TALK_PER_VOICE = 16  # sentences of table talk each voice says (all of them: len(CHATTER))
PASS_SAYINGS = ("pass", "I pass", "pass please")
COMMAND_SAYINGS = ("undo", "repeat")
LEAD_IN_S = 0.4  # quiet before the speech in every recording
TAIL_S = 1.2  # quiet after it, so that end of speech can be decided
CONDITIONS = (
    "clean",
    "babble 12 dB",
    "babble 6 dB",
    "white 10 dB",
    "echo",
    "party 12 dB",
    "party 6 dB",
    "cafe 12 dB",
    "cafe 6 dB",
)  # new conditions go last: each condition's noise stream is drawn from its place here
# The party's room is kept for measuring: no setting is chosen in it.
TUNING_CONDITIONS = tuple(c for c in CONDITIONS if not c.startswith("party"))
ROOM_NAMES = ("babble", "party", "cafe")  # the rooms of talk (voice_earl.bench.rooms)
ROOM_STRETCHES = 60  # stretches of the room alone per split
ROOM_S = 4.0  # ... each this long (before the lead-in and the tail)
CACHE = Path.home() / ".cache" / "voice-earl" / "bench-listening"  # synthesized speech, the judge's kept scores
HUMAN_DIRS = (Path("/usr/share/asterisk/sounds/en_US_f_Allison"), Path("/usr/share/sounds/alsa"))


class Expect:
    """What a trial's speech is, and so which verdicts are right for it."""

    CORRECT = "correct"  # the due line: accepted
    WRONG_LINE = "wrong_line"  # another position's line: never accepted
    WRONG_RANK = "wrong_rank"  # the due line with a rank not due: never accepted
    PASS = "pass"
    COMMAND = "command"
    CHATTER = "chatter"  # table talk: must not move the game
    HUMAN = "human"  # real recordings of ordinary speech: must not move the game
    ROOM = "room"  # the room alone, no one speaking to the game: must not move the game


@dataclass(frozen=True)
class Trial:
    text: str
    context: ListenContext
    expect: str
    voice: Voice | None  # None: a recording
    path: Path | None = None


def synthesize(text: str, voice: Voice, cache: Path) -> Pcm16:
    key = hashlib.sha1(f"{voice.label}|{voice.pitch}|{text}".encode()).hexdigest()[:20]
    path = cache / f"{key}.wav"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.part.wav")  # two runs at once may make the same file
        if voice.engine == "festival":
            stretch = 100.0 / voice.speed
            command = [
                "text2wave",
                "-eval",
                f"(voice_{voice.name})",
                "-eval",
                f"(Parameter.set 'Duration_Stretch {stretch:.2f})",
                "-o",
                str(partial),
            ]
            subprocess.run(command, input=text.encode(), check=True, capture_output=True)
        else:
            command = [
                "espeak-ng",
                "-v",
                voice.name,
                "-s",
                str(voice.speed),
                "-p",
                str(voice.pitch),
                "-w",
                str(partial),
                text,
            ]
            subprocess.run(command, check=True, capture_output=True)
        partial.rename(path)
    return read_wav(path)


def trial_speech(trial: Trial, cache: Path) -> Pcm16:
    """A trial's speech: its recording, or its text synthesized in its voice."""
    if trial.path is not None:
        return read_wav(trial.path)
    if trial.expect == Expect.ROOM:
        return np.zeros(int(ROOM_S * SAMPLE_RATE), dtype=np.int16)
    assert trial.voice is not None  # a trial without a recording has a voice
    return synthesize(trial.text, trial.voice, cache)


def engines_missing() -> list[str]:
    return [tool for tool in ("espeak-ng", "text2wave") if shutil.which(tool) is None]


def voices(split: str) -> tuple[Voice, ...]:
    return VOICES["tune"] + VOICES["heldout"] if split == "all" else VOICES[split]


def commands_context(position: int, ranks: tuple[Rank, ...]) -> ListenContext:
    return ListenContext(position, ranks, EARL, COMMAND_SAYINGS)


def lead_ranks(rank: Rank, rng: random.Random) -> tuple[Rank, ...]:
    """The ranks a lead of ``rank`` may name: it and up to six others the leader holds too."""
    return (*rng.sample([r for r in RANKS if r is not rank], rng.randint(0, 6)), rank)


def synthetic_trials(split: str, seed: int, talk: int = TALK_PER_VOICE, every_line: bool = False) -> Iterator[Trial]:
    """Per voice: 15 due lines, 4 wrong lines, 6 wrong ranks (2 of them no rank at all), 6 passes,
    2 commands and ``talk`` sentences of table talk (each voice starts at another one).

    ``every_line``: every line due with every rank (32: the third and the fourth name none) and every
    pass at every position after the lead (9) instead, so that a figure does not hang on which lines
    the seed drew; the other trials are the same as without it."""
    rng = random.Random(seed)
    chatter = list(CHATTER)
    rng.shuffle(chatter)
    for number, voice in enumerate(voices(split)):
        for _ in range(3):
            rank = rng.choice(RANKS)
            lead = commands_context(1, lead_ranks(rank, rng))
            follows = {p: commands_context(p, (rank,)) for p in (2, 3, 4)}
            if not every_line:
                yield Trial(EARL.line(1, rank), lead, Expect.CORRECT, voice)
                for position, context in follows.items():
                    yield Trial(EARL.line(position, rank), context, Expect.CORRECT, voice)
                yield Trial(EARL.line(2, rank), follows[2], Expect.CORRECT, voice)
        if every_line:
            yield from every_line_due(voice, random.Random(f"{seed}-{voice.label}-{voice.pitch}"))
        rank = rng.choice(RANKS)
        follows = {p: commands_context(p, (rank,)) for p in (2, 3, 4)}
        yield Trial(EARL.line(3, rank), follows[2], Expect.WRONG_LINE, voice)
        yield Trial(EARL.line(2, rank), follows[4], Expect.WRONG_LINE, voice)
        yield Trial(EARL.line(4, rank), follows[3], Expect.WRONG_LINE, voice)
        yield Trial(EARL.line(1, rank), follows[2], Expect.WRONG_LINE, voice)
        for _ in range(2):
            other = rng.choice([r for r in RANKS if r is not rank])
            yield Trial(EARL.line(2, other), follows[2], Expect.WRONG_RANK, voice)
            yield Trial(EARL.line(1, other), commands_context(1, (rank,)), Expect.WRONG_RANK, voice)
        not_a_rank = rng.choice(("eleven", "twelve", "zero", "thirteen"))
        yield Trial(EARL.lines[0].replace("{rank}", not_a_rank), commands_context(1, RANKS), Expect.WRONG_RANK, voice)
        yield Trial(EARL.lines[1].replace("{rank}", not_a_rank), follows[2], Expect.WRONG_RANK, voice)
        for saying in PASS_SAYINGS:
            drawn = rng.sample(list(follows.values()), 2)
            for context in follows.values() if every_line else drawn:
                yield Trial(saying, context, Expect.PASS, voice)
        for saying in COMMAND_SAYINGS:
            yield Trial(saying, rng.choice(list(follows.values())), Expect.COMMAND, voice)
        for index in range(talk):
            sentence = chatter[(number * talk + index) % len(chatter)]
            context = rng.choice([*follows.values(), commands_context(1, RANKS)])
            yield Trial(sentence, context, Expect.CHATTER, voice)


def every_line_due(voice: Voice, rng: random.Random) -> Iterator[Trial]:
    """The voice's every line due: each rank led (with other ranks open too) and second, and the
    third and the fourth line, which name no rank, three times each as in a drawn quartet."""
    for rank in RANKS:
        yield Trial(EARL.line(1, rank), commands_context(1, lead_ranks(rank, rng)), Expect.CORRECT, voice)
        yield Trial(EARL.line(2, rank), commands_context(2, (rank,)), Expect.CORRECT, voice)
    for rank in rng.sample(RANKS, EVERY_LINE_RANKLESS):
        for position in (3, 4):
            yield Trial(EARL.line(position, rank), commands_context(position, (rank,)), Expect.CORRECT, voice)


def human_recordings(limit: int, seed: int) -> list[Path]:
    """Real speech shipped in packages: whole sentences of 0.8-6 s."""
    found = []
    for folder in HUMAN_DIRS:
        if folder.is_dir():
            found += [p for p in sorted(folder.glob("*.wav")) if p.name != "Noise.wav"]
    usable = [p for p in found if 0.8 <= _duration(p) <= 6.0]
    random.Random(seed).shuffle(usable)
    return sorted(usable[:limit])


def _duration(path: Path) -> float:
    import wave

    try:
        with wave.open(str(path)) as wav:
            return float(wav.getnframes()) / float(wav.getframerate())
    except (wave.Error, EOFError, OSError):
        return 0.0


def human_trials(limit: int, seed: int) -> Iterator[Trial]:
    rng = random.Random(seed)
    for path in human_recordings(limit, seed):
        rank = rng.choice(RANKS)
        context = rng.choice([commands_context(p, (rank,)) for p in (2, 3, 4)] + [commands_context(1, RANKS)])
        yield Trial(path.stem, context, Expect.HUMAN, None, path)


def room_trials(split: str, seed: int, count: int = ROOM_STRETCHES) -> Iterator[Trial]:
    """Stretches of the room alone: its noise or its talk and no one speaking to the game, heard
    at every position of the quartet (the noise is added by :func:`degrade`)."""
    rng = random.Random(f"{split}-{seed}")
    for number in range(count):
        rank = rng.choice(RANKS)
        context = rng.choice([commands_context(p, (rank,)) for p in (2, 3, 4)] + [commands_context(1, RANKS)])
        yield Trial(f"room {number + 1}", context, Expect.ROOM, None)


def speech_power(audio: np.ndarray) -> float | None:
    """The mean power of a recording's loud samples (None: nothing loud in it)."""
    loud = np.abs(audio) > 300
    return float(np.mean(audio[loud] ** 2)) if np.any(loud) else None


def typical_power(audios: Iterable[np.ndarray]) -> float:
    """The median speech power of recordings: the level the room alone is heard against."""
    powers = [p for p in map(speech_power, audios) if p is not None]
    return float(np.median(powers)) if powers else 1.0


def framed(speech: Pcm16, tail_s: float = TAIL_S) -> tuple[np.ndarray, float]:
    """The speech with quiet before and ``tail_s`` after, and where the speech itself ends."""
    end = speech_end_s(speech)
    quiet_before = np.zeros(int(LEAD_IN_S * SAMPLE_RATE))
    quiet_after = np.zeros(int(tail_s * SAMPLE_RATE))
    audio = np.concatenate([quiet_before, speech.astype(np.float64), quiet_after])
    return audio, LEAD_IN_S + (end if end is not None else len(speech) / SAMPLE_RATE)


def noise_stream(seed: int, condition: str) -> np.random.Generator:
    """One noise stream per condition, so that a condition's figures do not depend on which others run."""
    return np.random.default_rng([seed, CONDITIONS.index(condition)])


def degrade(
    audio: np.ndarray,
    condition: str,
    babble: Pcm16,
    rng: np.random.Generator,
    quiet_power: float = 1.0,
    power: float | None = None,
) -> Pcm16:
    """The recording in a condition: noise levels are relative to ``power``, else to the speech's own
    power, or to ``quiet_power`` when nothing in it is loud (the room alone)."""
    power = power or speech_power(audio) or quiet_power
    if condition.split()[0] in ("white", *ROOM_NAMES):
        snr = float(condition.split()[1])
        if condition.startswith("white"):
            noise = rng.normal(0.0, 1.0, len(audio))
        else:
            start = int(rng.integers(0, max(1, len(babble) - len(audio))))
            noise = np.resize(babble[start:].astype(np.float64), len(audio))
        noise *= np.sqrt(power / 10 ** (snr / 10) / (float(np.mean(noise**2)) or 1.0))
        noisy = audio + noise
    elif condition == "echo":
        noisy = audio.copy()
        for delay_s, gain in ((0.05, 0.5), (0.11, 0.35), (0.17, 0.25), (0.26, 0.15)):
            shift = int(delay_s * SAMPLE_RATE)
            noisy[shift:] += gain * audio[:-shift]
    else:
        noisy = audio + rng.normal(0.0, 3.0, len(audio))  # a very quiet room, not digital silence
    return np.asarray(np.clip(noisy, -32768, 32767), dtype=np.int16)


def moved_the_game(verdict: Verdict, heard: str) -> bool:
    """Any verdict but unclear or silent moves the game, and so does a spoken command."""
    return verdict not in (Verdict.UNCLEAR, Verdict.SILENT) or heard in COMMAND_SAYINGS


def mistaken(trial: Trial, verdict: Verdict, heard: str) -> bool:
    """Whether ``verdict`` (on hearing ``heard``) is wrong for what the trial's speech is."""
    wrong = {
        Expect.CORRECT: verdict is not Verdict.CORRECT,
        Expect.WRONG_LINE: verdict is Verdict.CORRECT,
        Expect.WRONG_RANK: verdict is Verdict.CORRECT,
        Expect.PASS: verdict is not Verdict.PASS,
        Expect.COMMAND: heard != trial.text,
    }
    return wrong.get(trial.expect, moved_the_game(verdict, heard))
