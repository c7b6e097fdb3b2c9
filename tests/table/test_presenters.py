"""The session's adapters: what the narrator says and what the screen shows."""

from __future__ import annotations

import io
import json

from voice_earl.game.bots import MostStrategy
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.table.narrator import Narrator
from voice_earl.table.presenters import JsonlLog, Narration, ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, TableSettings
from voice_earl.table.turns import BotSource


def bot_session(seed: int = 3) -> TableSession:
    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE, DeckMode.VIRTUAL, deals=1,
                             seed=seed)
    return TableSession(settings, dict.fromkeys(range(3), BotSource(MostStrategy(), "t")))


def test_narration_announces_turns_quartets_winner_settlement_and_final_standings() -> None:
    session = bot_session()
    lines: list[str] = []
    narrator = Narrator(speak=False, printer=lines.append)
    session.listeners = [Narration(session, narrator)]
    session.run()
    narrator.close()
    winner = next(r for r in session.records if r["event"] == "win")
    name = session.settings.names[winner["player"]]
    settle = next(r for r in session.records if r["event"] == "settle")
    assert any(f"{name} wins" in line for line in lines)
    payers = [f"{session.settings.names[s]} pays {-p}" for s, p in enumerate(settle["payments"]) if p < 0]
    assert any(line.startswith(f"{name} takes {sum(-p for p in settle['payments'] if p < 0)}: ") and
               all(payer in line for payer in payers) for line in lines)
    assert any("complete" in line for line in lines)  # a quartet
    assert lines[-1].startswith("Final:")


def test_screen_view_shows_the_quartet_progress_and_whose_turn() -> None:
    session = bot_session()
    screen = TableScreen(live=False, console=None)
    view = ScreenView(session, screen, show_hands=lambda seat: seat == 0)
    while session.deal.in_quartet < 3:
        session.play_turn()
    snapshot = view.snapshot()
    assert snapshot.in_quartet == 3 and snapshot.rank == session.deal.rank.value  # type: ignore[union-attr]
    due = session.deal.formula_due()
    assert due is not None
    mover = [row for row in snapshot.players if row.to_move]
    assert [row.name for row in mover] == [session.settings.names[due.player]]
    assert snapshot.players[0].hand is not None and snapshot.players[1].hand is None
    assert snapshot.due_line == session.formula_line(due)
    assert [row.cards for row in snapshot.players] == session.deal.sizes


def test_jsonl_log_writes_every_record_once() -> None:
    session = bot_session(5)
    out = io.StringIO()
    session.listeners = [JsonlLog(out)]
    session.run()
    written = [json.loads(line) for line in out.getvalue().splitlines()]
    assert written == session.records
