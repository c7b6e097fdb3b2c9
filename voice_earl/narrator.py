"""The narrator: announces the game aloud, with a short printed line for each announcement.

``say()`` prints the line at once and queues the spoken text; one worker thread renders each
text (``speech.render``) and plays it (``playback``), one after another. While audio plays,
``speaking_event`` is set and the ``on_speaking`` callbacks hear True, then False when it stops,
so the listener can mute the microphone (half-duplex). ``interrupt()`` cuts the current
announcement short and drops the queued ones. The verbosity decides what is spoken; every
line is printed. Without a sound device, or when speech cannot be synthesized, the narrator
prints one notice and goes on with printed lines only.

The builder functions make the announcements:

>>> turn("Ben", Rank.QUEEN, 2).text
'Ben: queens, second card'
>>> quartet("Di", Rank.SEVEN).text
"And there's the Earl of Coventry! Di leads"
>>> settlement("Ann", [("Ben", 3), ("Cy", 5)]).text
'Ann takes 8: Ben pays 3, Cy pays 5'
>>> standings([("Ann", 8), ("Ben", -3), ("Cy", 0)], after_deal=2).line
'Standings after deal 2: Ann 8 · Cy 0 · Ben -3'
"""

from __future__ import annotations

import enum
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from voice_earl import speech
from voice_earl.cards import Rank
from voice_earl.chants import EARL, ChantSet
from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.playback import AudioOutput, OutputUnavailable, open_output

log = logging.getLogger(__name__)

_CLOSE_TIMEOUT_S = 2.0
_ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth"}


class Verbosity(enum.IntEnum):
    """How much is spoken: QUIET only winners, settlements and errors; CHATTY every pass too."""

    QUIET = 0
    NORMAL = 1
    CHATTY = 2

    @classmethod
    def parse(cls, text: str) -> Verbosity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise UsageError(f"unknown verbosity {text!r}: use quiet, normal or chatty") from None


class Kind(enum.Enum):
    TURN = "turn"
    PASS = "pass"
    QUARTET = "quartet"
    WRONG = "wrong"
    UNCLEAR = "unclear"
    WINNER = "winner"
    SETTLEMENT = "settlement"
    STANDINGS = "standings"
    NOTICE = "notice"


@dataclass(frozen=True)
class Announcement:
    kind: Kind
    text: str  # spoken
    line: str  # printed
    min_verbosity: Verbosity  # spoken at this verbosity and above


# --- Builders ---------------------------------------------------------------------------------


def turn(player: str, rank: Rank | None, position: int) -> Announcement:
    """Whose turn and what is due: a lead (``rank`` None, position 1) or the nth card of ``rank``."""
    if rank is None or position == 1:
        return Announcement(Kind.TURN, f"{player}, your lead", f"{player} to lead", Verbosity.NORMAL)
    if position not in (2, 3, 4):
        raise ValueError(f"position must be 1-4, not {position}")
    return Announcement(
        Kind.TURN,
        f"{player}: {rank.plural.lower()}, {_ORDINALS[position]} card",
        f"{player}: {rank.plural}, card {position} of 4",
        Verbosity.NORMAL,
    )


def passed(player: str) -> Announcement:
    return Announcement(Kind.PASS, f"{player} passes", f"{player} passes", Verbosity.CHATTY)


def quartet(player: str, rank: Rank, chant: ChantSet = EARL) -> Announcement:
    """The fourth card completed ``rank``; its player leads again."""
    return Announcement(
        Kind.QUARTET,
        f"{chant.line(4, rank)}! {player} leads",
        f"{rank.plural} complete - {player} leads",
        Verbosity.NORMAL,
    )


def wrong_line(player: str, expected: str, heard: str = "", takes_back: bool = False) -> Announcement:
    """A formula heard but not the one due; ``takes_back`` when the card goes back (parlour)."""
    penalty = " Take the card back." if takes_back else ""
    heard_part = f'heard "{heard}"' if heard else "wrong line"
    return Announcement(
        Kind.WRONG,
        f"{player}, the line is: {expected}.{penalty}",
        f'{player}: {heard_part} - the line is "{expected}"{" (card back)" if takes_back else ""}',
        Verbosity.QUIET,
    )


def unclear(player: str, expected: str, takes_back: bool = False) -> Announcement:
    """Nothing recognizable was heard."""
    penalty = " Take the card back." if takes_back else ""
    return Announcement(
        Kind.UNCLEAR,
        f"Sorry {player}, I didn't catch that. Say: {expected}.{penalty}",
        f'{player}: not heard clearly - say "{expected}"{" (card back)" if takes_back else ""}',
        Verbosity.QUIET,
    )


def winner(player: str, deal: int | None = None) -> Announcement:
    what = f"deal {deal}" if deal is not None else "the deal"
    return Announcement(Kind.WINNER, f"{player} is out and wins {what}!", f"{player} wins {what}", Verbosity.QUIET)


def settlement(winner: str, payments: Sequence[tuple[str, int]]) -> Announcement:
    """What each opponent pays the winner: ``Ann takes 8: Ben pays 3, Cy pays 5``."""
    total = sum(amount for _, amount in payments)
    text = f"{winner} takes {total}: " + ", ".join(f"{name} pays {amount}" for name, amount in payments)
    return Announcement(Kind.SETTLEMENT, text, text, Verbosity.QUIET)


def standings(totals: Sequence[tuple[str, int]], after_deal: int | None = None, final: bool = False) -> Announcement:
    """Totals, highest first. Final standings name the places (1, 2, 2, 4 for ties)."""
    ordered = sorted(totals, key=lambda entry: -entry[1])
    if final:
        return _final_standings(ordered)
    heading = f"after deal {after_deal}" if after_deal is not None else "so far"
    return Announcement(
        Kind.STANDINGS,
        f"{heading.capitalize()}: " + ", ".join(f"{name} {_spoken_number(total)}" for name, total in ordered),
        f"Standings {heading}: " + " · ".join(f"{name} {total}" for name, total in ordered),
        Verbosity.NORMAL,
    )


def _final_standings(ordered: list[tuple[str, int]]) -> Announcement:
    ranked = [(1 + sum(other > total for _, other in ordered), name, total) for name, total in ordered]
    groups: dict[int, list[str]] = {}
    for place, name, _ in ranked:
        groups.setdefault(place, []).append(name)
    score = dict(ordered)
    spoken = " ".join(
        f"{_ordinal(place).capitalize()}, {' and '.join(names)} with {_spoken_number(score[names[0]])}."
        for place, names in groups.items()
    )
    printed = " · ".join(f"{place}. {name} {total}" for place, name, total in ranked)
    return Announcement(Kind.STANDINGS, f"Final standings. {spoken}", f"Final: {printed}", Verbosity.QUIET)


def notice(text: str, line: str | None = None, min_verbosity: Verbosity = Verbosity.NORMAL) -> Announcement:
    """Anything else the table should hear (a crowded table, a stuck rank, a taken-back play)."""
    return Announcement(Kind.NOTICE, text, text if line is None else line, min_verbosity)


def _spoken_number(value: int) -> str:
    return f"minus {-value}" if value < 0 else str(value)


def _ordinal(place: int) -> str:
    words = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
    return words[place - 1] if place <= len(words) else f"number {place}"


# --- The narrator -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Queued:
    announcement: Announcement
    cancel: threading.Event  # shared by everything queued before the next interrupt()


class Narrator:
    """Speaks announcements one at a time on a worker thread; prints each line at once."""

    def __init__(
        self,
        *,
        voice: str | None = None,
        rate: int | None = None,
        verbosity: Verbosity = Verbosity.NORMAL,
        speak: bool = True,
        printer: Callable[[str], None] = print,
        output: AudioOutput | None = None,
        device: int | str | None = None,
    ) -> None:
        """``output`` replaces the sound device (``device``: which one; ``None`` the default)."""
        speech.check_rate(rate)
        self.voice = voice
        self.rate = rate
        self.verbosity = verbosity
        self._printer = printer
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._pending = 0
        self._cancel = threading.Event()
        self._closed = False
        self._cli_noticed = False
        self._callbacks: list[Callable[[bool], None]] = []
        self._speaking = threading.Event()
        self._queue: queue.Queue[_Queued | None] = queue.Queue()
        self._owns_output = output is None
        self._output = self._open_output(output, device) if speak else None
        self._worker: threading.Thread | None = None
        if self._output is not None:
            self._worker = threading.Thread(target=self._run, name="narrator", daemon=True)
            self._worker.start()

    def _open_output(self, output: AudioOutput | None, device: int | str | None) -> AudioOutput | None:
        try:
            chosen = output if output is not None else open_output(device)
            speech.check_voice(self.voice)  # an unknown voice is the user's to fix: UnknownVoice propagates
        except (OutputUnavailable, speech.SpeechError) as error:
            self._notice(f"{error}: announcements are printed only")
            return None
        return chosen

    # -- the game's side --

    def say(self, announcement: Announcement) -> None:
        """Print the line now; queue the text to be spoken if the verbosity allows. Returns at once."""
        if announcement.line:
            self._printer(announcement.line)
        if not announcement.text or self.verbosity < announcement.min_verbosity:
            return
        with self._lock:
            if self._closed or self._output is None:
                return
            self._pending += 1
            self._queue.put(_Queued(announcement, self._cancel))

    def wait(self, timeout: float | None = None) -> bool:
        """Block until everything queued has been spoken (or dropped); False if ``timeout`` ran out."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def interrupt(self) -> None:
        """Stop speaking now and drop what is queued (a player spoke or pressed a key)."""
        with self._lock:
            self._cancel.set()
            self._cancel = threading.Event()

    @property
    def speaking(self) -> bool:
        """True exactly while audio is being played."""
        return self._speaking.is_set()

    @property
    def speaking_event(self) -> threading.Event:
        """Set while audio plays, clear otherwise (wait on it; do not set it)."""
        return self._speaking

    def on_speaking(self, callback: Callable[[bool], None]) -> None:
        """Call ``callback(True)`` when audio starts and ``callback(False)`` when it stops (worker thread)."""
        with self._lock:
            self._callbacks.append(callback)

    def close(self) -> None:
        """Stop speaking, drop the queue and end the worker. Later lines are printed only."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.interrupt()
        self._queue.put(None)
        if self._worker is not None:
            self._worker.join(_CLOSE_TIMEOUT_S)
            if self._worker.is_alive():
                log.warning("the narrator's worker did not stop within %.0f s", _CLOSE_TIMEOUT_S)
        if self._output is not None and self._owns_output:
            self._output.close()

    def __enter__(self) -> Narrator:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- the worker's side --

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            try:
                if not item.cancel.is_set() and self._output is not None:
                    self._speak(item, self._output)
            except (VoiceEarlError, OSError) as error:
                self._give_up_speaking(str(error))
            except Exception as error:  # the game goes on with printed lines, whatever went wrong
                log.exception("narrator failed to speak %r", item.announcement.text)
                self._give_up_speaking(f"speech failed ({type(error).__name__}: {error})")
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

    def _speak(self, item: _Queued, output: AudioOutput) -> None:
        audio = speech.render(item.announcement.text, self.voice, self.rate)
        self._notice_cli_fallback()
        if item.cancel.is_set():
            return
        self._set_speaking(True)
        try:
            output.play(audio, item.cancel)
        finally:
            self._set_speaking(False)

    def _set_speaking(self, speaking: bool) -> None:
        if speaking:
            self._speaking.set()
        else:
            self._speaking.clear()
        with self._lock:
            callbacks = list(self._callbacks)
        for callback in callbacks:
            try:
                callback(speaking)
            except Exception:
                log.exception("on_speaking callback failed")

    def _give_up_speaking(self, reason: str) -> None:
        with self._lock:
            if self._output is None:
                return
            self._output = None
            self._cancel.set()  # drop what is queued: it can no longer be spoken
        self._notice(f"{reason}: announcements are printed only from now on")

    def _notice_cli_fallback(self) -> None:
        if not self._cli_noticed and speech.active_backend() is speech.Backend.ESPEAK_CLI:
            self._cli_noticed = True
            self._notice("pyttsx3 could not render speech: using the espeak-ng command line")

    def _notice(self, message: str) -> None:
        log.warning("%s", message)
        self._printer(f"Notice: {message}")
