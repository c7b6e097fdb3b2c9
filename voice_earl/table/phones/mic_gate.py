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
from dataclasses import dataclass, field
from typing import Any

from voice_earl.i18n import _
from voice_earl.listening.stream.held import HeldSpeech
from voice_earl.listening.stream.listener import Listener
from voice_earl.table.phones.gate import TapAnswer, TurnGate
from voice_earl.table.turns import Heard, InputSource, Interruptible, TurnInput, TurnRequest, Woken
from voice_earl.table.voice_input import graded
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import Strictness

_POLL_S = 0.05  # how often the game's thread looks for a tap while a button is held

Answer = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Spoken:
    """What a phone held for a turn, released, waiting for the game's thread to judge it."""

    seat: int
    turn: str
    hold: int  # which hold: a player may hold again on the same turn, after "say it again"
    pcm: bytes = field(repr=False)  # little-endian 16-bit mono at 16 kHz
    answer: Answer = field(repr=False, compare=False)  # sends the verdict to the phone that held (any thread)


@dataclass(eq=False)
class _Holding:
    """A hold whose speech will be judged, and its audio so far."""

    seat: int
    turn: str
    hold: int
    pcm: bytearray = field(default_factory=bytearray)


class MicGate:
    """Shared by the server's loop and the game's thread; every method is thread-safe.

    ``press_s``: how long a button may count as held at most, should the loop never lift it."""

    def __init__(self, gate: TurnGate, press_s: float) -> None:
        self.gate = gate
        self.press_s = press_s
        self._changed = threading.Condition()
        self._pressed: dict[Hashable, float] = {}  # every button down, judged or not: until when at most
        self._holding: dict[Hashable, _Holding] = {}  # the buttons whose speech will be judged
        self._holds = 0
        self._spoken: Spoken | None = None

    # -- the server's loop

    def press(self, button: Hashable, seat: int, turn: str) -> tuple[TapAnswer, str]:
        """A button went down. Every button held stops the laptop's microphone; what is held is
        judged only when ``seat`` is on ``turn`` and no other phone is holding for it."""
        answer, reason = self.gate.check(seat, turn)
        with self._changed:
            self._pressed[button] = time.monotonic() + self.press_s
            if answer is TapAnswer.ACCEPTED and any(h.turn == turn for h in self._holding.values()):
                answer, reason = TapAnswer.REFUSED, _("Your other phone is listening already.")
            if answer is TapAnswer.ACCEPTED:
                self._holds += 1
                self._holding[button] = _Holding(seat, turn, self._holds)
            self._changed.notify_all()
        return answer, reason

    def more(self, button: Hashable, pcm: bytes) -> None:
        """Audio for the hold of ``button`` (nothing, for a button whose speech is not judged)."""
        with self._changed:
            holding = self._holding.get(button)
            if holding is not None:
                holding.pcm += pcm

    def release(self, button: Hashable, answer: Answer) -> tuple[TapAnswer, str]:
        """The button went up: what it held is judged if its turn is still open (``answer`` sends
        the verdict)."""
        with self._changed:
            holding = self._holding.get(button)
        if holding is None:
            self.lift(button)
            return TapAnswer.STALE, ""
        verdict, reason = self.gate.check(holding.seat, holding.turn)
        with self._changed:
            if verdict is TapAnswer.ACCEPTED:
                self._spoken = Spoken(holding.seat, holding.turn, holding.hold, bytes(holding.pcm), answer)
            self.lift(button)
        return verdict, reason

    def drop(self, button: Hashable) -> None:
        """Nothing of this hold is judged (held too long); the button counts as held until it is up."""
        with self._changed:
            self._holding.pop(button, None)

    def lift(self, button: Hashable) -> None:
        """The button is up, or its phone is gone: nothing it held is judged."""
        with self._changed:
            self._pressed.pop(button, None)
            self._holding.pop(button, None)
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

    def held_so_far(self, seat: int) -> tuple[int, bytes] | None:
        """The hold open for ``seat``'s open turn, if any: which, and its audio so far."""
        turn = self.gate.turn_id
        with self._changed:
            holding = next((h for h in self._holding.values() if h.seat == seat and h.turn == turn), None)
            return None if holding is None else (holding.hold, bytes(holding.pcm))

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
    """Judges a held utterance as the laptop's microphone judges what it hears, with the same listener:
    :meth:`begin` a hold's speech, let it hear the audio as it comes, and :meth:`heard` it at the release."""

    listener: Listener
    strictness: Strictness = Strictness.NORMAL
    keep_audio: bool = False

    def begin(self, context: ListenContext) -> HeldSpeech:
        return HeldSpeech(self.listener, context)

    def heard(self, speech: HeldSpeech, pcm: bytes) -> Heard:
        utterance = speech.finish(pcm)
        grade = graded(utterance, speech.context, self.strictness)
        after_release_ms = (utterance.decided_at - utterance.audio_s) * 1000
        return Heard(grade, latency_ms=after_release_ms, audio=pcm if self.keep_audio else None, why=utterance.why)

    def __call__(self, pcm: bytes, context: ListenContext) -> Heard:
        """A whole hold heard at once."""
        return self.heard(self.begin(context), pcm)


def verdict_message(turn: str, heard: Heard) -> dict[str, Any]:
    """The answer to a released hold: the verdict, what was heard, why (for anything not taken)
    and the line due, as the table screen shows them."""
    grade = heard.grade
    return {
        "type": "heard",
        "turn": turn,
        "verdict": grade.verdict.value,
        "heard": grade.heard,
        "why": grade.feedback(),
        "line": grade.expected,
    }


@dataclass
class WithPhoneMics:
    """An input source for the human seats: what their phones held, beside the laptop's microphone
    (or the keys). While a button is held the inner source is not listened to, and the first pass
    hears the hold of the player on turn as it comes."""

    inner: InputSource
    mics: MicGate
    hearing: HeldHearing
    interrupt: Callable[[], bool] | None = None  # a phone's tap arrived (set by WithPhones)
    _following: tuple[int, HeldSpeech] | None = None  # the hold heard as it comes, and which

    def __post_init__(self) -> None:
        if isinstance(self.inner, Interruptible):
            self.inner.interrupt = self._stop_inner

    def next_input(self, request: TurnRequest) -> TurnInput:
        while True:
            spoken = self.mics.take(request.seat)
            if spoken is not None:
                heard = self.hearing.heard(self._speech(spoken.hold, request), spoken.pcm)
                self._following = None
                spoken.answer(verdict_message(spoken.turn, heard))
                return heard
            if self.mics.pressed():
                if self._tapped():
                    return Woken()
                self._follow(request)
                self.mics.wait(_POLL_S)
                continue
            given = self.inner.next_input(request)
            if not isinstance(given, Woken) or self._tapped():
                return given

    def _follow(self, request: TurnRequest) -> None:
        """The first pass takes what the player on turn has held so far."""
        so_far = self.mics.held_so_far(request.seat)
        if so_far is not None:
            hold, pcm = so_far
            self._speech(hold, request).hear(pcm)

    def _speech(self, hold: int, request: TurnRequest) -> HeldSpeech:
        if self._following is None or self._following[0] != hold:
            self._following = (hold, self.hearing.begin(request.context))
        return self._following[1]

    def _tapped(self) -> bool:
        return self.interrupt is not None and self.interrupt()

    def _stop_inner(self) -> bool:
        return self.mics.busy() or self._tapped()
