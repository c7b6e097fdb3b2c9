"""Phones as microphones, on the game's side: the buttons held, the speech released for the open
turn, and the input source that judges it.

The server's loop (:mod:`voice_earl.table.phones.mics`) presses and lifts buttons and delivers
what was held; the game's thread takes it through :class:`WithPhoneMics` and judges it there, with
the turn's context, as the session's only owner. While any phone's button is held, the laptop's
microphone stops listening (it is interrupted, as a tap interrupts it) and does not listen again
until every button is up: the speech said into a phone is judged once, from the phone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from voice_earl.i18n import _
from voice_earl.listening.context import ListenContext
from voice_earl.listening.held import hear_held
from voice_earl.listening.listener import Listener, judge_utterance
from voice_earl.listening.verdicts import Strictness, Verdict
from voice_earl.table.phones.gate import TapAnswer, TurnGate
from voice_earl.table.turns import Heard, InputSource, Interruptible, TurnInput, TurnRequest, Woken
from voice_earl.table.voice_input import implausible_command

_POLL_S = 0.05  # how often the game's thread looks for a tap while a button is held

Answer = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Spoken:
    """What a phone held for a turn, released, waiting for the game's thread to judge it."""

    seat: int
    turn: str
    pcm: bytes = field(repr=False)  # little-endian 16-bit mono at 16 kHz
    answer: Answer = field(repr=False, compare=False)  # sends the verdict to the phone that held (any thread)


class MicGate:
    """Shared by the server's loop and the game's thread; every method is thread-safe.

    ``press_s``: how long a button may count as held at most, should the loop never lift it."""

    def __init__(self, gate: TurnGate, press_s: float) -> None:
        self.gate = gate
        self.press_s = press_s
        self._changed = threading.Condition()
        self._pressed: dict[Hashable, float] = {}  # every button down, judged or not: until when at most
        self._holders: dict[Hashable, str] = {}  # the buttons whose speech will be judged, and their turn
        self._spoken: Spoken | None = None

    # -- the server's loop

    def press(self, button: Hashable, seat: int, turn: str) -> tuple[TapAnswer, str]:
        """A button went down. Every button held stops the laptop's microphone; what is held is
        judged only when ``seat`` is on ``turn`` and no other phone is holding for it."""
        answer, reason = self.gate.check(seat, turn)
        with self._changed:
            self._pressed[button] = time.monotonic() + self.press_s
            if answer is TapAnswer.ACCEPTED and turn in self._holders.values():
                answer, reason = TapAnswer.REFUSED, _("Your other phone is listening already.")
            if answer is TapAnswer.ACCEPTED:
                self._holders[button] = turn
            self._changed.notify_all()
        return answer, reason

    def release(self, button: Hashable, spoken: Spoken | None) -> tuple[TapAnswer, str]:
        """The button went up; ``spoken``: what it held, to be judged if its turn is still open."""
        answer, reason = (TapAnswer.STALE, "") if spoken is None else self.gate.check(spoken.seat, spoken.turn)
        with self._changed:
            if spoken is not None and answer is TapAnswer.ACCEPTED and self._holders.get(button) == spoken.turn:
                self._spoken = spoken
            self.lift(button)
        return answer, reason

    def lift(self, button: Hashable) -> None:
        """The button is up, or its hold was dropped: nothing it held is judged."""
        with self._changed:
            self._pressed.pop(button, None)
            self._holders.pop(button, None)
            self._changed.notify_all()

    # -- the game's thread

    def pressed(self) -> bool:
        """Whether any phone's button is held now."""
        now = time.monotonic()
        with self._changed:
            return any(until > now for until in self._pressed.values())

    def busy(self) -> bool:
        """Whether a button is held or a held utterance waits: the laptop's microphone stops."""
        turn = self.gate.turn_id
        with self._changed:
            waiting = self._spoken is not None and self._spoken.turn == turn
        return waiting or self.pressed()

    def take(self, seat: int) -> Spoken | None:
        """The held utterance waiting for ``seat``'s open turn, if any (it is taken once); one for
        a turn that is over is answered so and dropped."""
        turn = self.gate.turn_id
        with self._changed:
            spoken, self._spoken = self._spoken, None
        if spoken is None:
            return None
        if spoken.turn != turn or spoken.seat != seat:
            spoken.answer(unheard(spoken.turn, _("That turn is over: nothing was heard.")))
            return None
        return spoken

    def wait(self, seconds: float) -> None:
        """Until a button goes up or down, or ``seconds`` pass."""
        with self._changed:
            self._changed.wait(seconds)


def unheard(turn: str, reason: str) -> dict[str, Any]:
    """The answer to a hold that is not judged, and why."""
    return {"type": "unheard", "turn": turn, "reason": reason}


@dataclass(frozen=True)
class HeldHearing:
    """Judges a held utterance as the laptop's microphone judges what it hears, with the same listener."""

    listener: Listener
    strictness: Strictness = Strictness.NORMAL
    keep_audio: bool = False

    def __call__(self, pcm: bytes, context: ListenContext) -> Heard:
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.int16)
        utterance = hear_held(self.listener, samples, context)
        judgement = judge_utterance(utterance, context, self.strictness)
        if implausible_command(utterance):
            judgement = replace(judgement, verdict=Verdict.UNCLEAR)
        return Heard(judgement, latency_ms=utterance.compute_s * 1000, audio=pcm if self.keep_audio else None)


def verdict_message(turn: str, heard: Heard) -> dict[str, Any]:
    """The answer to a released hold: the verdict, what was heard, why (for anything not taken)
    and the line due, as the table screen shows them."""
    judgement = heard.judgement
    return {"type": "heard", "turn": turn, "verdict": judgement.verdict.value, "heard": judgement.heard,
            "why": judgement.feedback(), "line": judgement.expected}


@dataclass
class WithPhoneMics:
    """An input source for the human seats: what their phones held, beside the laptop's microphone
    (or the keys). While a button is held the inner source is not listened to."""

    inner: InputSource
    mics: MicGate
    hear: Callable[[bytes, ListenContext], Heard]
    interrupt: Callable[[], bool] | None = None  # a phone's tap arrived (set by WithPhones)

    def __post_init__(self) -> None:
        if isinstance(self.inner, Interruptible):
            self.inner.interrupt = self._stop_inner

    def next_input(self, request: TurnRequest) -> TurnInput:
        while True:
            spoken = self.mics.take(request.seat)
            if spoken is not None:
                heard = self.hear(spoken.pcm, request.context)
                spoken.answer(verdict_message(spoken.turn, heard))
                return heard
            if self.mics.pressed():
                if self._tapped():
                    return Woken()
                self.mics.wait(_POLL_S)
                continue
            given = self.inner.next_input(request)
            if not isinstance(given, Woken) or self._tapped():
                return given

    def _tapped(self) -> bool:
        return self.interrupt is not None and self.interrupt()

    def _stop_inner(self) -> bool:
        return self.mics.busy() or self._tapped()
