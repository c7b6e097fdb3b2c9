"""Knocks on the table and the sounds that must never pass for one, from recordings packages ship.

Every recording here is a real one that a Debian package installs (``bash scripts/setup.sh dev``
installs them all). The knocks are knuckles on a door: Orage's knock (orage-data, GPL-2), cut into
its five raps, and Mirror Magic's (mirrormagic-data, GPL); hands and knuckles on wood: the cajon slaps
and thumps of Hydrogen's "Gimme A Hand" kit (hydrogen-drumkits, GPL-2), XBoard's knock on wood
(xboard, GPL-3), Minetest's footsteps on wood, chopping and placing a wooden block (minetest-data, CC
BY-SA 3.0); a ball on a table (Cannon Smash, csmash-data, GPL-2); and sticks on wood: the kit's wood
blocks and claves, Millo's stick (hydrogen-drumkits) and LMMS's wood block (lmms-common, GPL-2). The
sounds that must not pass: cards laid, picked up and slid (kpat, GPL-2; aisleriot, GPL-3), glasses
struck (hydrogen-drumkits; sound-icons, GPL-2), doors, chests and gates creaking and shutting, for a
chair (minetest-data), laughter (the voices of hedgewars-data, GPL-2; tuxpaint-data's giggle, GPL-2;
Scratch's, scratch, CC BY-SA 3.0; KTuberling's, ktuberling-data, GPL-2+), coughs, sneezes, typing and
a pop (scratch), clapping, applause and a finger snap (hydrogen-drumkits, lmms-common,
frozen-bubble-data, GPL-2). Speech comes from the listening
benchmark (voice_earl/bench/corpus.py).

A room is mixed in relative to the sound's own power, as speech is, in one of two ways
(:data:`MIXES`). ``"body"``, the benchmark's: the mean power of the sound's samples within
``BODY_DB`` of its own peak, the rap and its ring. ``"loud"``, as the speech's: of its samples above
a fixed level (300), which for a rap placed quietly is only its loudest millisecond or two, so that
the room came out 9 dB louder against Hydrogen's hardest cajon slap placed at -30 dBFS than at -8
dBFS (a rap's first 20 ms were 3 dB under the power the room is set against at -30 dBFS, 4 dB over
it at -8 dBFS: at "6 dB" the room was nearly as loud as a quiet rap itself). A quieter
copy of the same rap in the same room is the same mix: the level a sound is placed at must not
change it, and with ``"body"`` it does not. Figures are reported both ways.

Each recording belongs to one split: ``tune`` (the detector is trained and its operating points
chosen there) or ``heldout`` (reported). Synthetic knocks are never used.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16, to_pcm16k

HAND = Path("/usr/share/hydrogen/data/drumkits/Gimme A Hand 1.0")
MINETEST = Path("/usr/share/games/minetest/games/minetest_game/mods")
LMMS = Path("/usr/share/lmms/samples")
HEDGEWARS_VOICES = Path("/usr/share/games/hedgewars/Data/Sounds/voices")
SCRATCH = Path("/usr/share/scratch/Media/Sounds")
KTUBERLING = Path("/usr/share/ktuberling/sounds")
DOOR_KNOCK = Path("/usr/share/orage/sounds/Knock.wav")
# Its five raps one by one, each from 3 ms before it: the file's own hiss must not rise before the rap does.
DOOR_RAPS = ((0.025, 0.21), (0.211, 0.385), (0.388, 0.575), (0.579, 0.78), (0.781, 0.95))

KNOCK = "knock"
NEGATIVE_KINDS = ("cards", "glass", "chair", "laughter", "cough", "typing", "clapping")
# The Debian packages these recordings come from (scripts/setup.sh installs them with the dev extra).
PACKAGES = (
    "hydrogen-drumkits",
    "xboard",
    "minetest-data",
    "lmms-common",
    "kpat",
    "aisleriot",
    "sound-icons",
    "hedgewars-data",
    "tuxpaint-data",
    "frozen-bubble-data",
    "orage-data",
    "mirrormagic-data",
    "csmash-data",
    "scratch",
    "ktuberling-data",
)


FADE_IN = 48  # samples (3 ms): a rap cut out of a longer file is faded in, so that the cut adds no click


@dataclass(frozen=True)
class Recording:
    path: Path
    kind: str  # KNOCK or one of NEGATIVE_KINDS
    split: str  # "tune" or "heldout"
    span: tuple[float, float] | None = None  # seconds of the file, where it holds several sounds (one rap each)

    @property
    def name(self) -> str:
        where = "" if self.span is None else f"@{self.span[0]:g}"
        return f"{self.path.parent.name}/{self.path.name}{where}"

    def sound(self) -> Pcm16:
        """The recording (its span) as 16 kHz mono int16."""
        samples = load(self.path)
        if self.span is None:
            return samples
        start, end = (round(s * SAMPLE_RATE) for s in self.span)
        cut = samples[start:end].astype(np.float64)
        cut[:FADE_IN] *= np.linspace(0.0, 1.0, FADE_IN)  # no click where the cut begins
        return np.asarray(cut, dtype=np.int16)


Source = Path | tuple[Path, tuple[float, float]]  # a file, or a span of it


def _recording(source: Source, kind: str, split: str) -> Recording:
    if isinstance(source, Path):
        return Recording(source, kind, split)
    path, span = source
    return Recording(path, kind, split, span)


def _kind(kind: str, tune: list[Source], heldout: list[Source]) -> list[Recording]:
    return [_recording(s, kind, "tune") for s in tune] + [_recording(s, kind, "heldout") for s in heldout]


def _laughs() -> tuple[list[Path], list[Path]]:
    """Every hedgewars voice's laugh, alternately in each split (some voices share one recording)."""
    laughs = sorted(HEDGEWARS_VOICES.glob("*/Laugh.ogg")) if HEDGEWARS_VOICES.is_dir() else []
    unique: dict[int, Path] = {}
    for path in laughs:
        unique.setdefault(path.stat().st_size, path)
    kept = sorted(unique.values())
    return kept[0::2], kept[1::2]


def recordings() -> list[Recording]:
    """Every recording of the corpus, found or not (see :func:`missing`)."""
    wood = MINETEST / "default" / "sounds"
    doors = MINETEST / "doors" / "sounds"
    laughs_tune, laughs_heldout = _laughs()
    return [
        *_kind(
            KNOCK,
            [
                HAND / "CajonSlaps-Hard.wav",
                HAND / "CajonSlaps-Med.wav",
                HAND / "CajonSlaps-Softest.wav",
                HAND / "CajonThumps-Hard.wav",
                HAND / "CajonThumps-Med.wav",
                HAND / "CajonThumps-Softest.wav",
                wood / "default_wood_footstep.1.ogg",
                wood / "default_dig_choppy.1.ogg",
                wood / "default_dig_choppy.2.ogg",
                wood / "default_place_node.1.ogg",
                wood / "default_place_node.2.ogg",
                *[(DOOR_KNOCK, span) for span in DOOR_RAPS[0::2]],
                Path("/usr/share/games/mirrormagic/sounds/snd_classic/klopf.wav"),
                HAND / "WoodBlock-Hard.wav",
                HAND / "WoodBlock-Med.wav",
                HAND / "WoodBlock-Softest.wav",
                HAND / "Clave-Hard.wav",
                HAND / "Clave-Med.wav",
                HAND / "Clave-Softest.wav",
            ],
            [
                Path("/usr/share/games/xboard/sounds/woodthunk.wav"),
                HAND / "CajonSlaps-Hardest.wav",
                HAND / "CajonSlaps-Soft.wav",
                HAND / "CajonThumps-Hardest.wav",
                HAND / "CajonThumps-Soft.wav",
                wood / "default_wood_footstep.2.ogg",
                wood / "default_dig_choppy.3.ogg",
                wood / "default_place_node.3.ogg",
                LMMS / "drums" / "wood01.ogg",
                *[(DOOR_KNOCK, span) for span in DOOR_RAPS[1::2]],
                Path("/usr/share/games/csmash/wav/table.wav"),
                HAND / "WoodBlock-Hardest.wav",
                HAND / "WoodBlock-Soft.wav",
                HAND / "Clave-Hardest.wav",
                HAND / "Clave-Soft.wav",
                HAND.parent / "Millo-Drums_v.1" / "stick_Woody.flac",
            ],
        ),
        *_kind(
            "cards",
            [
                Path("/usr/share/kpat/sounds/card-down.ogg"),
                Path("/usr/share/aisleriot/sounds/click.ogg"),
                Path("/usr/share/aisleriot/sounds/slide.ogg"),
            ],
            [
                Path("/usr/share/kpat/sounds/card-pickup.ogg"),
                Path("/usr/share/aisleriot/sounds/splat.ogg"),
            ],
        ),
        *_kind(
            "glass",
            [
                HAND / "WaterglassHi-Hard.wav",
                HAND / "WaterglassHi-Soft.wav",
                HAND / "WaterglassLo-Hard.wav",
                HAND / "WaterglassLo-Med.wav",
                HAND / "WaterglassLo-Softest.wav",
            ],
            [
                HAND / "WaterglassHi-Hardest.wav",
                HAND / "WaterglassHi-Med.wav",
                HAND / "WaterglassHi-Softest.wav",
                HAND / "WaterglassLo-Hardest.wav",
                HAND / "WaterglassLo-Soft.wav",
                Path("/usr/share/sounds/sound-icons/glass-water-1.wav"),
            ],
        ),
        *_kind(
            "chair",
            [
                doors / "doors_door_open.ogg",
                wood / "default_chest_open.ogg",
                doors / "doors_fencegate_close.ogg",
            ],
            [
                doors / "doors_door_close.ogg",
                wood / "default_chest_close.ogg",
                doors / "doors_fencegate_open.ogg",
            ],
        ),
        *_kind(
            "laughter",
            [
                *laughs_tune,
                SCRATCH / "Human" / "Laugh-female.wav",
                SCRATCH / "Human" / "Laugh-male2.wav",
                KTUBERLING / "da" / "tux-laugh.ogg",
                KTUBERLING / "uk" / "tux-laugh.ogg",
            ],
            [
                *laughs_heldout,
                Path("/usr/share/tuxpaint/sounds/giggle.wav"),
                SCRATCH / "Human" / "Laugh-male1.wav",
                SCRATCH / "Human" / "Laugh-male3.mp3",
                KTUBERLING / "ru" / "tux-laugh.ogg",
                KTUBERLING / "lt" / "tux-laugh.ogg",
                KTUBERLING / "ca" / "say-laugh.ogg",
            ],
        ),
        *_kind(
            "cough",
            [SCRATCH / "Human" / "Cough-male.wav", SCRATCH / "Human" / "Sneeze-female.wav"],
            [SCRATCH / "Human" / "Cough-female.wav", SCRATCH / "Human" / "Sneeze-male.wav"],
        ),
        *_kind("typing", [SCRATCH / "Effects" / "Typing.mp3"], [SCRATCH / "Effects" / "Pop.wav"]),
        *_kind(
            "clapping",
            [
                HAND / "HandClap-Med.wav",
                LMMS / "drums" / "clap01.ogg",
                LMMS / "drums" / "clap03.ogg",
                LMMS / "misc" / "applause01.ogg",
            ],
            [
                LMMS / "drums" / "clap02.ogg",
                LMMS / "drums" / "clap04.ogg",
                Path("/usr/share/games/frozen-bubble/snd/applause.ogg"),
                HAND / "Fingersnap-Med.wav",
            ],
        ),
    ]


def missing() -> list[Path]:
    return [r.path for r in recordings() if not r.path.is_file()]


def load(path: Path) -> Pcm16:
    """A packaged recording (WAV, Ogg Vorbis or FLAC) as 16 kHz mono int16."""
    import soundfile

    samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    return to_pcm16k(samples, rate)


def onset_s(sound: Pcm16) -> float:
    """Where a rap begins: the first 1 ms within 30 dB of its loudest."""
    power = np.convolve(sound.astype(np.float64) ** 2, np.ones(16) / 16, mode="same")
    return float(np.argmax(power > power.max() / 1000.0)) / SAMPLE_RATE


@dataclass(frozen=True)
class KnockTrial:
    """One recording placed in a stretch of the room: once or twice (a double knock), or a negative."""

    recording: Recording
    audio: Pcm16  # before the room is mixed in: quiet, the sound, quiet
    raps: tuple[float, ...]  # for a knock, the onsets of its raps (seconds into ``audio``)
    variant: int

    @property
    def kind(self) -> str:
        return self.recording.kind


MIXES = ("body", "loud")
BODY_DB = 35.0  # a sound's body: its samples within this of its peak (all that the loudest placement counts)


def mixing_power(audio: Pcm16 | np.ndarray, mix: str = "body") -> float | None:
    """The power a room is mixed against for a placed sound (see the module); None: as speech is."""
    if mix == "loud":
        return None
    magnitude = np.abs(audio.astype(np.float64))
    body = magnitude[magnitude >= magnitude.max() * 10 ** (-BODY_DB / 20)]
    return float(np.mean(body**2)) if len(body) else None


LEAD_IN_S = 0.6  # the room before the sound: the detector learns the room's level first
TAIL_S = 0.8


def place(sound: Pcm16, rng: random.Random, raps: int) -> tuple[Pcm16, tuple[float, ...]]:
    """The sound at a peak between -30 and -6 dBFS after a lead-in, ``raps`` times (0.15-0.45 s apart)."""
    level = 10 ** (rng.uniform(-30.0, -6.0) / 20) * 32767 / max(1.0, float(np.abs(sound).max()))
    scaled = sound.astype(np.float64) * level
    lead = int((LEAD_IN_S + rng.uniform(0.0, 0.3)) * SAMPLE_RATE)
    starts = [lead]
    for _ in range(raps - 1):
        starts.append(starts[-1] + int(rng.uniform(0.15, 0.45) * SAMPLE_RATE))
    audio = np.zeros(starts[-1] + len(sound) + int(TAIL_S * SAMPLE_RATE))
    for number, start in enumerate(starts):
        audio[start : start + len(sound)] += scaled * (1.0 if number == 0 else rng.uniform(0.6, 1.1))
    at = onset_s(sound)
    clipped = np.asarray(np.clip(audio, -32768, 32767), dtype=np.int16)
    return clipped, tuple(start / SAMPLE_RATE + at for start in starts)


def knock_trials(split: str, seed: int, per_recording: int = 4) -> Iterator[KnockTrial]:
    """Each recording of the split ``per_recording`` times: knocks once or twice in turn, the others once."""
    rng = random.Random(f"knocks-{split}-{seed}")
    for recording in recordings():
        if recording.split != split and split != "all":
            continue
        sound = recording.sound()
        for variant in range(per_recording):
            raps = 1 + variant % 2 if recording.kind == KNOCK else 1
            audio, onsets = place(sound, rng, raps)
            yield KnockTrial(recording, audio, onsets if recording.kind == KNOCK else (), variant)
