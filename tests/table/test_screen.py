"""The table screen: layout at 80x24, big text, colours, live redraws and plain lines for pipes."""

from __future__ import annotations

import io
import os
import re
import signal
import time

import pytest
from rich.console import Console
from rich.segment import Segment
from support.patience import WAIT_S
from support.table_views import screen_text, table_console

from voice_earl.game.cards import full_deck
from voice_earl.table import blockfont
from voice_earl.table.screen import TableScreen
from voice_earl.table.screen_layout import render
from voice_earl.table.screen_sections import VERDICT_LABELS, PlayerRow, TableSnapshot, plain_parts, quartet_progress

NAMES = ("Ann", "Ben", "Cleo", "Dmitri", "Eve", "Fynn", "Gus", "Hal", "Ida", "Jo", "Kit", "Lou", "Max")
QUEEN_LINE = "There's a Queen as good as he"


def players(count: int, *, hands: bool = False) -> tuple[PlayerRow, ...]:
    """Ann deals, Ben is to move; with ``hands`` every player shows an even share of a real deck."""
    deck = [card.pretty for card in full_deck()]
    share = len(deck) // count
    return tuple(
        PlayerRow(
            name=NAMES[i],
            cards=share,
            total=5 * i,
            dealer=i == 0,
            to_move=i == 1,
            hand=tuple(deck[i * share : (i + 1) * share]) if hands else None,
            note="bot" if i > 1 else "",
        )
        for i in range(count)
    )


def snapshot(count: int = 4, *, hands: bool = False, **changes: object) -> TableSnapshot:
    fields: dict[str, object] = {
        "title": "Deal 2 of 6 · hoyle · physical deck",
        "players": players(count, hands=hands),
        "rank": "Q",
        "in_quartet": 1,
        "finished_ranks": ("A", "7", "K"),
        "due_player": "Ben",
        "due_line": QUEEN_LINE,
        "due_hint": "Ben: queens, second card",
        "heard": "there's a queen as good as me",
        "verdict": "wrong_line",
        "feedback": "you said 'as good as me', the line ends 'as good as he'",
        "message": "Ann leads the Queen of spades.",
        "status": "listening…",
    }
    fields.update(changes)
    return TableSnapshot(**fields)  # type: ignore[arg-type]


def screen_lines(snap: TableSnapshot, width: int = 80, height: int = 24) -> list[list[Segment]]:
    console = table_console(width, height)
    return console.render_lines(render(snap), console.options, pad=False)


def line_text(line: list[Segment]) -> str:
    return "".join(segment.text for segment in line)


def assert_fits(text: str, width: int = 80, height: int = 24) -> None:
    rows = text.rstrip("\n").split("\n")
    assert len(rows) <= height, f"{len(rows)} rows:\n{text}"
    assert max(len(row) for row in rows) <= width


def has_block(text: str, rows: list[str]) -> bool:
    """Whether ``rows`` appear one under the other at the same column of ``text``."""
    screen = text.split("\n")
    for top in range(len(screen) - len(rows) + 1):
        column = screen[top].find(rows[0].rstrip())
        while column >= 0:
            if all(screen[top + i][column:].startswith(row.rstrip()) for i, row in enumerate(rows)):
                return True
            column = screen[top].find(rows[0].rstrip(), column + 1)
    return False


@pytest.mark.parametrize("count", [3, 4, 6])
@pytest.mark.parametrize("hands", [False, True])
def test_table_fits_80x24_with_the_line_due_in_big_letters(count: int, hands: bool) -> None:
    text = screen_text(snapshot(count, hands=hands))
    assert_fits(text)
    big = blockfont.banner(QUEEN_LINE, 80)
    assert big is not None
    first_line, second_line = big[:3], big[3:]
    assert has_block(text, first_line) and has_block(text, second_line)
    for name in NAMES[:count]:
        assert name in text


@pytest.mark.parametrize("hands", [False, True])
def test_thirteen_players_still_fit_80x24(hands: bool) -> None:
    text = screen_text(snapshot(13, hands=hands))
    assert_fits(text)
    for name in NAMES:
        assert name in text
    assert "space pass" in text.rstrip().split("\n")[-1]


def test_due_line_falls_back_to_bold_capitals_when_the_font_cannot_draw_it() -> None:
    line = "퀸이 나왔다"  # a chant file may use any script; the block font only has Latin letters
    lines = screen_lines(snapshot(4, due_line=line))
    row = next(line_ for line_ in lines if line in line_text(line_))
    assert any(segment.style is not None and segment.style.bold for segment in row if line in segment.text)


def test_due_line_is_bold_capitals_when_too_narrow_for_the_block_font() -> None:
    assert blockfont.banner(QUEEN_LINE, 40, max_lines=3) is not None  # three lines of big text at 40 columns
    assert blockfont.wrap("THERE'S", 24) is None
    text = screen_text(snapshot(4), width=24)
    assert_fits(text, width=24)
    assert QUEEN_LINE.upper() in " ".join(text.split())
    assert "█" not in text


def test_quartet_progress_shows_the_rank_per_card_played() -> None:
    snap = snapshot(4, in_quartet=3)
    assert quartet_progress(snap) == "Q Q Q _"
    big = blockfont.banner("Q Q Q _", 80, max_lines=1)
    assert big is not None
    text = screen_text(snap)
    assert has_block(text, big)
    assert "rank: Queens" in text
    assert "finished: A 7 K" in text


def test_quartet_progress_in_plain_text_when_the_table_is_crowded() -> None:
    text = screen_text(snapshot(13, hands=True, in_quartet=3), height=20)
    assert_fits(text, height=20)
    assert "Q Q Q _" in text


def test_a_lead_shows_no_rank() -> None:
    snap = snapshot(4, rank=None, in_quartet=0)
    assert quartet_progress(snap) == "_ _ _ _"
    assert "lead: any rank" in screen_text(snap)


def test_dealer_is_marked_and_the_player_to_move_is_highlighted() -> None:
    lines = screen_lines(snapshot(6))
    texts = [line_text(line) for line in lines]
    ann = next(text for text in texts if re.match(r"\s*Ann\s+\d+", text))
    assert "dealer" in ann
    ben_row = next(line for line in lines if line_text(line).startswith("▶") and "Ben" in line_text(line))
    name_segment = next(segment for segment in ben_row if "Ben" in segment.text)
    assert name_segment.style is not None and name_segment.style.reverse
    cleo_row = next(line for line in lines if line_text(line).strip().startswith("Cleo"))
    assert not any(segment.style is not None and segment.style.reverse for segment in cleo_row)


@pytest.mark.parametrize(
    ("verdict", "colour"),
    [("correct", "green"), ("wrong_line", "yellow"), ("wrong_rank", "yellow"), ("unclear", "red")],
)
def test_verdict_is_shown_in_its_colour(verdict: str, colour: str) -> None:
    lines = screen_lines(snapshot(4, verdict=verdict))
    label = next(segment for line in lines for segment in line if segment.text == VERDICT_LABELS[verdict])
    assert label.style is not None and label.style.color is not None
    assert label.style.color.name == colour


@pytest.mark.parametrize("verdict", ["silent", "pass"])
def test_silence_and_passes_are_dim(verdict: str) -> None:
    lines = screen_lines(snapshot(4, verdict=verdict, heard=None))
    label = next(segment for line in lines for segment in line if segment.text == VERDICT_LABELS[verdict])
    assert label.style is not None and label.style.dim and label.style.color is None


def test_verdict_colour_reaches_the_exported_html() -> None:
    console = table_console()
    console.print(render(snapshot(4, verdict="correct")))
    html = console.export_html(inline_styles=True)
    green = re.search(r'<span style="[^"]*color: #([0-9a-f]{6})[^"]*">✓ correct</span>', html)
    assert green is not None
    assert green.group(1) == "008000"


def test_feedback_and_message_are_shown() -> None:
    text = screen_text(snapshot(6))
    assert "you said 'as good as me', the line ends 'as good as he'" in text
    assert "Ann leads the Queen of spades." in text
    assert "“there's a queen as good as me”" in text


def test_open_hands_show_every_card_with_red_suits_in_red() -> None:
    snap = snapshot(4, hands=True)
    lines = screen_lines(snap)
    text = "\n".join(line_text(line) for line in lines)
    for player in snap.players:
        assert player.hand is not None
        assert " ".join(player.hand) in " ".join(text.split())
    heart = next(segment for line in lines for segment in line if segment.text == "A♥")
    spade = next(segment for line in lines for segment in line if "A♠" in segment.text)
    assert heart.style is not None and heart.style.color is not None and heart.style.color.name == "red"
    assert spade.style is None or spade.style.color is None


def test_practice_hand_of_26_cards_wraps_inside_the_screen() -> None:
    deck = [card.pretty for card in full_deck()]
    table = (
        PlayerRow("You", 26, 0, to_move=True, hand=tuple(deck[::2]), note="you"),
        PlayerRow("Bot", 26, 0, dealer=True, note="bot"),
    )
    text = screen_text(snapshot(players=table, due_player="You"))
    assert_fits(text)
    for card in deck[::2]:
        assert card in text.split()


def test_big_terminal_gets_bigger_letters() -> None:
    big = blockfont.banner(QUEEN_LINE, 160, max_lines=3, scale=2)
    assert big is not None
    text = screen_text(snapshot(6), width=160, height=48)
    assert_fits(text, width=160, height=48)
    assert has_block(text, big[:5])


def test_plain_mode_prints_only_what_changed() -> None:
    out = io.StringIO()
    screen = TableScreen(Console(file=out, width=200))
    assert not screen.is_live
    first = snapshot(4)
    screen.update(first)
    screen.update(first)
    screen.update(snapshot(4, heard="there's a queen as good as he", verdict="correct", feedback=""))
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert first.title in lines[0] and QUEEN_LINE in lines[0] and "Dmitri" in lines[0]
    assert lines[1] == "heard “there's a queen as good as he” → ✓ correct"
    assert "\x1b" not in out.getvalue()


def test_plain_parts_name_every_part_of_the_table() -> None:
    parts = plain_parts(snapshot(4, hands=True, in_quartet=3))
    assert parts["rank"] == "rank: Queens Q Q Q _, finished: A 7 K"
    assert parts["players"].startswith("Ann (dealer) 13 cards, total 0 [A♠")
    assert "▶Ben 13 cards, total 5" in parts["players"]
    assert parts["due"] == f"Ben: {QUEEN_LINE} (Ben: queens, second card)"
    assert parts["status"] == "[listening…]"


def test_plain_mode_prints_lines_and_progress() -> None:
    out = io.StringIO()
    with TableScreen(Console(file=out, width=200)) as screen:
        screen.print_line("The narrator speaks.")
        with screen.progress("loading model", total=3) as advance:
            advance(1)
            advance(2)
    lines = out.getvalue().splitlines()
    assert lines[0] == "The narrator speaks."
    assert lines[1] == "loading model…"
    assert re.fullmatch(r"loading model: done \(\d+\.\d s\)", lines[2])


def live_screen() -> tuple[TableScreen, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=80, height=24, force_terminal=True, color_system="truecolor")
    return TableScreen(console, live=True), out


def test_live_frames_overwrite_in_place_without_clearing() -> None:
    screen, out = live_screen()
    with screen:
        screen.update(snapshot(6))
        first_frame_end = len(out.getvalue())
        screen.update(snapshot(6, in_quartet=2, verdict="correct"))
        second_frame = out.getvalue()[first_frame_end:]
    assert "\x1b[?1049h" in out.getvalue()  # the alternate screen
    assert second_frame.startswith("\x1b[H")  # home, then the whole frame over the last one
    assert "\x1b[2K" not in second_frame and "\x1b[2J" not in second_frame
    assert second_frame.count("\n") == 23  # 24 padded rows: nothing stale is left behind
    assert "✓ correct" in second_frame


def test_live_progress_and_notices_appear_in_the_frame() -> None:
    screen, out = live_screen()
    with screen:
        screen.update(snapshot(6))
        screen.print_line("model loaded: small English")
        with screen.progress("synthesizing voices", total=10) as advance:
            advance(4)
            during = out.getvalue()
        after = out.getvalue()[len(during) :]
    assert "model loaded: small English" in during
    assert "synthesizing voices" in during and "40%" in during
    # The spinner's own redraws may still land after `during` was read: the last frame is the one that counts.
    last_frame = after.split("\x1b[?1049l")[0].rsplit("\x1b[H", 1)[-1]
    assert "synthesizing voices" not in last_frame and "model loaded" in last_frame


def test_live_spinner_without_total_and_before_any_table() -> None:
    screen, out = live_screen()
    with screen, screen.progress("loading model") as advance:
        advance(1)
    assert "loading model" in out.getvalue()


def test_close_leaves_the_last_frame_on_the_normal_screen() -> None:
    screen, out = live_screen()
    screen.update(snapshot(6))
    screen.close()
    screen.close()
    after_alt_screen = out.getvalue().split("\x1b[?1049l")[-1]
    assert "Deal 2 of 6" in after_alt_screen
    assert after_alt_screen.count("\n") <= 23


def test_terminal_without_live_frame_shows_a_progress_bar() -> None:
    out = io.StringIO()
    screen = TableScreen(Console(file=out, width=80, force_terminal=True), live=False)
    with screen.progress("loading model", total=2) as advance:
        advance(2)
    assert "loading model" in out.getvalue()


def test_default_is_live_only_on_a_terminal() -> None:
    assert not TableScreen(Console(file=io.StringIO())).is_live
    terminal = Console(file=io.StringIO(), force_terminal=True, force_interactive=True)
    assert TableScreen(terminal).is_live


def test_no_color_keeps_colours_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    screen, out = live_screen()
    with screen:
        screen.update(snapshot(6, verdict="correct"))
    assert "✓ correct" in out.getvalue()
    assert not re.search(r"\x1b\[[0-9;]*(3[0-7]|38;[25];[0-9;]+)m", out.getvalue())


def test_block_font_glyphs_are_rectangles_five_pixels_tall() -> None:
    for char in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 '.,!?-<>[]{}/\\|;:@#$%^&*()_+=~`\"":
        rows = blockfont.render_line(char)
        assert len(rows) == blockfont.TEXT_ROWS
        assert len({len(row) for row in rows}) == 1
        assert len(rows[0]) == blockfont.text_width(char)


def test_block_font_wraps_at_spaces_and_refuses_what_it_cannot_draw() -> None:
    assert blockfont.text_width("AS GOOD AS") == 35
    assert blockfont.wrap("AS GOOD AS HE", 35) == ["AS GOOD", "AS HE"]  # even lines, not "HE" alone
    assert blockfont.wrap("AS GOOD AS HE", 34) == ["AS GOOD", "AS HE"]
    assert blockfont.wrap("AS GOOD AS HE", 60) == ["AS GOOD AS HE"]
    assert blockfont.wrap("COVENTRY", 10) is None
    assert blockfont.normalize("Café’s") == "CAFE'S"
    assert blockfont.normalize("Q♠") is None
    assert blockfont.banner("There's the best of all the three", 80) is not None
    assert blockfont.banner("There's the best of all the three", 80, max_lines=1) is None
    rows = blockfont.banner("AB CD", 80, max_lines=2, line_gap=1)
    assert rows is not None and len(rows) == 3
    doubled = blockfont.banner("AB", 80, scale=2)
    assert doubled is not None and len(doubled) == 5 and len(doubled[0]) == 2 * blockfont.text_width("AB")


def test_a_small_screen_keeps_every_player_on_one_line_each_entry_whole() -> None:
    text = screen_text(snapshot(13), height=12)
    assert_fits(text, height=12)
    entries = re.findall(r"(▶?[A-Z][a-z]+(?:\(D\))?):(\d+)/(\d+)", text)
    assert [name.lstrip("▶").removesuffix("(D)") for name, _, _ in entries] == list(NAMES)
    assert ("▶Ben", "4", "5") in entries and ("Ann(D)", "4", "0") in entries


def frames_of_a_game(silent: bool, names: tuple[str, ...], width: int = 80, height: int = 24) -> list[str]:
    """The screen at every turn of a deal between bots, as a table of ``names`` would read it."""
    from voice_earl.game.bots import MostStrategy
    from voice_earl.game.rules import HOYLE, DeckMode
    from voice_earl.table.presenters import ScreenView
    from voice_earl.table.session import TableSession
    from voice_earl.table.session_events import Seat, TableEvent, TableSettings, TurnBegins
    from voice_earl.table.turns import BotSource

    profile = HOYLE.with_changes(silent=silent)
    settings = TableSettings(tuple(Seat(name) for name in names), profile, DeckMode.VIRTUAL, deals=1, seed=8)
    session = TableSession(settings, dict.fromkeys(range(len(names)), BotSource(MostStrategy(), "t")))
    view = ScreenView(session, TableScreen(live=False, console=Console(file=io.StringIO())), show_hands=lambda s: False)
    frames: list[str] = []

    def look(event: TableEvent) -> None:
        if isinstance(event, TurnBegins):
            frames.append(screen_text(view.snapshot(), width, height))

    session.listeners = [look]
    session.run()
    return frames


@pytest.mark.parametrize("silent", [True, False])
@pytest.mark.parametrize("count", [3, 6])
def test_the_turn_in_big_letters_fits_80_columns_and_the_layout_keeps_still(silent: bool, count: int) -> None:
    frames = frames_of_a_game(silent, NAMES[:count])
    for frame in frames:
        assert_fits(frame)
    # Whatever the turn (a lead, Eights, card 4 of 4; a long name or a short one) the table below the big
    # letters starts on the same row: nothing jumps from one turn to the next.
    header_rows = {next(i for i, row in enumerate(frame.split("\n")) if "total" in row) for frame in frames}
    assert len(header_rows) == 1, header_rows
    big_rows = {sum("▀" in row or "▄" in row or "█" in row for row in frame.split("\n")) for frame in frames}
    assert len(big_rows) <= 2, big_rows  # the rows of big text differ only by the quartet's blank progress


def big_rows(frame: str) -> int:
    return sum("▀" in row or "▄" in row or "█" in row for row in frame.split("\n"))


def test_the_block_font_draws_every_printable_ascii_character() -> None:
    printable = "".join(chr(code) for code in range(0x20, 0x7F))
    assert blockfont.normalize(printable) == printable.upper()


@pytest.mark.parametrize("odd", ["B<n", "B>n", "Bo/b", "Jo;e", "<Jo/>", "[/]", "Ann & {Cy}", "x@y.z"])
def test_a_name_with_brackets_or_slashes_keeps_every_turn_in_big_letters(odd: str) -> None:
    ordinary = frames_of_a_game(True, ("Ann", "Ben", "Cy"))
    frames = frames_of_a_game(True, ("Ann", odd, "Cy"))
    assert {big_rows(frame) for frame in frames} == {big_rows(frame) for frame in ordinary}
    assert all(odd in frame for frame in frames)


def test_a_name_the_font_cannot_draw_is_small_only_on_its_own_turn() -> None:
    ordinary = {big_rows(frame) for frame in frames_of_a_game(True, ("Ann", "Ben", "Cy"))}
    frames = frames_of_a_game(True, ("Ann", "李雷", "Cy"))
    own = [frame for frame in frames if "▶ 李雷" in frame]
    others = [frame for frame in frames if "▶ 李雷" not in frame]
    assert own and others
    assert {big_rows(frame) for frame in others} <= ordinary  # everyone else's turn as at any table
    for frame in own:  # his turn in capitals, his name as typed
        assert any(row.startswith("李雷") for row in frame.split("\n")), frame


@pytest.mark.parametrize("name", ["李雷", "Maximiliana-Bartholomew"])  # no letters for it; too long to draw
def test_a_turn_written_small_keeps_the_table_where_the_others_turns_have_it(name: str) -> None:
    frames = frames_of_a_game(True, ("Ann", name, "Cy"))
    header_rows = {next(i for i, row in enumerate(frame.split("\n")) if "total" in row) for frame in frames}
    assert len(header_rows) == 1, header_rows  # the layout jumped on the name's own turn
    assert any(f"▶ {name}" in frame for frame in frames)


def test_a_turn_in_big_letters_breaks_between_phrases_never_before_a_lone_word() -> None:
    for name in ("Ben", "Dmitri"):
        for rank in ("Eights", "Queens"):
            line = blockfont.normalize(f"{name}: {rank}, card 4 of 4")
            assert line is not None
            assert blockfont.wrap(line, 80) == [f"{name}: {rank},".upper(), "CARD 4 OF 4"]


@pytest.mark.skipif(not hasattr(signal, "SIGWINCH"), reason="no terminal size signal here")
def test_the_live_frame_follows_the_terminal_when_it_grows() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, height=24, force_terminal=True, color_system=None)
    before = signal.getsignal(signal.SIGWINCH)
    with TableScreen(console, live=True) as screen:
        screen.update(snapshot(3))
        assert out.getvalue().count("\n") == 23  # a frame of 24 rows
        console.size = (80, 40)  # the terminal grows, and says so
        out.truncate(0)
        out.seek(0)
        os.kill(os.getpid(), signal.SIGWINCH)
        deadline = time.monotonic() + WAIT_S
        while out.getvalue().count("\n") < 39 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert out.getvalue().count("\n") == 39  # redrawn at once, 40 rows, without waiting for a key
    assert signal.getsignal(signal.SIGWINCH) is before  # closed: the terminal's signal is left as it was


def test_the_heard_line_says_whose_it_was_and_shows_no_empty_quotes() -> None:
    text = screen_text(snapshot(4, heard="there is the best of all the three", verdict="correct", heard_from="Ben"))
    assert "heard  Ben: “there is the best of all the three”" in text
    unclear = screen_text(snapshot(4, heard="", verdict="unclear", feedback="", heard_from="Cy"))
    assert "“”" not in unclear and "heard  Cy: —" in unclear
    parts = plain_parts(snapshot(4, heard="pass it on", verdict="unclear", feedback="", heard_from="Cy"))
    assert parts["heard"] == "heard Cy: “pass it on” → ? unclear"
    assert plain_parts(snapshot(4, heard="", verdict="unclear", feedback="", heard_from="Cy"))["heard"] == (
        "heard nothing → ? unclear"
    )
