"""`voice-earl drill --typed`: its feedback fits the terminal, and its summary says what was not asked."""

from __future__ import annotations

import io
import sys

import pytest

from voice_earl.commands.cli import main


def test_feedback_is_wrapped_between_words_to_the_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    said = "there's the best of all the three, I hope and pray that it is right this time"
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{said}\n"))
    monkeypatch.setenv("COLUMNS", "70")
    assert main(["drill", "--typed", "--rounds", "1", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    lines = [line.removeprefix("> ") for line in out.splitlines()]  # the prompt, with no typed line after it
    assert all(len(line) <= 70 for line in lines), [line for line in lines if len(line) > 70]
    words = said.replace(",", "").replace("'s", " is").lower().split()
    shown = {word.strip("',;:") for line in lines for word in line.split()}
    assert set(words) <= shown  # every word of what was heard is whole on a line


def test_the_summary_shows_dashes_for_a_line_never_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("there's a ten as good as he\n"))
    assert main(["drill", "--typed", "--rounds", "1", "--seed", "3"]) == 0  # seed 3 asks for Tens, second card
    rows = {
        line.split(".")[0]: line.split()
        for line in capsys.readouterr().out.splitlines()
        if line[:2] in ("1.", "2.", "3.", "4.")
    }
    assert rows["2"][-3:-1] == ["1", "100%"]
    for never in ("1", "3", "4"):
        assert rows[never][-3:] == ["0", "—", "—"], rows[never]


def test_a_line_accepted_with_a_slip_says_which_word_slipped(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("there's a ten as good as me\nthere's a ten as good as he\n"))
    assert main(["drill", "--typed", "--rounds", "1", "--seed", "3"]) == 0  # seed 3 asks for Tens, second card
    out = capsys.readouterr().out
    assert "The lines are read one for each prompt" in out and "Say the line" not in out  # typed, from a pipe
    assert "correct (83)" in out
    assert "you said 'as good as me', the line ends 'as good as he'" in " ".join(out.split())  # wrapped to 80


class _StoppedAfter(io.StringIO):
    """Typed lines, then Ctrl-C at the next prompt."""

    def readline(self, size: int | None = -1) -> str:
        line = super().readline()
        if not line:
            raise KeyboardInterrupt
        return line


def test_ctrl_c_stops_the_drill_with_its_summary(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", _StoppedAfter("there's a ten as good as he\n"))
    assert main(["drill", "--typed", "--rounds", "0", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "best streak: 1" in out
    assert [line.split()[-3:-1] for line in out.splitlines() if line.startswith("2.")] == [["1", "100%"]]


def test_a_wrong_rank_at_a_lead_says_which_rank_the_drill_asked_for(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's words ("not a rank you can lead now") made no sense where the drill asked for one rank."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("there's as good as seven can be\n"))
    assert main(["drill", "--typed", "--rounds", "1", "--seed", "2"]) == 0  # seed 2 asks to lead Twos
    out = " ".join(capsys.readouterr().out.split())
    assert "Lead the twos" in out and "you said Seven, but the drill asked for Twos" in out


def test_lines_read_from_a_pipe_are_told_that_an_empty_one_is_a_line_not_said(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Piped, an empty line is a silent answer and the drill goes on; the banner said it stops the drill."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("\nthere's a ten as good as he\n"))
    assert main(["drill", "--typed", "--rounds", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "an empty line is a line not said" in out and "stops" not in out
    assert "silent:" in out
