"""Silent Earl's keys: one key, one meaning; quitting asks first; every key is shown at 80 columns."""

from __future__ import annotations

import io
import os
import string
from dataclasses import replace

import pytest
from support.table_views import screen_text

from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.i18n import set_language
from voice_earl.table.screen_sections import KEY_SEPARATOR, TableSnapshot
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, TableSettings
from voice_earl.table.turns import (
    KEY_HELP,
    LINE_HELP,
    Command,
    KeyCommand,
    KeyPresses,
    TurnRequest,
    key_command,
)
from voice_earl.table.voice_input import KNOCK_KEYS, VOICE_KEYS

MOVES = {Command.PASS, Command.PLAY, Command.LEAD}
KEYS = [*string.printable, "\x1b", "\x7f"]


def requests() -> tuple[TurnRequest, TurnRequest]:
    """A lead, and the second card of the rank led."""
    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1)
    session = TableSession(settings, {})
    lead = session.request()
    session.deal.apply(session.deal.legal_actions()[0])
    return lead, session.request()


def test_no_key_is_both_a_move_and_a_command() -> None:
    for key in KEYS:
        meanings = {given.command for at_lead in (True, False) if (given := key_command(key, at_lead)) is not None}
        assert not (meanings & MOVES and meanings - MOVES), f"{key!r} means {meanings}"


def test_q_leads_queens_and_never_quits() -> None:
    assert key_command("q", at_lead=True) == KeyCommand(Command.LEAD, key_command("q", True).rank)  # type: ignore[union-attr]
    assert key_command("q", at_lead=False) is None
    assert key_command("x", at_lead=True) == key_command("x", at_lead=False) == KeyCommand(Command.QUIT)


def test_quitting_asks_first_and_no_goes_on() -> None:
    lead, second = requests()
    shown: list[str] = []
    keys = KeyPresses(io.StringIO("qxn "), shown.append)
    assert keys.next_input(second) == KeyCommand(Command.PASS)  # q did nothing, x asked, n went on
    assert shown[1:] == ["Quit? the series is saved (y/n)", "Not quitting: the game goes on."]
    assert shown[0].endswith(" are open: play one (enter) or pass (space)")  # q named a rank: what to press
    shown.clear()
    assert KeyPresses(io.StringIO("z "), shown.append).next_input(second) == KeyCommand(Command.PASS)
    assert shown[0].startswith("that key does nothing here: space pass · enter play")
    shown.clear()
    assert KeyPresses(io.StringIO("xy"), shown.append).next_input(lead) == KeyCommand(Command.QUIT)
    assert shown == ["Quit? the series is saved (y/n)"]


def test_no_to_quitting_while_paused_says_the_game_is_still_paused() -> None:
    _, second = requests()
    shown: list[str] = []
    keys = KeyPresses(io.StringIO("xnp"), shown.append)
    assert keys.next_input(replace(second, paused=True)) == KeyCommand(Command.PAUSE)
    assert shown == ["Quit? the series is saved (y/n)", "Not quitting: still paused, press p to go on."]


def test_no_to_quitting_while_paused_at_the_voice_table_says_so_too() -> None:
    from voice_earl.table.voice_input import VoiceInput

    _, second = requests()
    shown: list[str] = []
    source = VoiceInput(None, chunks=lambda: iter(()), keys=io.StringIO("xnp"), show=shown.append)  # type: ignore[arg-type]
    assert source.next_input(replace(second, paused=True)) == KeyCommand(Command.PAUSE)
    assert shown == ["Quit? the series is saved (y/n)", "Not quitting: still paused, press p to go on."]


def test_the_quit_question_in_dutch_takes_j() -> None:
    _, second = requests()
    set_language("nl")
    shown: list[str] = []
    assert KeyPresses(io.StringIO("\x1bj"), shown.append).next_input(second) == KeyCommand(Command.QUIT)
    assert shown[0].endswith("(j/n)")


@pytest.mark.parametrize("language", ["en", "nl", "it"])
@pytest.mark.parametrize("help_text", [KEY_HELP, VOICE_KEYS.turn, KNOCK_KEYS.turn, LINE_HELP])
def test_every_key_is_shown_whole_at_80x24(language: str, help_text: str) -> None:
    from voice_earl.i18n import _

    set_language(language)
    snap = TableSnapshot(title="Deal 1 of 6 · hoyle · virtual deck", players=(), keys=help_text)
    text = screen_text(snap)
    rows = text.rstrip("\n").split("\n")
    assert len(rows) <= 24 and max(len(row) for row in rows) <= 80
    bar = " ".join(" ".join(rows[-3:]).split())
    for entry in _(help_text).split(KEY_SEPARATOR):
        assert " ".join(entry.split()) in bar, (entry, rows[-3:])
    assert "…" not in " ".join(rows[-3:])


def test_the_help_names_the_quit_key_no_move_uses() -> None:
    assert "x quit" in KEY_HELP and "q quit" not in KEY_HELP and "x quit" in VOICE_KEYS.turn


def test_six_open_hands_and_the_moves_line_still_leave_room_for_every_key() -> None:
    from voice_earl.game.cards import full_deck
    from voice_earl.table.screen_sections import PlayerRow

    deck = [card.pretty for card in full_deck()]
    names = ("Ann", "Ben", "Cleo", "Dmitri", "Eve", "Fynn")
    players = tuple(
        PlayerRow(name, 8, 0, dealer=i == 0, to_move=i == 1, hand=tuple(deck[i * 8 : (i + 1) * 8]))
        for i, name in enumerate(names)
    )
    snapshot = TableSnapshot(
        title="Deal 2 of 6 · hoyle · virtual deck",
        players=players,
        rank="Q",
        in_quartet=2,
        due_player="Ben",
        due_line="There's the best of all the three",
        keys=KEY_HELP,
        recent=tuple(f"{name} Q♠" for name in names),
        message="Ben: Queens, card 3 of 4",
    )
    rows = screen_text(snapshot).rstrip("\n").split("\n")
    assert len(rows) <= 24
    assert KEY_SEPARATOR.join(row.rstrip() for row in rows[-2:]) == KEY_HELP  # two lines, broken between keys
    assert any(row.startswith("moves") for row in rows)


def test_the_key_bar_names_every_key_that_leads_a_rank() -> None:
    entry = next(entry for entry in KEY_HELP.split(KEY_SEPARATOR) if entry.endswith("lead that rank"))
    named: set[str] = set()
    for token in entry.removesuffix("lead that rank").split():
        if "-" in token:  # 2-9
            low, high = token.split("-")
            named.update(str(n) for n in range(int(low), int(high) + 1))
        else:  # A, 0/T, J ...
            named.update(token.split("/"))
    leading = {
        key.upper()
        for key in string.printable
        if (given := key_command(key, at_lead=True)) is not None and given.command is Command.LEAD
    }
    assert leading == named


def test_after_a_deal_x_or_esc_asks_first_and_yes_stops_the_game() -> None:
    shown: list[str] = []
    assert KeyPresses(io.StringIO(" "), shown.append).wait_to_go_on(final=False)  # any key: the next deal
    assert KeyPresses(io.StringIO("xn "), shown.append).wait_to_go_on(final=False)  # no: still waiting, then on
    assert shown == ["Quit? the series is saved (y/n)", "Not quitting: the game goes on."]
    shown.clear()
    assert not KeyPresses(io.StringIO("\x1by"), shown.append).wait_to_go_on(final=False)  # yes: stop here
    assert shown == ["Quit? the series is saved (y/n)"]
    shown.clear()
    assert KeyPresses(io.StringIO("x"), shown.append).wait_to_go_on(final=True)  # the end: x closes, as any key
    assert shown == []


class JoinCodeShown:
    """The phones' join code as the keys see it: each toggle noted."""

    def __init__(self) -> None:
        self.shown = False
        self.toggles: list[bool] = []

    def toggle(self) -> None:
        self.shown = not self.shown
        self.toggles.append(self.shown)


def test_the_join_key_shows_the_join_code_and_the_next_key_only_hides_it() -> None:
    lead, second = requests()
    shown: list[str] = []
    keys = KeyPresses(io.StringIO("cx "), shown.append)
    keys.join_code = code = JoinCodeShown()
    assert keys.next_input(second) == KeyCommand(Command.PASS)  # c showed it, x hid it (and did not quit)
    assert code.toggles == [True, False] and shown == []
    keys = KeyPresses(io.StringIO("c  "), shown.append)
    keys.join_code = code = JoinCodeShown()
    assert keys.wait_to_go_on(final=False)  # after a deal too: c shows it, a space hides it, a space goes on
    assert code.toggles == [True, False]
    assert KeyPresses(io.StringIO("c"), shown.append).next_input(lead) == KeyCommand(Command.QUIT)
    assert "that key does nothing here" in shown[-1]  # without phones c is no key of the game


def test_no_key_is_both_a_move_and_the_join_key() -> None:
    from voice_earl.table.extra_keys import JOIN_KEY

    for key in (JOIN_KEY, JOIN_KEY.upper()):
        assert key_command(key, at_lead=True) is None and key_command(key, at_lead=False) is None


def test_a_key_pressed_during_a_bots_turn_does_nothing_at_the_players_next_turn() -> None:
    """Practice: the player passes at move 0, the bots make moves 1 and 2, and a space pressed meanwhile
    must not pass for the player at move 3. Keys typed ahead between two turns of the keyboard's stay."""
    _, second = requests()
    main, side = os.openpty()
    with os.fdopen(side, "r") as stream:
        keys = KeyPresses(stream, print)
        os.write(main, b" ")
        assert keys.next_input(replace(second, move_number=0)) == KeyCommand(Command.PASS)
        os.write(main, b" ")  # during the bots' turns

        typed: list[bytes] = []

        def typed_in_turn() -> bool:  # asked while the keyboard waits, once its turn has begun
            if not typed:
                typed.append(b"\r")
                os.write(main, b"\r")
            return False

        keys.interrupt = typed_in_turn
        assert keys.next_input(replace(second, move_number=3)) == KeyCommand(Command.PLAY)
        os.write(main, b" ")  # typed ahead, for the next turn, which is the keyboard's too
        assert keys.next_input(replace(second, move_number=4)) == KeyCommand(Command.PASS)
    os.close(main)


def test_a_quit_pressed_while_others_move_is_asked_at_the_players_next_turn() -> None:
    """A phone's tap or a bot's move between two turns of the keyboard: a move typed meanwhile does
    nothing, but x (or p) is no move, and waits for the turn: pressed once, the game asks to quit."""
    _, second = requests()
    main, side = os.openpty()
    shown: list[str] = []

    def show(line: str) -> None:
        shown.append(line)
        if line.startswith("Quit?"):
            os.write(main, b"y")  # the answer, once the question is asked

    with os.fdopen(side, "r") as stream:
        keys = KeyPresses(stream, show)
        os.write(main, b" ")
        assert keys.next_input(replace(second, move_number=0)) == KeyCommand(Command.PASS)
        os.write(main, b" x")  # during the others' turns: a pass, then quit
        keys.interrupt = lambda: True  # nothing typed in turn: the keyboard is woken, not kept waiting
        assert keys.next_input(replace(second, move_number=3)) == KeyCommand(Command.QUIT)
        assert shown == ["Quit? the series is saved (y/n)"]  # the space typed meanwhile did nothing
        os.write(main, b" p")
        assert keys.next_input(replace(second, move_number=6)) == KeyCommand(Command.PAUSE)
    os.close(main)
