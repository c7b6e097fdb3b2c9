"""What a table without a speaker reads: every announcement on the screen until the next one, the deal's
sizes until its first card, `r` showing again what was said, and line mode printing each announcement
when it is made."""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence

from rich.console import Console
from support.table_views import screen_text, table_console

from voice_earl.game.cards import Rank
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.table.narrator import Narrator
from voice_earl.table.presenters import Narration, ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Move, Seat, TableSettings
from voice_earl.table.turns import Command, KeyCommand, TurnInput, TurnRequest

NAMES = ("Ann", "Ben", "Cy")
NO_DEVICE = "voice-earl-test-no-such-device"
# Series seed 5 with a real pack: Cy deals, Ann leads.
SIZES = "Deal 1. Cy deals: Ann 18, Ben 17, Cy 17."
QUEENS = KeyCommand(Command.LEAD, Rank.QUEEN)
PLAY, PASS, UNDO, REPEAT = (KeyCommand(c) for c in (Command.PLAY, Command.PASS, Command.UNDO, Command.REPEAT))


def silent_earl(deck: DeckMode = DeckMode.PHYSICAL) -> TableSettings:
    return TableSettings(tuple(Seat(n) for n in NAMES), HOYLE.with_changes(silent=True), deck, deals=2, seed=5)


class Players:
    """Everyone at the table: before each command, what the screen shows while the turn waits."""

    def __init__(self, commands: Iterable[TurnInput]) -> None:
        self.commands = iter(commands)
        self.view: ScreenView | None = None
        self.seen: list[str] = []

    def next_input(self, request: TurnRequest) -> TurnInput:
        assert self.view is not None
        self.seen.append(screen_text(self.view.snapshot()))
        return next(self.commands, KeyCommand(Command.QUIT))


def play_live(commands: Sequence[TurnInput], device: str | None = None) -> list[str]:
    """A Silent Earl game on the live screen at 80x24; the screen at each turn, as the players saw it."""
    players = Players(commands)
    session = TableSession(silent_earl(), dict.fromkeys(range(len(NAMES)), players))
    with TableScreen(table_console(), live=True) as screen:
        view = ScreenView(session, screen, show_hands=lambda seat: False)
        players.view = view
        narrator = Narrator(printer=view.narrate, device=device, speak=device is not None)
        session.listeners = [view, Narration(session, narrator)]
        session.run()
        narrator.close()
    return players.seen


def test_the_deal_sizes_stay_on_the_screen_until_the_first_card() -> None:
    seen = play_live([PLAY, QUEENS])  # enter at a lead is refused: a lead needs a rank
    assert SIZES in seen[0]
    assert SIZES in seen[1] and "a lead needs a rank" in seen[1]  # a refusal does not take its place
    assert SIZES not in seen[2]  # the first card is down


def test_no_speaker_stays_on_the_screen_beside_the_deal_and_the_turn() -> None:
    seen = play_live([], device=NO_DEVICE)
    assert f"no speaker called {NO_DEVICE} found" in " ".join(seen[0].split())
    assert SIZES in seen[0]


def test_a_full_circle_of_passes_is_explained_and_stays_until_the_next_announcement() -> None:
    # Ann leads Queens, Ben plays one, then everyone passes: someone holds a Queen and passed.
    seen = play_live([QUEENS, PLAY, PASS, PASS, PASS, PLAY])
    circle = "A full circle of passes: someone holds a Queen and passed."
    assert circle in " ".join(seen[5].split())  # Cy, asked again after the passes
    assert "Look at your cards again" in " ".join(seen[5].split())
    assert circle in " ".join(seen[6].split())  # Cy played: nothing new was announced, so it stays


def test_the_screen_says_what_undo_took_back_and_r_shows_it_again() -> None:
    seen = play_live([QUEENS, PLAY, PASS, UNDO, QUEENS, REPEAT, PASS])
    assert "Taken back: Cy's pass." in seen[4]  # Cy, asked again
    assert "the queens are open" in seen[5] and "Taken back" not in seen[5]  # a refusal took its place
    assert "Again: Taken back: Cy's pass." in seen[6]  # r brings it back


def test_undo_says_which_card_it_took_back() -> None:
    seen = play_live([QUEENS, PLAY, UNDO])
    assert "Taken back: Ben's Queen, card 2 of 4." in seen[3]
    seen = play_live([QUEENS, UNDO])
    assert "Taken back: Ann's lead of Queens." in seen[2]


def test_line_mode_prints_each_announcement_when_it_is_made_and_repeat_prints_it_again() -> None:
    out = io.StringIO()
    commands = [QUEENS, REPEAT, PLAY, PASS, REPEAT]
    session = TableSession(silent_earl(), dict.fromkeys(range(len(NAMES)), Players(commands)))
    screen = TableScreen(Console(file=out, width=400, color_system=None), live=False)
    view = ScreenView(session, screen, show_hands=lambda seat: False)
    session.inputs[0].view = view  # type: ignore[attr-defined]
    narrator = Narrator(speak=False, printer=view.narrate)
    session.listeners = [view, Narration(session, narrator)]
    session.run()
    narrator.close()
    lines = out.getvalue().splitlines()
    led = next(line for line in lines if line.endswith("| Ann Q"))  # the lead, and Ben's turn after it
    assert "Ann to lead" not in led and "Ben: Queens, card 2 of 4" in led
    assert SIZES in lines
    assert "Again: Ben: Queens, card 2 of 4" in lines  # only the turn was said since the lead
    assert "Cy passes" in lines and "Again: Cy passes" in lines


def test_pausing_silent_earl_does_not_say_it_listens_again() -> None:
    seen = play_live([KeyCommand(Command.PAUSE), KeyCommand(Command.PAUSE), QUEENS])
    assert "Paused. Press p to go on." in seen[1]
    assert "Going on." in seen[2] and "Listening" not in seen[2]


def test_a_resumed_deal_that_has_not_begun_shows_its_sizes() -> None:
    def deal_line(session: TableSession) -> str:
        view = ScreenView(session, TableScreen(table_console(), live=True), show_hands=lambda seat: False)
        return view.snapshot().deal_line

    session = TableSession(silent_earl(), {}, moves=[])
    assert deal_line(session) == SIZES
    assert deal_line(TableSession(silent_earl(), {}, moves=[Move(session.deal.legal_actions()[0])])) == ""


def test_a_refusal_leaves_the_screen_with_the_move_that_answers_it() -> None:
    kings = KeyCommand(Command.LEAD, Rank.KING)
    # Ann leads Queens; Ben tries to lead (refused), then plays; Cy and Ann play the quartet out; Ann, leading
    # again, tries Queens (all four are out: refused), then leads Kings.
    seen = [" ".join(text.split()) for text in play_live([QUEENS, QUEENS, PLAY, PLAY, PLAY, QUEENS, kings, PASS])]
    open_queens = "the queens are open: play one (enter) or pass (space)"
    assert open_queens in seen[2]  # Ben, asked again
    assert open_queens not in seen[3]  # Cy's turn: Ben played, and the refusal went with his move
    finished = "All four queens are out already: lead another rank."
    assert finished in seen[6]  # Ann, asked again
    assert finished not in seen[7]  # Ben's turn: Ann led Kings
