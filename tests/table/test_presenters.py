"""The session's adapters: what the narrator says and what the screen shows."""

from __future__ import annotations

import io
import json

from support.table_views import bot_session

from voice_earl.game.bots import MostStrategy
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.table.narrator import Narrator
from voice_earl.table.presenters import JsonlLog, Narration, ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, TableSettings
from voice_earl.table.turns import BotSource


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
    assert any(
        line.startswith(f"{name} takes {sum(-p for p in settle['payments'] if p < 0)}: ")
        and all(payer in line for payer in payers)
        for line in lines
    )
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
    session = bot_session(seed=5)
    out = io.StringIO()
    session.listeners = [JsonlLog(out)]
    session.run()
    written = [json.loads(line) for line in out.getvalue().splitlines()]
    assert written == session.records


def test_shown_hands_are_sorted_by_rank() -> None:
    from voice_earl.game.cards import Card, Rank

    session = bot_session()
    view = ScreenView(session, TableScreen(live=False), show_hands=lambda seat: True)
    order = [rank.value for rank in Rank]
    for row, hand in zip(view.snapshot().players, session.deal.hands or (), strict=True):
        assert row.hand is not None and sorted(row.hand) == sorted(card.pretty for card in hand)
        ranks = [order.index(Card.parse(text.translate(str.maketrans("♠♥♦♣", "SHDC"))).rank.value) for text in row.hand]
        assert ranks == sorted(ranks)


def test_a_pass_heard_is_never_read_as_a_wrong_line() -> None:
    from voice_earl.game.moves import Pass
    from voice_earl.table.turns import BotMove, Heard
    from voice_earl.words.verdicts import grade_line

    class Table:
        """Whoever may pass says "pass", heard by the listener (as in the demo); the others play."""

        def next_input(self, request):  # type: ignore[no-untyped-def]
            passing = Pass(request.seat)
            if passing in request.legal:
                return BotMove(passing, Heard(grade_line("pass", request.context)))
            return BotMove(request.legal[0])

    session = bot_session()
    lines: list[str] = []
    narrator = Narrator(speak=False, printer=lines.append)
    session.inputs = dict.fromkeys(range(3), Table())
    session.listeners = [Narration(session, narrator)]
    for _ in range(20):
        session.play_turn()
    narrator.close()
    assert any(line.endswith("passes") for line in lines)
    assert not any("the line is" in line or 'heard "pass"' in line for line in lines), lines


def test_the_moves_line_shows_each_move_of_the_deal_passes_too() -> None:
    session = bot_session()
    view = ScreenView(session, TableScreen(live=False), show_hands=lambda seat: False)
    for _ in range(12):
        session.play_turn()
    recent = view.snapshot().recent
    names = session.settings.names
    moves = [r for r in session.records if r["event"] in ("lead", "play", "pass")]
    assert len(recent) == len(moves)
    for shown, record in zip(recent, moves, strict=True):
        assert shown.startswith(names[record["player"]] + " ")
        assert shown.endswith(" pass") is (record["event"] == "pass")


def test_stopping_says_the_series_is_saved_only_when_every_move_is_kept() -> None:
    from voice_earl.table.session_events import SessionEnded

    for saved, expected in ((True, "Stopped. The series is saved."), (False, "Stopped. The last moves are not saved.")):
        lines: list[str] = []
        narrator = Narrator(speak=False, printer=lines.append)
        Narration(bot_session(), narrator, saved=lambda saved=saved: saved)(SessionEnded(finished=False))
        narrator.close()
        assert lines == [expected]


def test_silent_earl_does_not_echo_the_turn_under_its_big_letters() -> None:
    from support.table_views import table_console

    from voice_earl.table.session_events import TableEvent, TurnBegins

    settings = TableSettings(
        tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE.with_changes(silent=True), DeckMode.VIRTUAL, deals=1, seed=3
    )
    session = TableSession(settings, dict.fromkeys(range(3), BotSource(MostStrategy(), "t")))
    view = ScreenView(session, TableScreen(table_console(), live=True), show_hands=lambda seat: False)
    narrator = Narrator(speak=False, printer=view.narrate)
    seen: list[tuple[str | None, str]] = []  # the big letters, the message line, while a turn waits

    def while_waiting(event: TableEvent) -> None:
        if isinstance(event, TurnBegins):
            snapshot = view.snapshot()
            seen.append((snapshot.due_line, snapshot.message))

    session.listeners = [view, Narration(session, narrator), while_waiting]
    for _ in range(6):
        session.play_turn()
    narrator.close()
    assert len(seen) == 6
    assert all(big and message != big for big, message in seen)  # the line keeps the last other announcement
    assert any(message == "Ann passes" for _big, message in seen)
    view.narrate("Ann leads Queens")
    assert view.snapshot().message == "Ann leads Queens"
