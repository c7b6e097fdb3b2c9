"""The journal: events back exactly as appended, crash safety, locking, damage, migration, utterances."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import wave
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from voice_earl.errors import VoiceEarlError
from voice_earl.game.cards import Rank
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import StoreCorrupt, database_path
from voice_earl.keep.storage_lock import StoreBusy
from voice_earl.keep.storage_schema import MIGRATIONS, SCHEMA_VERSION
from voice_earl.keep.storage_values import JournalError, Mode, SeriesStatus, Utterance
from voice_earl.paths import REPO_ROOT

SETTINGS: dict[str, Any] = {
    "players": ["Ann", "Ben", "Cy"],
    "profile": "hoyle",
    "deck": "virtual",
    "seed": 7,
    "deals": 6,
    "chant": "earl",
}


def sample_log() -> list[dict[str, Any]]:
    """A short deal of three players, with what was heard, a win, a settlement and the series end."""
    return [
        {"event": "deal", "deal": 1, "dealer": 2, "players": ["Ann", "Ben", "Cy"], "hands": [["QS"], ["QH"], ["7D"]]},
        {
            "event": "lead",
            "deal": 1,
            "player": 0,
            "card": "QS",
            "position": 1,
            "line": "There's as good as Queen can be",
            "heard": "there's as good as queen can be",
            "verdict": "correct",
            "score": 97,
            "latency_ms": 410,
        },
        {"event": "play", "deal": 1, "player": 1, "card": "QH", "position": 2, "line": "There's a Queen as good as he"},
        {"event": "pass", "deal": 1, "player": 2},
        {"event": "win", "deal": 1, "player": 0, "cards_left": [[], ["4C"], ["7D", "8D"]]},
        {"event": "settle", "deal": 1, "payments": [3, -1, -2], "totals": [3, -1, -2]},
        {"event": "series", "totals": [3, -1, -2], "places": [1, 2, 3]},
    ]


def test_events_come_back_exactly_as_appended_in_order() -> None:
    events = sample_log()
    with Store.open() as store:
        series_id = store.open_series(SETTINGS)
        for seq, event in enumerate(events):
            store.append_event(series_id, seq, event)
    with Store.open() as store:
        settings, loaded = store.load_series(series_id)
    assert settings == SETTINGS
    assert loaded == events
    # Key order survives too, so a re-exported log reads the same as the original.
    assert [list(e) for e in loaded] == [list(e) for e in events]


def test_database_is_one_file_in_the_data_dir_in_wal_mode_with_full_sync(isolated_user_dirs: Path) -> None:
    with Store.open() as store:
        assert store.path == isolated_user_dirs / "voice-earl.sqlite3"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    with sqlite3.connect(database_path()) as plain:
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_reappending_the_same_event_is_a_no_op_and_a_different_one_is_refused() -> None:
    events = sample_log()
    with Store.open() as store:
        series_id = store.open_series(SETTINGS)
        store.append_event(series_id, 0, events[0])
        store.append_event(series_id, 1, events[1])
        store.append_event(series_id, 1, events[1])
        with pytest.raises(JournalError, match="already holds a different event 1"):
            store.append_event(series_id, 1, events[2])
        assert store.load_series(series_id)[1] == events[:2]


def test_a_gap_in_the_sequence_is_refused() -> None:
    with Store.open() as store:
        series_id = store.open_series(SETTINGS)
        store.append_event(series_id, 0, sample_log()[0])
        with pytest.raises(JournalError, match="expects event 1 next, not 3"):
            store.append_event(series_id, 3, sample_log()[3])


def test_events_need_a_name_and_must_be_json() -> None:
    with Store.open() as store:
        series_id = store.open_series(SETTINGS)
        with pytest.raises(ValueError, match="'event' name"):
            store.append_event(series_id, 0, {"deal": 1})
        with pytest.raises(ValueError, match="JSON"):
            store.append_event(series_id, 0, {"event": "pass", "when": object()})
        assert store.load_series(series_id)[1] == []


def test_unknown_series_is_a_clear_error() -> None:
    with Store.open() as store, pytest.raises(VoiceEarlError, match="no series 42"):
        store.load_series(42)


def test_unfinished_series_are_listed_until_finished_and_then_closed() -> None:
    with Store.open() as store:
        first = store.open_series(SETTINGS)
        second = store.open_series({**SETTINGS, "players": ["Di", "Ed", "Flo"]})
        store.append_event(first, 0, sample_log()[0])
        assert [s.id for s in store.unfinished_series()] == [second, first]
        store.finish_series(first)
        assert [s.id for s in store.unfinished_series()] == [second]
        store.finish_series(second, abandoned=True)
        assert store.unfinished_series() == []
        assert store.series_summary(second).status is SeriesStatus.ABANDONED
        with pytest.raises(JournalError, match="finished; it takes no more events"):
            store.append_event(first, 1, sample_log()[1])


def test_summary_follows_deals_wins_settlements_and_places() -> None:
    with Store.open() as store:
        series_id = store.open_series({"profile": "hoyle"})  # players only from the deal event
        for seq, event in enumerate(sample_log()):
            store.append_event(series_id, seq, event)
        store.finish_series(series_id)
        summary = store.series_summary(series_id)
    assert summary.players == ("Ann", "Ben", "Cy")
    assert (summary.profile, summary.deals, summary.events) == ("hoyle", 1, 7)
    assert summary.totals == (3, -1, -2)
    assert summary.places == (1, 2, 3)
    assert summary.wins == (1,)
    assert summary.winners == ("Ann",)
    assert summary.finished_at is not None


# -- crash safety -----------------------------------------------------------------------------------

WRITER = """
import sys
from pathlib import Path
from voice_earl.keep.storage import Store

path, series_id, seq = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
with Store.open(path) as store:
    while True:
        store.append_event(series_id, seq, {"event": "pass", "deal": 1 + seq // 40, "player": seq % 4, "n": seq})
        print(seq, flush=True)
        seq += 1
"""


def _child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


@pytest.mark.slow
def test_events_acknowledged_before_a_kill_9_are_all_there_and_contiguous(tmp_path: Path) -> None:
    path = tmp_path / "crash.sqlite3"
    with Store.open(path) as store:
        series_id = store.open_series(SETTINGS)
    rng = random.Random(20261129)
    acknowledged = -1
    for _ in range(10):
        with Store.open(path) as store:
            start = len(store.load_series(series_id)[1])
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(series_id), str(start)],
            stdout=subprocess.PIPE,
            text=True,
            env=_child_env(),
        )
        assert writer.stdout is not None
        for _ in range(rng.randint(1, 30)):
            acknowledged = int(writer.stdout.readline())
        time.sleep(rng.uniform(0, 0.005))
        writer.send_signal(signal.SIGKILL)  # mid-write, at a random point of the loop
        rest = writer.stdout.read().split()
        writer.wait()
        acknowledged = max([acknowledged, *map(int, rest)])
        with Store.open(path) as store:
            _, events = store.load_series(series_id)
        assert [e["n"] for e in events] == list(range(len(events)))
        assert len(events) - 1 >= acknowledged
    assert acknowledged > 10


# -- a second instance --------------------------------------------------------------------------------

HOLDER = """
import sys
from pathlib import Path
from voice_earl.keep.storage import Store

store = Store.open(Path(sys.argv[1]))
print(store.open_series({"players": ["Ann", "Ben", "Cy"]}), flush=True)
sys.stdin.read()
"""


def test_a_second_writer_is_told_busy_and_which_series_until_the_first_dies(tmp_path: Path) -> None:
    path = tmp_path / "busy.sqlite3"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_child_env(),
    )
    try:
        assert holder.stdout is not None
        series_id = int(holder.stdout.readline())
        with pytest.raises(StoreBusy) as busy:
            Store.open(path)
        message = str(busy.value)
        assert message.startswith("busy")
        assert f"pid {holder.pid}" in message
        assert f"series {series_id}" in message
        # Readers (history, stats) are not kept out.
        with Store.open(path, exclusive=False) as reader:
            assert [s.id for s in reader.unfinished_series()] == [series_id]
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # The lock died with the process: the series can be resumed.
    with Store.open(path) as store:
        assert [s.id for s in store.unfinished_series()] == [series_id]


def test_a_second_writer_in_the_same_process_is_busy_too(tmp_path: Path) -> None:
    with Store.open(tmp_path / "one.sqlite3"), pytest.raises(StoreBusy, match=f"pid {os.getpid()}"):
        Store.open(tmp_path / "one.sqlite3")


# -- damage --------------------------------------------------------------------------------------------


def test_a_file_of_garbage_is_moved_aside_with_a_message_and_never_written_over() -> None:
    path = database_path()
    path.parent.mkdir(parents=True)
    garbage = random.Random(3).randbytes(8192)
    path.write_bytes(garbage)
    with pytest.raises(StoreCorrupt) as damaged:
        Store.open()
    moved = damaged.value.moved_to
    assert moved.name.startswith("voice-earl.sqlite3.corrupt-")
    assert str(moved) in str(damaged.value)
    assert moved.read_bytes() == garbage
    assert not path.exists()
    with Store.open() as store:  # the next run starts a new database
        assert store.list_series() == []


def test_a_truncated_database_is_moved_aside() -> None:
    with Store.open() as store:
        series_id = store.open_series(SETTINGS)
        for seq in range(1500):
            store.append_event(series_id, seq, {"event": "pass", "deal": 1, "player": seq % 3, "pad": "x" * 60})
    path = database_path()
    size = path.stat().st_size
    assert size > 100_000
    with path.open("r+b") as file:
        file.truncate(size // 2)
    with pytest.raises(StoreCorrupt, match="moved to") as damaged:
        Store.open()
    assert damaged.value.moved_to.stat().st_size == size // 2
    assert not path.exists()


def test_the_command_line_reports_where_a_damaged_database_went(capsys: pytest.CaptureFixture[str]) -> None:
    from voice_earl.commands.cli import main

    database_path().parent.mkdir(parents=True)
    database_path().write_bytes(b"this is not a database" * 100)
    assert main(["history"]) == 0
    out, error = capsys.readouterr()
    assert error.count("\n") == 1
    assert "damaged" in error
    assert "voice-earl.sqlite3.corrupt-" in error
    assert "no series is kept beside it to rebuild it from: a new one is begun" in error
    assert out.strip() == "no series yet - play one with `voice-earl play`"


# -- schema versions ---------------------------------------------------------------------------------


def test_a_version_1_file_is_migrated_forward_with_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(MIGRATIONS[0])
    old.execute(
        "INSERT INTO series (id, started_at, settings, players) VALUES (5, ?, ?, ?)",
        ("2026-01-02T10:00:00+00:00", json.dumps(SETTINGS), json.dumps(SETTINGS["players"])),
    )
    for seq, event in enumerate(sample_log()[:3]):
        old.execute(
            "INSERT INTO events VALUES (5, ?, ?, ?, '2026-01-02T10:00:01+00:00')",
            (seq, event["event"], json.dumps(event)),
        )
    old.execute(
        "INSERT INTO utterances (at, mode, position, rank, expected, heard, verdict, score, latency_ms)"
        " VALUES ('2026-01-02T09:00:00+00:00', 'practice', 2, 'Q', 'There''s a Queen as good as he',"
        " 'there''s a queen as good as me', 'wrong_line', 71, 650)"
    )
    old.execute("PRAGMA user_version = 1")
    old.commit()
    old.close()

    with Store.open(path) as store:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
        assert store.load_series(5) == (SETTINGS, sample_log()[:3])
        assert [s.id for s in store.unfinished_series()] == [5]
        store.append_event(5, 3, sample_log()[3])
        (kept,) = store.utterances()
        assert (kept.rank, kept.heard, kept.score, kept.strictness, kept.session) == (
            Rank.QUEEN,
            "there's a queen as good as me",
            71,
            None,
            None,
        )
        store.record_utterance(_utterance(strictness="strict"))
        assert [u.strictness for u in store.utterances()] == [None, "strict"]


def test_a_file_from_a_newer_version_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    with sqlite3.connect(path) as newer:
        newer.execute("PRAGMA user_version = 99")
    with pytest.raises(VoiceEarlError, match="newer voice-earl"):
        Store.open(path)
    assert path.exists()


# -- utterances ----------------------------------------------------------------------------------------


def _utterance(**changes: Any) -> Utterance:
    fields: dict[str, Any] = {
        "mode": Mode.DRILL,
        "position": 2,
        "rank": Rank.SEVEN,
        "expected": "There's a Seven as good as he",
        "heard": "there's a seven as good as me",
        "verdict": "wrong_line",
        "score": 74,
        "latency_ms": 820,
        "strictness": "normal",
        "at": datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc),
        "session": "s1",
    }
    return Utterance(**{**fields, **changes})


def test_utterances_are_stored_with_everything_and_filtered_by_mode() -> None:
    with Store.open() as store:
        drill = _utterance()
        practice = _utterance(mode=Mode.PRACTICE, position=4, rank=None, verdict="correct", latency_ms=None)
        store.record_utterance(drill)
        store.record_utterance(practice)
        assert store.utterances() == [drill, practice]
        assert store.utterances(mode=Mode.PRACTICE) == [practice]


def test_audio_is_kept_only_with_keep_audio(isolated_user_dirs: Path) -> None:
    pcm = b"\x00\x10" * 1600  # 0.1 s of 16 kHz audio
    with Store.open() as store:
        store.record_utterance(_utterance(), pcm16=pcm)
        assert store.utterances()[0].audio_path is None
    assert not (isolated_user_dirs / "audio").exists()
    with Store.open(keep_audio=True) as store:
        store.record_utterance(_utterance(session="s2"), pcm16=pcm)
        kept = store.utterances()[1].audio_path
    assert kept is not None and kept.is_relative_to(isolated_user_dirs / "audio")
    with wave.open(str(kept)) as clip:
        assert (clip.getframerate(), clip.getnframes()) == (16000, 1600)


def test_a_database_that_cannot_be_opened_is_reported_and_left_in_place() -> None:
    database_path().mkdir(parents=True)  # a folder where the file should be
    with pytest.raises(VoiceEarlError, match=r"cannot open the database .*voice-earl\.sqlite3") as failed:
        Store.open()
    assert not isinstance(failed.value, StoreCorrupt)
    assert database_path().is_dir()


def test_an_utterance_needs_a_real_position_and_score() -> None:
    with pytest.raises(ValueError, match="position must be 1-4"):
        _utterance(position=5)
    with pytest.raises(ValueError, match="score must be 0-100"):
        _utterance(score=120)


def test_truncate_events_takes_back_the_tail_and_its_summary(tmp_path: Path) -> None:
    with Store.open(tmp_path / "t.sqlite3") as store:
        series = store.open_series({"players": ["Ann", "Ben", "Cy"]})
        events = [
            {"event": "deal", "deal": 1, "dealer": 0, "players": ["Ann", "Ben", "Cy"]},
            {"event": "lead", "deal": 1, "player": 1, "card": "QS"},
            {"event": "win", "deal": 1, "player": 1, "cards_left": [3, 0, 5]},
            {"event": "settle", "deal": 1, "payments": [-3, 8, -5], "totals": [-3, 8, -5]},
        ]
        for seq, event in enumerate(events):
            store.append_event(series, seq, event)
        assert store.series_summary(series).wins == (0, 1)
        store.truncate_events(series, 2)
        _, kept = store.load_series(series)
        assert kept == events[:2]
        summary = store.series_summary(series)
        assert summary.wins == () and summary.totals is None
        store.append_event(series, 2, {"event": "pass", "deal": 1, "player": 2})
        assert len(store.load_series(series)[1]) == 3


def test_a_version_2_file_gains_the_heard_position_of_utterances(tmp_path: Path) -> None:
    path = tmp_path / "v2.sqlite3"
    old = sqlite3.connect(path)
    for step in MIGRATIONS[:2]:
        old.executescript(step)
    old.execute(
        "INSERT INTO utterances (at, mode, position, rank, expected, heard, verdict, score, latency_ms)"
        " VALUES ('2026-01-02T09:00:00+00:00', 'drill', 4, 'K', 'And there''s the Earl of Coventry',"
        " 'there''s a king as good as he', 'wrong_line', 100, 650)"
    )
    old.execute("PRAGMA user_version = 2")
    old.commit()
    old.close()
    with Store.open(path) as store:
        (before,) = store.utterances()
        assert before.heard_position is None  # not known then
        store.record_utterance(_utterance(heard_position=4))
        assert [u.heard_position for u in store.utterances()] == [None, 4]


def test_update_settings_merges_into_the_record_and_keeps_other_keys() -> None:
    with Store.open() as store:
        series = store.open_series({**SETTINGS, "phones": {"Ann": "t0k3n"}})
        store.update_settings(series, {"language": "nl", "seed": 8})
        assert store.load_series(series)[0] == {**SETTINGS, "phones": {"Ann": "t0k3n"}, "language": "nl", "seed": 8}


def test_an_event_that_is_not_json_is_named_not_raised_raw() -> None:
    with Store.open() as store:
        series = store.open_series(SETTINGS)
        store.append_event(series, 0, sample_log()[0])
        store._db.execute(
            "INSERT INTO events VALUES (?, 1, 'lead', '{not json', '2026-01-01T00:00:00+00:00')", (series,)
        )
        with pytest.raises(JournalError, match=f"series {series}'s event 1 is not JSON"):
            store.load_series(series)
        assert [s.id for s in store.list_series()] == [series]  # the listing still works
