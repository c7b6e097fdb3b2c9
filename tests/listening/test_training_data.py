"""What the judge is trained on: split by voice and by engine, never the benchmark's voices, rooms or talk,
drawn from one seed, and written as the judge scores it."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from voice_earl.bench.corpus import CHATTER, VOICES, Voice
from voice_earl.bench.rooms import ROOMS
from voice_earl.game.cards import Rank
from voice_earl.game.chants import EARL
from voice_earl.listening.judge.candidates import turn_candidates
from voice_earl.listening.judge.rank_slots import articles
from voice_earl.listening.judge.whisper import scored_text
from voice_earl.training import audio, data
from voice_earl.words.context import ListenContext


def accent_and_variant(voice: Voice) -> tuple[str, str]:
    accent, _, variant = voice.name.partition("+")
    return accent, variant


def test_the_splits_share_no_voice_and_train_on_none_the_benchmark_speaks_with() -> None:
    splits = data.split_voices(7)
    train, choose, report = ({accent_and_variant(v) for v in splits[s]} for s in data.SPLITS)
    assert train and choose and report
    assert not train & choose and not train & report and not choose & report
    assert not {v for _a, v in train} & {v for _a, v in choose}  # the choice's variants are never trained on
    benchmark = {*VOICES["tune"], *VOICES["heldout"], *(v for room in ROOMS.values() for v in room[0])}
    assert not {accent_and_variant(v) for v in benchmark} & (train | choose)
    heldout_variants = {accent_and_variant(v)[1] for v in VOICES["heldout"]} - {""}
    assert not heldout_variants & {v for _a, v in train | choose}
    assert {v.engine for v in splits["train"]} == {"espeak-ng"}  # festival's voice and hibari are the report's
    assert set(VOICES["heldout"]) <= set(splits["report"])


def test_the_talk_and_the_babble_are_not_the_benchmarks() -> None:
    assert not set(data.TALK) & set(CHATTER)
    room_sentences = {s for room in ROOMS.values() for s in room[1]}
    assert not set(data.BABBLE) & room_sentences
    borrowing = [t for t in data.TALK if any(w in t for w in ("as good as", "Coventry", "best of", "pass"))]
    assert len(borrowing) >= 10


def test_one_seed_draws_the_same_clips_and_another_seed_others() -> None:
    assert data.clips("choose", 7) == data.clips("choose", 7)
    assert data.clips("choose", 7) != data.clips("choose", 8)
    assert data.split_voices(7) != data.split_voices(8)


def test_every_clip_kind_is_there_and_rooms_cover_quiet_to_loud() -> None:
    clips = data.clips("train", 7)
    kinds = {c.utterance.kind for c in clips}
    assert kinds >= {"line", "pass", "command", "talk", "room"}
    rooms = {c.room.split()[0] for c in clips}
    assert rooms == set(data.ROOM_KINDS)
    levels = [float(c.room.split()[1]) for c in clips if c.room != "quiet"]
    assert min(levels) < 3 and max(levels) > 17
    report = data.clips("report", 7)
    assert {c.room for c in report} == set(data.REPORT_ROOMS)


@pytest.mark.slow
def test_a_clip_is_heard_in_its_room_the_same_every_time(tmp_path: object) -> None:
    clip = next(c for c in data.clips("train", 7) if c.room.startswith("babble") and c.utterance.kind == "pass")
    first = audio.heard_in_room(clip, "train")
    assert np.array_equal(first, audio.heard_in_room(clip, "train"))
    quiet = audio.heard_in_room(data.Clip(clip.utterance, "quiet", clip.seed), "train")
    assert np.std(first.astype(float)) > np.std(quiet.astype(float))  # the babble is there


def test_what_training_writes_is_what_the_judge_scores() -> None:
    """The targets are what the judge scores: a line with its full stop, a pass, a command, and at a
    Dutch table its own word."""
    fit = pytest.importorskip("voice_earl.training.fit", reason="the train extra (torch) is not installed")
    context = ListenContext(2, (Rank.EIGHT,), EARL, ("undo", "repeat"))
    turn = turn_candidates(context)
    lines = [t for t in turn.templates if t.position == 2]
    filled = {t.fill(" Eight", before).text for t in lines for before in articles(t.before)}
    texts = {scored_text(c) for c in turn.fixed} | {f"{text}." for text in filled}
    assert fit.written(data.Utterance("line", EARL.line(2, Rank.EIGHT), None, 2, Rank.EIGHT)) in texts
    assert fit.written(data.Utterance("pass", "Pass please", None)) in texts
    assert fit.written(data.Utterance("command", "undo", None)) in texts
    dutch = {scored_text(c) for c in turn_candidates(replace(context, language="nl")).fixed}
    assert fit.written(data.Utterance("pass", "pas", None, language="nl")) in dutch - texts


def test_the_negatives_are_said_and_drawn_apart_from_the_clips_before_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines with a word that is no rank, the Dutch and Italian passes and their talk, and talk that
    goes on past a formula's words; adding them leaves every clip before them as it was."""
    clips = data.clips("train", 7)
    not_ranks = [c.utterance for c in clips if c.utterance.not_rank is not None]
    assert {u.not_rank for u in not_ranks} == set(data.NOT_RANK_WORDS)
    assert all(u.rank is None and u.not_rank in u.text and u.position in (1, 2) for u in not_ranks)
    own = [c.utterance for c in clips if c.utterance.language != "en"]
    assert {(u.language, u.text) for u in own if u.kind == "pass"} == {("nl", "pas"), ("it", "passo")}
    assert {u.voice.name.split("+")[0] for u in own if u.voice} == {"nl", "it"}
    assert all(u.voice and "+" in u.voice.name for u in own)  # the tests speak with the default voices
    assert {c.utterance.text for c in clips} & set(data.GOES_ON)
    assert not set(data.GOES_ON) & set(CHATTER)
    monkeypatch.setattr(data, "_negatives", lambda *_args: [])
    assert clips[: len(data.clips("train", 7))] == data.clips("train", 7)


def test_the_dutch_and_italian_voices_of_the_choice_are_never_trained_on() -> None:
    train, choose = ({accent_and_variant(v) for v in data.own_pass_voices(split, 7)} for split in ("train", "choose"))
    assert train and choose and not {v for _a, v in train} & {v for _a, v in choose}
    assert not data.own_pass_voices("report", 7)


@pytest.mark.slow
def test_training_without_the_train_extra_says_how_to_install_it(tmp_path: Path) -> None:
    """Where torch is missing (as after the README's two commands), the training command names the
    extra to install instead of a traceback."""
    hidden = tmp_path / "torch"
    hidden.mkdir()
    (hidden / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    script = Path(__file__).resolve().parents[2] / "scripts" / "train_judge.py"
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "pip install -e '.[judge,train]'" in done.stderr
