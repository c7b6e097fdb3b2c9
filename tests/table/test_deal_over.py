"""The end of a deal is seen and heard: the deal-over view waits, the final standings wait, then nothing is offered."""

from __future__ import annotations

import io
import sys

import pytest
from rich.console import Console
from support.table_views import bot_session, screen_text

from voice_earl.commands.cli import main
from voice_earl.game.bots import MostStrategy
from voice_earl.game.rules import HOYLE, PARLOUR, DeckMode
from voice_earl.table import blockfont
from voice_earl.table.presenters import ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import DealBegins, DealOver, Seat, SessionEnded, TableEvent, TableSettings
from voice_earl.table.turns import SILENT_KEYS, BotSource, LineCommands


def test_each_deal_ends_in_a_deal_over_event_and_the_table_holds_until_the_players_go_on() -> None:
    session = bot_session(deals=2)
    timeline: list[object] = []
    session.listeners = [timeline.append]
    session.hold = lambda final: timeline.append(("hold", final)) or True
    session.run()
    overs = [e for e in timeline if isinstance(e, DealOver)]
    assert [(o.deal, o.final) for o in overs] == [(1, False), (2, True)]
    first = timeline.index(overs[0])
    assert timeline[first + 1] == ("hold", False)  # the next deal waits for the players...
    assert any(isinstance(e, DealBegins) and e.deal == 2 for e in timeline[first + 2 :])  # ...then begins
    assert isinstance(timeline[-2], SessionEnded) and timeline[-1] == ("hold", True)  # the standings wait too
    totals = dict(zip(session.settings.names, session.series.totals, strict=True))
    assert {s.name: s.total for s in overs[-1].standings} == totals
    assert [s.place for s in overs[-1].standings] == sorted(s.place for s in overs[-1].standings)
    settle = [r for r in session.records if r["event"] == "settle"]
    assert {s.name: s.change for s in overs[0].standings} == dict(
        zip(session.settings.names, settle[0]["payments"], strict=True)
    )


def test_the_deal_over_view_shows_winner_payments_and_totals_and_offers_only_going_on() -> None:
    session = bot_session(deals=2)
    view = ScreenView(session, TableScreen(live=False, console=Console(file=io.StringIO())), show_hands=lambda s: True)
    view.keys = SILENT_KEYS
    seen: list[str] = []
    keys: list[str] = []
    headings: list[str] = []

    def look(final: bool) -> bool:
        seen.append(screen_text(view.snapshot()))
        snapshot = view.snapshot()
        keys.append(snapshot.keys)
        assert snapshot.result is not None
        headings.append(snapshot.result.heading)
        return True

    session.listeners = [view]
    session.hold = look
    session.run()
    first, final = seen
    over = [r for r in session.records if r["event"] in ("win", "settle")]
    winner = session.settings.names[over[0]["player"]]
    assert headings == [f"{winner} wins deal 1", "Final standings"]
    for heading, text in zip(headings, seen, strict=True):
        big = blockfont.banner(heading, 80, max_lines=2)
        assert big is not None and big[0].rstrip() in text  # in letters read across the table
    assert f"{winner} takes " in first and " pays " in first
    totals = {
        name: sum(r["payments"][seat] for r in session.records if r["event"] == "settle")
        for seat, name in enumerate(session.settings.names)
    }
    leaders = [name for name, total in totals.items() if total == max(totals.values())]
    said = f"{leaders[0]} wins the game." if len(leaders) == 1 else f"{', '.join(leaders)} share first place."
    assert said in final and said not in first
    for name in session.settings.names:
        assert name in first and name in final
    assert keys == ["any key: next deal · x quit", "any key: close"]
    view.finish()
    assert view.snapshot().keys == ""  # the game is over: the key bar offers nothing


def test_the_final_standings_share_places_on_equal_totals() -> None:
    session = bot_session(deals=2)
    view = ScreenView(session, TableScreen(live=False, console=Console(file=io.StringIO())), show_hands=lambda s: True)
    names = ("Ann", "Ben", "Cy", "Di")
    from voice_earl.table.session_events import Standing

    view(
        DealOver(
            6,
            "Ann",
            (Standing(1, "Ann", 5, 8), Standing(2, "Ben", -2, -3), Standing(2, "Cy", -3, -3), Standing(4, "Di", 0, -2)),
            final=True,
        )
    )
    result = view.snapshot().result
    assert result is not None and result.final
    assert [(row.place, row.name, row.shared) for row in result.rows] == [
        (1, "Ann", False),
        (2, "Ben", True),
        (2, "Cy", True),
        (4, "Di", False),
    ]
    text = screen_text(view.snapshot())
    assert text.count("shared place") == 2
    for name in names:
        assert name in text
    assert "Ann wins the game." in text  # who won the series, not only the last deal


def test_the_final_standings_say_who_shares_first_place() -> None:
    session = bot_session(deals=2)
    view = ScreenView(session, TableScreen(live=False, console=Console(file=io.StringIO())), show_hands=lambda s: True)
    from voice_earl.table.session_events import Standing

    view(
        DealOver(6, "Cy", (Standing(1, "Ann", -1, 4), Standing(1, "Ben", -2, 4), Standing(3, "Cy", 3, -8)), final=True)
    )
    text = screen_text(view.snapshot())
    assert "Ann, Ben share first place." in text and "wins the game" not in text
    assert "Cy wins deal 6" in text  # the last deal's result stays under it


def test_a_parlour_victory_deal_over_counts_the_win() -> None:
    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben")), PARLOUR, DeckMode.VIRTUAL, deals=1, seed=5)
    events: list[TableEvent] = []
    session = TableSession(settings, dict.fromkeys(range(2), BotSource(MostStrategy(), "t")), [events.append])
    session.run()
    (over,) = [e for e in events if isinstance(e, DealOver)]
    assert sorted(s.change for s in over.standings) == [0, 1] and over.standings[0].name == over.winner


def test_line_mode_takes_a_next_line_after_a_deal_and_never_waits_for_one() -> None:
    commands = LineCommands(["next", "pass", "next", "quit"], print)
    commands.wait_to_go_on(final=False)  # takes "next"
    commands.wait_to_go_on(final=False)  # "pass" is not for it: left for the game
    request = bot_session(deals=2).request()
    assert commands.next_input(request).command.value == "pass"  # type: ignore[union-attr]
    commands.wait_to_go_on(final=True)  # the end of the series reads nothing
    assert commands.next_input(request).command.value == "next"  # type: ignore[union-attr]
    commands.wait_to_go_on(final=False)  # "quit" stays for the game
    assert commands.next_input(request).command.value == "quit"  # type: ignore[union-attr]
    commands.wait_to_go_on(final=False)  # the end of input: nothing to wait for
    assert commands.next_input(request).command.value == "quit"  # type: ignore[union-attr]


@pytest.mark.parametrize("with_next", [False, True])
def test_a_scripted_silent_series_runs_unattended_with_or_without_next(
    with_next: bool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _script_for_series(seed=3, deals=2, with_next=with_next)
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    argv = [
        "play",
        "--players",
        "Ann",
        "Ben",
        "Cy",
        "--deck",
        "virtual",
        "--open-hands",
        "--silent",
        "--no-voice",
        "--seed",
        "3",
        "--deals",
        "2",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "wins deal 1" in out and "wins deal 2" in out and "Final:" in out


def _script_for_series(seed: int, deals: int, with_next: bool) -> str:
    """The commands a player at the keyboard would type for a whole series (leading the first card held)."""
    from voice_earl.game.moves import Pass
    from voice_earl.table.turns import Command, KeyCommand, ScriptedInput

    settings = TableSettings(
        tuple(Seat(n) for n in ("Ann", "Ben", "Cy")),
        HOYLE.with_changes(silent=True),
        DeckMode.VIRTUAL,
        deals=deals,
        seed=seed,
    )
    session = TableSession(settings, {})
    lines: list[str] = []
    while not session.series.over:
        deal = session.deal
        due = deal.formula_due()
        assert due is not None and deal.hands is not None
        if due.rank is None:
            rank = deal.hands[due.player][0].rank
            command, line = KeyCommand(Command.LEAD, rank), f"lead {rank.value}"
        elif any(isinstance(a, Pass) for a in deal.legal_actions()):
            command, line = KeyCommand(Command.PASS), "pass"
        else:
            command, line = KeyCommand(Command.PLAY), "play"
        session.inputs = dict.fromkeys(range(3), ScriptedInput([command]))
        number = deal.number
        session.play_turn()
        lines.append(line)
        if with_next and session.deal.number != number:
            lines.append("next")
    return "\n".join(lines) + "\n"


def test_thirteen_players_final_standings_fit_80x24() -> None:
    from voice_earl.table.screen_sections import DealResult, ResultRow, TableSnapshot

    names = ("Ann", "Ben", "Cleo", "Dmitri", "Eve", "Fynn", "Gus", "Hal", "Ida", "Jo", "Kit", "Lou", "Max")
    rows = tuple(ResultRow(i // 2 + 1, name, -i, 10 - i, shared=True) for i, name in enumerate(names))
    detail = "Ann wins the game.\nAnn wins deal 6 · Ann takes 78: " + ", ".join(
        f"{name} pays {i}" for i, name in enumerate(names[1:6])
    )
    snapshot = TableSnapshot(
        title="Deal 6 of 6 · parlour · virtual deck",
        players=(),
        keys="any key: close",
        result=DealResult("Final standings", detail, rows, 6, final=True),
    )
    text = screen_text(snapshot).rstrip("\n").split("\n")
    assert len(text) <= 24
    assert all(any(f" {name} " in row for row in text) for name in names)
    assert text[-1] == "any key: close"


def test_quitting_after_a_deal_ends_the_session_there_and_the_next_deal_begins_on_resuming() -> None:
    session = bot_session(deals=2)
    timeline: list[TableEvent] = []
    session.listeners = [timeline.append]
    session.hold = lambda final: False  # x, then y, on the deal-over view
    assert session.run() == SessionEnded(finished=False)
    assert isinstance(timeline[-2], DealOver) and timeline[-1] == SessionEnded(finished=False)
    assert not any(isinstance(event, DealBegins) and event.deal == 2 for event in timeline)  # not dealt, not said
    assert session.deal.number == 1 and session.deal.over
    resumed = TableSession(session.settings, session.inputs, moves=session.moves)
    again: list[TableEvent] = []
    resumed.listeners = [again.append]
    resumed.run()
    assert isinstance(again[0], DealBegins) and again[0].deal == 2  # announced where the players left off
    assert [r for r in resumed.records[: len(session.records)]] == session.records


def test_the_deal_over_view_shows_what_is_asked_after_the_deal() -> None:
    session = bot_session(deals=2)
    console = Console(file=io.StringIO(), width=80, height=24)
    view = ScreenView(session, TableScreen(console, live=True), show_hands=lambda s: True)
    view.keys = SILENT_KEYS
    seen: list[str] = []

    def asked(final: bool) -> bool:
        seen.append(screen_text(view.snapshot()))
        view.narrate("Quit? the series is saved (y/n)")
        seen.append(screen_text(view.snapshot()))
        return False

    session.listeners = [view]
    session.hold = asked
    session.run()
    assert "Quit?" not in seen[0] and "Quit? the series is saved (y/n)" in seen[1]
    assert " takes " in seen[1] and "deal 1" in seen[1]  # on the deal-over view, not instead of it
