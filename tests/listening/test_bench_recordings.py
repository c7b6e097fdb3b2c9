"""Real recordings for the listening benchmark (voice_earl/bench/recordings.py, and
``scripts/bench_listening.py --recordings``): a folder of labelled WAVs, or what a table kept with
``--keep-audio``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.listening_audio import needs_espeak, padded, speak, write_wav

from voice_earl.bench.corpus import Expect
from voice_earl.bench.recordings import recorded_trials
from voice_earl.game.cards import RANKS, Rank
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_values import Mode, Utterance

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def keep(store: Store, position: int, rank: Rank | None, samples: np.ndarray) -> Path:
    """One utterance kept as a table keeps it with --keep-audio; the WAV's path."""
    said = Utterance(Mode.PLAY, position, rank, "due", "heard", "unclear", 0, None)
    store.record_utterance(said, pcm16=samples.astype(np.int16).tobytes())
    kept = store.utterances()[-1].audio_path
    assert kept is not None and kept.is_file()
    return kept


def test_a_labelled_folder_says_what_each_recording_was(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quiet = np.zeros(1600, np.int16)
    for name in ("ann-1.wav", "ann-2.wav", "ben-1.wav", "ben-2.wav"):
        write_wav(tmp_path / name, quiet)
    labels = [
        {"path": "ann-1.wav", "position": 2, "rank": "Q"},
        {"path": "ann-2.wav", "position": 1, "ranks": ["7", "K"], "said": "pass"},
        {"path": "ben-1.wav", "position": 3, "rank": "Q", "said": "command", "text": "sing"},
    ]
    text = "\n".join(json.dumps(label) for label in labels)
    (tmp_path / "labels.jsonl").write_text(text + "\nnot json\n\n" + json.dumps({"path": "ben-2.wav"}) + "\n")

    trials = recorded_trials(tmp_path)

    assert [(t.path.name if t.path else None, t.expect) for t in trials] == [
        ("ann-1.wav", Expect.CORRECT),
        ("ann-2.wav", Expect.PASS),
    ]
    assert (trials[0].context.position, trials[0].context.ranks) == (2, (Rank.QUEEN,))
    assert (trials[1].context.position, trials[1].context.ranks) == (1, (Rank.SEVEN, Rank.KING))
    errors = capsys.readouterr().err
    assert "labels.jsonl:4: not a label, skipped" in errors  # the line that is no JSON
    assert "ben-1.wav: cannot use this label (a command is one of" in errors
    assert "ben-2.wav: cannot use this label" in errors  # no position


def test_a_data_directory_gives_each_kept_utterance_what_was_due(tmp_path: Path) -> None:
    quiet = np.zeros(1600, np.int16)
    with Store.open(tmp_path / "voice-earl.sqlite3", keep_audio=True) as store:
        line = keep(store, 2, Rank.QUEEN, quiet)
        lead = keep(store, 1, None, quiet)
        talk = keep(store, 4, Rank.FIVE, quiet)
        store.record_utterance(Utterance(Mode.PLAY, 3, Rank.FIVE, "due", "", "silent", 0, None))  # no audio kept
    (tmp_path / "labels.jsonl").write_text(json.dumps({"path": str(talk.relative_to(tmp_path)), "said": "chatter"}))

    trials = recorded_trials(tmp_path)

    assert [(t.path, t.expect, t.context.position, t.context.ranks) for t in trials] == [
        (line, Expect.CORRECT, 2, (Rank.QUEEN,)),
        (lead, Expect.CORRECT, 1, RANKS),  # a lead may name any rank
        (talk, Expect.CHATTER, 4, (Rank.FIVE,)),
    ]


@pytest.mark.slow
@needs_espeak
def test_the_benchmark_hears_a_tables_kept_recordings(tmp_path: Path) -> None:
    """The whole path a group would take: utterances kept in their data directory, labelled where
    they were not the line due, and the benchmark's table over them with the judge."""
    data = tmp_path / "data"
    data.mkdir()
    with Store.open(data / "voice-earl.sqlite3", keep_audio=True) as store:
        keep(store, 2, Rank.QUEEN, padded(speak("There's a Queen as good as he", tmp_path / "line.wav")))
        passed = keep(store, 3, Rank.QUEEN, padded(speak("I pass", tmp_path / "pass.wav")))
        king = keep(store, 4, Rank.QUEEN, padded(speak("There's a King as good as he", tmp_path / "king.wav")))
    labels = [
        {"path": str(passed.relative_to(data)), "said": "pass"},
        {"path": str(king.relative_to(data)), "said": "wrong_rank"},
    ]
    (data / "labels.jsonl").write_text("\n".join(json.dumps(label) for label in labels))

    run = subprocess.run(
        [sys.executable, str(SCRIPTS / "bench_listening.py"), "--recordings", str(data), "--systems", "judge"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    assert run.returncode == 0, run.stderr
    assert "3 recordings from" in run.stdout
    judged = next(line for line in run.stdout.splitlines() if line.startswith("pocketsphinx + judge"))
    # condition, recordings, lines accepted, wrong lines (none said), wrong ranks accepted, passes heard
    assert judged.split()[3:9] == ["recorded", "3", "100.0%", "-", "0.0%", "100.0%"]
