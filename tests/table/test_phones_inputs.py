"""Phone taps beside the other inputs: the gate's rules, and the keyboard, script and voice sources
stopping their wait when a tap arrives without losing what was typed."""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import TextIO

import numpy as np
import pytest

from voice_earl.game.cards import Rank
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.listening.stream.audio import AudioChunk
from voice_earl.table.phones.gate import Tap, TapAnswer, TurnGate, WithPhones
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, TableSettings
from voice_earl.table.turns import Command, KeyCommand, KeyPresses, LineCommands, TurnRequest, Woken
from voice_earl.table.voice_input import VoiceInput, open_listener

PASS = KeyCommand(Command.PASS)


def request() -> TurnRequest:
    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1)
    return TableSession(settings, {}).request()


def test_the_gate_takes_one_tap_for_the_open_turn_and_explains_the_rest() -> None:
    gate = TurnGate(("Ann", "Ben", "Cy"))
    assert gate.offer(Tap(1, "x", PASS)) == (TapAnswer.STALE, "")  # no turn open yet
    turn = gate.open(1)
    assert gate.offer(Tap(0, turn, PASS)) == (TapAnswer.REFUSED, "It is Ben's turn, not yours.")
    assert gate.offer(Tap(1, "old", PASS)) == (TapAnswer.STALE, "")
    assert gate.offer(Tap(1, turn, PASS)) == (TapAnswer.ACCEPTED, "")
    assert gate.offer(Tap(1, turn, KeyCommand(Command.LEAD, Rank.ACE))) == (TapAnswer.STALE, "")  # a double tap
    assert gate.waiting()
    assert gate.take(0) is None
    assert gate.take(1) == PASS and gate.take(1) is None
    gate.pause(True)
    assert gate.offer(Tap(1, turn, PASS)) == (TapAnswer.REFUSED, "The game is paused.")
    gate.pause(True, "The game waits for an answer at the laptop.")
    assert gate.offer(Tap(1, turn, PASS)) == (TapAnswer.REFUSED, "The game waits for an answer at the laptop.")
    gate.pause(False)
    assert gate.offer(Tap(1, turn, PASS))[0] is TapAnswer.ACCEPTED
    gate.close()  # the move was made: what waits is stale
    assert gate.take(1) is None
    assert gate.open(1) != turn


def _tap_later(gate: TurnGate, seat: int, command: KeyCommand, delay: float = 0.1) -> threading.Thread:
    turn = gate.open(seat)

    def tap() -> None:
        time.sleep(delay)
        gate.offer(Tap(seat, turn, command))

    thread = threading.Thread(target=tap)
    thread.start()
    return thread


def test_a_tap_wins_over_a_script_that_waits_and_the_next_line_is_kept() -> None:
    lines: queue.Queue[str | None] = queue.Queue()
    gate = TurnGate(("Ann", "Ben", "Cy"))
    source = WithPhones(LineCommands(iter(lines.get, None), print), gate)
    asked = request()
    tapping = _tap_later(gate, asked.seat, KeyCommand(Command.LEAD, Rank.KING))
    assert source.next_input(asked) == KeyCommand(Command.LEAD, Rank.KING)  # the script was waiting for a line
    tapping.join()
    lines.put("pass")
    assert source.next_input(asked) == PASS


@pytest.fixture
def terminal() -> Iterator[tuple[TextIO, int]]:
    main, side = os.openpty()
    with os.fdopen(side, "r") as stream:
        yield stream, main
    os.close(main)


def test_the_keyboard_stops_waiting_for_a_tap_and_keeps_keys_typed_while_it_waits(
    terminal: tuple[TextIO, int],
) -> None:
    stream, main = terminal
    keys = KeyPresses(stream, print)
    keys.interrupt = lambda: False
    threading.Timer(0.15, os.write, (main, b" ")).start()  # typed while the keyboard waits
    assert keys.next_input(request()) == PASS
    keys.interrupt = lambda: True
    assert keys.next_input(request()) == Woken()


@pytest.mark.slow
def test_the_voice_stops_listening_when_a_tap_arrives() -> None:
    listener, _ = open_listener(SimpleNamespace(recognizer="pocketsphinx"))
    gate = TurnGate(("Ann", "Ben", "Cy"))

    def room() -> Iterator[AudioChunk]:
        while True:  # a quiet room for as long as it is listened to
            time.sleep(0.04)
            yield AudioChunk(np.zeros(640, dtype=np.int16).tobytes(), captured_at=None)

    # No silence ends this turn within the test's time (it would answer Silence): only the tap can.
    source = WithPhones(VoiceInput(listener, chunks=room, silence_timeout_s=3600.0), gate)
    asked = request()
    tapping = _tap_later(gate, asked.seat, KeyCommand(Command.LEAD, Rank.QUEEN), delay=0.3)
    assert source.next_input(asked) == KeyCommand(Command.LEAD, Rank.QUEEN)
    tapping.join()
