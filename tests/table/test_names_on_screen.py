"""A player's name is text wherever the table shows it: the full-screen table, the deal result and the plain
lines for pipes show every name exactly as typed, square brackets and all, and none of them crashes the screen."""

from __future__ import annotations

import ast
import io

from hypothesis import HealthCheck, example, given, settings
from support.odd_names import tables
from support.table_views import bot_session, screen_text

from voice_earl.paths import REPO_ROOT
from voice_earl.table.console import text_console
from voice_earl.table.presenters import ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.session_events import TableEvent, TurnBegins


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=tables)
@example(names=("Ann", "[/]", "Cy"))
@example(names=("[dad]", "Jo [the host]", "[blink red]Ben"))
def test_every_name_is_shown_as_typed_on_the_table_the_deal_result_and_the_plain_lines(
    names: tuple[str, ...],
) -> None:
    session = bot_session(deals=1, names=names)
    printed = io.StringIO()
    lines = TableScreen(text_console(file=printed, width=400), live=False)  # the plain lines for pipes
    view = ScreenView(session, lines, show_hands=lambda s: False)
    frames: list[str] = []

    def first_turn(event: TableEvent) -> None:
        if isinstance(event, TurnBegins) and not frames:
            frames.append(screen_text(view.snapshot()))

    def deal_over(final: bool) -> None:
        result = view.snapshot()
        assert result.result is not None
        frames.append(screen_text(result))

    session.listeners = [view, first_turn]
    session.hold = deal_over
    session.run()
    table, result = frames
    for name in names:
        assert name in table, f"{name!r} is not on the table:\n{table}"
        assert name in result, f"{name!r} is not in the deal result:\n{result}"
        assert name in printed.getvalue(), f"{name!r} is not in the plain lines"


def test_every_console_the_game_makes_prints_strings_as_text() -> None:
    """One way to a console, so that no new one reads a name as markup."""
    made_elsewhere = [
        f"{path.relative_to(REPO_ROOT)}:{node.lineno}"
        for path in sorted((REPO_ROOT / "voice_earl").rglob("*.py"))
        if path.name != "console.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Console"
    ]
    assert made_elsewhere == [], f"make consoles with voice_earl.table.console.text_console: {made_elsewhere}"
