"""A database that cannot be written, and series numbers too large to be one: a clear line, nothing lost."""

from __future__ import annotations

import pytest
from support.storage_faults import read_only_file, tiny_disk

from voice_earl.commands.cli import main
from voice_earl.errors import VoiceEarlError
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import StoreWriteError, database_path

HUGE = "999999999999999999999999999999"


def deal(number: int) -> dict[str, object]:
    return {"event": "deal", "deal": number, "dealer": 0, "players": ["Ann", "Ben", "Cy"]}


def test_a_full_disk_fails_one_write_whole_and_keeps_everything_saved_before() -> None:
    with Store.open() as store:
        series = store.open_series({"players": ["Ann", "Ben", "Cy"]})
    saved = 0
    with tiny_disk(spare_pages=1), Store.open() as store, pytest.raises(StoreWriteError) as failed:
        for saved in range(10_000):
            store.append_event(series, saved, {**deal(saved + 1), "padding": "p" * 300})
    assert "the disk is full" in str(failed.value) and str(database_path()) in str(failed.value)
    assert saved > 0
    with Store.open() as store:
        _, events = store.load_series(series)
        assert [e["deal"] for e in events] == list(range(1, saved + 1))  # the failed one is not half there
        store.append_event(series, saved, deal(saved + 1))  # and the journal goes on where it stopped


def test_a_read_only_database_is_read_but_not_written_and_says_so() -> None:
    with Store.open() as store:
        series = store.open_series({"players": ["Ann", "Ben", "Cy"]})
        store.append_event(series, 0, deal(1))
    with read_only_file(database_path()):
        with Store.open() as store:
            assert store.load_series(series)[1] == [deal(1)]
            with pytest.raises(StoreWriteError, match="read-only"):
                store.append_event(series, 1, deal(2))
            with pytest.raises(StoreWriteError, match="read-only"):
                store.finish_series(series)
        assert main(["history"]) == 0
    with Store.open() as store:
        assert store.load_series(series)[1] == [deal(1)]


def test_a_huge_series_number_is_no_series_in_the_store() -> None:
    with Store.open() as store:
        for call in (store.load_series, store.series_summary, store.finish_series):
            with pytest.raises(VoiceEarlError, match=f"no series {HUGE}"):
                call(int(HUGE))


@pytest.mark.parametrize("argv", [["history", "show", HUGE], ["history", "export", HUGE], ["history", "show", "²"]])
def test_a_huge_or_odd_series_number_is_a_usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument ID: " in err and "Traceback" not in err
