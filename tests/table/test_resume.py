"""A series killed at random points resumes exactly where it stopped."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.patience import WAIT_S

from voice_earl.commands.cli import main
from voice_earl.game.bots import MostStrategy, RandomStrategy
from voice_earl.game.chants import EARL
from voice_earl.game.gamelog import replay
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.keep.storage import Store
from voice_earl.table.saved_series import setup_from_record
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, SeatKind, TableSettings
from voice_earl.table.turns import BotSource, Heard, TurnRequest
from voice_earl.words.verdicts import grade_line

SEED = 77
DRIVER = textwrap.dedent(
    """
    import sys, time
    from voice_earl.game.bots import MostStrategy
    from voice_earl.keep.storage_values import Mode
    from voice_earl.table.journal import resume_journal, start_journal
    from voice_earl.table.saved_series import SeriesSetup, load_saved
    from voice_earl.game.rules import HOYLE, DeckMode
    from voice_earl.table.session import TableSession
    from voice_earl.table.session_events import Seat, TableSettings
    from voice_earl.keep.storage import Store
    from voice_earl.table.turns import BotSource

    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy", "Di")), HOYLE, DeckMode.VIRTUAL,
                             deals=2, seed=%(seed)d)
    bots = {seat: BotSource(MostStrategy(), "bots") for seat in range(4)}

    def slow(event):
        time.sleep(0.02)  # give the killer time to land mid-series

    with Store.open() as store:
        if store.unfinished_series():
            saved = load_saved(store, store.unfinished_series()[0].id)
            session = TableSession(saved.setup.table, bots, moves=saved.moves)
            journal = resume_journal(store, saved.id, session, saved.records, Mode.PLAY)
        elif store.list_series():
            sys.exit(0)  # finished already
        else:
            session = TableSession(settings, bots)
            journal = start_journal(store, session, SeriesSetup(settings))
        session.listeners = [journal, slow]
        session.run()
    """
)


def uninterrupted_records() -> list[dict[str, object]]:
    settings = TableSettings(
        tuple(Seat(n) for n in ("Ann", "Ben", "Cy", "Di")), HOYLE, DeckMode.VIRTUAL, deals=2, seed=SEED
    )
    session = TableSession(settings, {seat: BotSource(MostStrategy(), "bots") for seat in range(4)})
    session.run()
    return session.records


def logged_bytes(data_dir: Path) -> int:
    """How much of the game log the series has written so far (its JSON Lines mirror)."""
    return sum(log.stat().st_size for log in (data_dir / "series").glob("series-*.jsonl"))


def run_until_it_has_moved(script: Path, env: dict[str, str], data_dir: Path) -> subprocess.Popen[bytes]:
    """Starts the driver and returns once it has journalled something new (or ended): a kill then
    lands mid-series however slow the machine is to start Python."""
    before = logged_bytes(data_dir) if (data_dir / "series").exists() else 0
    process = subprocess.Popen([sys.executable, str(script)], env=env)
    deadline = time.monotonic() + WAIT_S
    while process.poll() is None and time.monotonic() < deadline:
        if (data_dir / "series").exists() and logged_bytes(data_dir) > before:
            break
        time.sleep(0.01)
    return process


@pytest.mark.slow
def test_kill_and_resume_repeatedly_gives_the_uninterrupted_log(tmp_path: Path, isolated_user_dirs: Path) -> None:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER % {"seed": SEED})
    rng = random.Random(5)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    kills = 0
    for _ in range(6):  # killed at random moments after it has moved on, however slow the machine
        process = run_until_it_has_moved(script, env, isolated_user_dirs)
        time.sleep(rng.uniform(0.0, 0.25))
        if process.poll() is not None:
            assert process.returncode == 0
            break
        process.send_signal(signal.SIGKILL)
        process.wait()
        kills += 1
    finish = subprocess.run([sys.executable, str(script)], env=env, timeout=WAIT_S)  # then left to finish
    assert finish.returncode == 0
    assert kills >= 2, "the series ended before it could be interrupted"
    with Store.open(exclusive=False) as store:
        (summary,) = store.list_series()
        settings_data, records = store.load_series(summary.id)
    assert summary.status.value == "finished"
    assert records == uninterrupted_records()
    log_file = isolated_user_dirs / "series" / f"series-{summary.id}.jsonl"
    assert [json.loads(line) for line in log_file.read_text().splitlines()] == records
    settings = setup_from_record(settings_data, summary.id).table
    series = replay(records, settings.profile, seed=settings.seed, deals=2)
    assert series.over and sum(series.totals) == 0


def test_play_resume_continues_the_saved_series(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    common = ["--silent", "--no-voice"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("lead 7\nquit\n"))
    assert main(["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--seed", "3", *common]) == 0
    with Store.open(exclusive=False) as store:
        (first,) = store.unfinished_series()
        _, before = store.load_series(first.id)
    assert [r["event"] for r in before] == ["deal", "lead"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("undo\nquit\n"))
    assert main(["play", "--resume", *common]) == 0
    with Store.open(exclusive=False) as store:
        _, after = store.load_series(first.id)
    assert after == before[:1]  # the lead was taken back, in the journal too
    log_file = store.path.parent / "series" / f"series-{first.id}.jsonl"
    assert [json.loads(line) for line in log_file.read_text().splitlines()] == after
    err = capsys.readouterr().err
    assert "Resuming series" in err


def test_resume_without_a_saved_series_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--resume", "--silent", "--no-voice"]) == 1
    assert "no unfinished play series" in capsys.readouterr().err


def test_a_journal_cut_between_two_records_of_one_move_is_completed_on_resume() -> None:
    from voice_earl.keep.storage_values import Mode
    from voice_earl.table.journal import resume_journal
    from voice_earl.table.saved_series import SeriesSetup, moves_from_records, settings_record

    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE, DeckMode.VIRTUAL, deals=1, seed=4)
    full = TableSession(settings, dict.fromkeys(range(3), BotSource(MostStrategy(), "b")))
    full.run()
    quartet = next(i for i, r in enumerate(full.records) if r["event"] == "quartet")
    cut = full.records[:quartet]  # the fourth card was journalled, its quartet record was not
    with Store.open() as store:
        series_id = store.open_series(settings_record(SeriesSetup(settings)))
        for seq, record in enumerate(cut):
            store.append_event(series_id, seq, record)
        resumed = TableSession(settings, {}, moves=moves_from_records(cut))
        resume_journal(store, series_id, resumed, cut, Mode.PLAY)
        _, stored = store.load_series(series_id)
    assert stored == full.records[: quartet + 1]


def test_a_series_saved_with_the_old_wording_a_ace_still_resumes() -> None:
    from voice_earl.keep.storage_values import Mode
    from voice_earl.table.journal import resume_journal
    from voice_earl.table.saved_series import SeriesSetup, moves_from_records, settings_record

    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE, DeckMode.VIRTUAL, deals=1, seed=4)
    full = TableSession(settings, dict.fromkeys(range(3), BotSource(MostStrategy(), "b")))
    full.run()
    second = next(i for i, r in enumerate(full.records) if r.get("line", "").startswith("There's an "))
    saved = [dict(r) for r in full.records[: second + 1]]
    saved[second]["line"] = saved[second]["line"].replace("There's an ", "There's a ")  # as saved before "an"
    with Store.open() as store:
        series_id = store.open_series(settings_record(SeriesSetup(settings)))
        for seq, record in enumerate(saved):
            store.append_event(series_id, seq, record)
        resumed = TableSession(settings, {}, moves=moves_from_records(saved))
        resume_journal(store, series_id, resumed, saved, Mode.PLAY)  # does not refuse


class Reciter:
    """A human seat that says the right line for the move a bot would choose: judged for real."""

    def next_input(self, request: TurnRequest) -> Heard:
        from voice_earl.game.moves import Lead, Pass

        legal = request.legal
        action = legal[0] if len(legal) == 1 else MostStrategy().choose(request.view, legal, random.Random(0))
        if isinstance(action, Pass):
            return Heard(grade_line("pass", request.context))
        rank = action.rank if isinstance(action, Lead) else request.due.rank
        assert rank is not None
        return Heard(grade_line(EARL.line(request.due.position, rank), request.context), latency_ms=600)


def test_a_resumed_practice_series_records_its_utterances_as_practice() -> None:
    from voice_earl.game.bots import strategy_by_name
    from voice_earl.keep.storage_values import Mode
    from voice_earl.table.journal import resume_journal, start_journal
    from voice_earl.table.saved_series import SeriesSetup, load_saved

    seats = (Seat("You"), Seat("Ann (bot)", SeatKind.BOT), Seat("Ben (bot)", SeatKind.BOT))
    table = TableSettings(seats, HOYLE, DeckMode.VIRTUAL, deals=1, seed=6)
    with Store.open() as store:
        bots = BotSource(RandomStrategy(), "b")
        session = TableSession(table, {0: Reciter(), 1: bots, 2: bots})
        session.listeners = [start_journal(store, session, SeriesSetup(table, Mode.PRACTICE, "random"))]
        for _ in range(9):
            session.play_turn()
        said_before = len(store.utterances())

        saved = load_saved(store, 1)
        bot = BotSource(strategy_by_name(saved.setup.strategy or "?"), "b")
        resumed = TableSession(saved.setup.table, {0: Reciter(), 1: bot, 2: bot}, moves=saved.moves)
        resumed.listeners = [resume_journal(store, 1, resumed, saved.records, saved.setup.mode)]
        for _ in range(9):
            resumed.play_turn()
        kept = store.utterances()
    assert 0 < said_before < len(kept)
    assert {(u.mode, u.series_id) for u in kept} == {(Mode.PRACTICE, 1)}
    assert all(u.heard_position == u.position for u in kept)
