"""Practice: every bot move is announced and shown, passes included; a bot says "pass" aloud."""

from __future__ import annotations

import io
import sys

import pytest

from voice_earl.commands.cli import main
from voice_earl.game.bots import MostStrategy
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.table.narrator import Kind, Narrator
from voice_earl.table.play_modes import BotRecital
from voice_earl.table.presenters import Narration, ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, SeatKind, TableSettings
from voice_earl.table.turns import BotSource


def practice(silent: bool) -> tuple[TableSession, list[str], list[tuple[Kind, str]]]:
    seats = (Seat("You", SeatKind.BOT), Seat("Ann (bot)", SeatKind.BOT), Seat("Ben (bot)", SeatKind.BOT))
    settings = TableSettings(seats, HOYLE.with_changes(silent=silent), DeckMode.VIRTUAL, deals=1, seed=6)
    lines: list[str] = []
    narrator = Narrator(speak=False, printer=lines.append)
    said: list[tuple[Kind, str]] = []
    speak = narrator.say
    narrator.say = lambda announcement: (said.append((announcement.kind, announcement.text)), speak(announcement))  # type: ignore[method-assign]
    reciter = BotRecital(settings)
    reciter.narrator = narrator
    session = TableSession(settings, dict.fromkeys(range(3), BotSource(MostStrategy(), "p", recite=reciter)))
    session.listeners = [Narration(session, narrator)]
    for _ in range(40):
        session.play_turn()
    narrator.close()
    return session, lines, said


def test_bots_say_pass_aloud_in_their_own_voices() -> None:
    session, lines, said = practice(silent=False)
    names = session.settings.names
    passes = [names[r["player"]] for r in session.records if r["event"] == "pass"]
    assert passes, "the bots passed"
    assert [line for line in lines if line.endswith(": pass")] == [f"{name}: pass" for name in passes]
    assert said.count((Kind.RECITAL, "pass")) == len(passes)  # said aloud, as a recital in the bot's voice
    assert not any(line.endswith(" passes") for line in lines)  # and not announced a second time


def test_in_silent_practice_the_narrator_says_what_each_bot_did() -> None:
    session, lines, said = practice(silent=True)
    names = session.settings.names
    plural = {
        "A": "Aces",
        "2": "Twos",
        "3": "Threes",
        "4": "Fours",
        "5": "Fives",
        "6": "Sixes",
        "7": "Sevens",
        "8": "Eights",
        "9": "Nines",
        "10": "Tens",
        "J": "Jacks",
        "Q": "Queens",
        "K": "Kings",
    }
    expected = []
    for record in session.records:
        name = names[record.get("player", 0)]
        if record["event"] == "pass":
            expected.append(f"{name} passes")
        elif record["event"] in ("lead", "play"):
            verb = "leads" if record["event"] == "lead" else "plays"
            expected.append(f"{name} {verb} {plural[record['rank']]}")
    assert [line for line in lines if line in set(expected)] == expected
    assert all(kind is not Kind.RECITAL for kind, _ in said)  # nobody recites in Silent Earl


def test_the_screen_shows_bot_passes_in_the_moves_line() -> None:
    session, _, _ = practice(silent=True)
    view = ScreenView(session, TableScreen(live=False), show_hands=lambda seat: seat == 0)
    assert any(move.endswith(" pass") and "(bot)" in move for move in view.snapshot().recent)


def test_practice_at_the_keyboard_shows_your_hand_and_no_hidden_hands_warning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["practice", "--silent", "--no-voice", "--seed", "4"]) == 0
    captured = capsys.readouterr()
    assert "Nobody can see their own cards" not in captured.out + captured.err
    assert "[" in captured.out  # your hand, in brackets on the plain screen
