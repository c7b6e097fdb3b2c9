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
import functools
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.game.cards import Rank
from voice_earl.game.chants import EARL, ChantSet
from voice_earl.i18n import _, rank_plural
from voice_earl.table import speech, speech_synth
from voice_earl.table.playback import AudioOutput, OutputUnavailable, open_output
from voice_earl.words.context import PASS_SAYING

log = logging.getLogger(__name__)


_CLOSE_TIMEOUT_S = 2.0


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
    RECITAL = "recital"  # a bot saying its formula, in its own voice


@dataclass(frozen=True)
class Announcement:
    kind: Kind
    text: str  # spoken
    line: str  # printed
    min_verbosity: Verbosity  # spoken at this verbosity and above
    voice: str | None = None  # another voice than the narrator's (a bot reciting)


# --- Builders ---------------------------------------------------------------------------------


def turn(player: str, rank: Rank | None, position: int) -> Announcement:
    """Whose turn and what is due: a lead (``rank`` None, position 1) or the nth card of ``rank``."""
    if rank is None or position == 1:
        return Announcement(
            Kind.TURN,
            _("{player}, your lead").format(player=player),
            _("{player} to lead").format(player=player),
            Verbosity.NORMAL,
        )
    if position not in (2, 3, 4):
        raise ValueError(f"position must be 1-4, not {position}")
    spoken = {
        2: _("{player}: {ranks}, second card"),
        3: _("{player}: {ranks}, third card"),
        4: _("{player}: {ranks}, fourth card"),
    }[position]
    return Announcement(
        Kind.TURN,
        spoken.format(player=player, ranks=rank_plural(rank).lower()),
        _("{player}: {ranks}, card {position} of 4").format(player=player, ranks=rank_plural(rank), position=position),
        Verbosity.NORMAL,
    )


def due(rank: Rank | None, position: int) -> str:
    """What is due, without the player's name (the screen shows the name beside it).

    >>> due(Rank.QUEEN, 2), due(None, 1)
    ('Queens, card 2 of 4', 'to lead')
    """
    if rank is None or position == 1:
        return _("to lead")
    return _("{ranks}, card {position} of 4").format(ranks=rank_plural(rank), position=position)


def deal_begins(deal: int, dealer: str, sizes: Sequence[tuple[str, int]] | None = None) -> Announcement:
    """A new deal: who deals and, for a real pack, how many cards each player gets, in dealing order.

    >>> deal_begins(2, "Ben", [("Cy", 18), ("Ann", 17), ("Ben", 17)]).line
    'Deal 2. Ben deals: Cy 18, Ann 17, Ben 17.'
    """
    if sizes is None:
        return notice(_("Deal {deal}. {dealer} deals.").format(deal=deal, dealer=dealer))
    counts = ", ".join(f"{name} {count}" for name, count in sizes)
    text = _("Deal {deal}. {dealer} deals: {sizes}.").format(deal=deal, dealer=dealer, sizes=counts)
    return notice(text, min_verbosity=Verbosity.QUIET)


def passed(player: str) -> Announcement:
    text = _("{player} passes").format(player=player)
    return Announcement(Kind.PASS, text, text, Verbosity.CHATTY)


def quartet(player: str, rank: Rank, chant: ChantSet = EARL) -> Announcement:
    """The fourth card completed ``rank``; its player leads again."""
    return Announcement(
        Kind.QUARTET,
        _("{line}! {player} leads").format(line=chant.line(4, rank), player=player),
        _("{ranks} complete - {player} leads").format(ranks=rank_plural(rank), player=player),
        Verbosity.NORMAL,
    )


def wrong_line(player: str, expected: str, heard: str = "", takes_back: bool = False) -> Announcement:
    """A formula heard but not the one due; ``takes_back`` when the card goes back (parlour)."""
    text = _("{player}, the line is: {line}.").format(player=player, line=expected)
    heard_part = _('heard "{heard}"').format(heard=heard) if heard else _("wrong line")
    line = _('{player}: {heard} - the line is "{line}"').format(player=player, heard=heard_part, line=expected)
    return Announcement(Kind.WRONG, _with_penalty(text, takes_back), _with_card_back(line, takes_back), Verbosity.QUIET)


def unclear(player: str, expected: str, takes_back: bool = False, or_pass: bool = False) -> Announcement:
    """Nothing recognizable was heard (``or_pass``: from a player who may pass instead, on a real pack)."""
    if or_pass:
        text = _("Sorry {player}, I didn't catch that. Say: {line}, or: {saying}.")
        line = _('{player}: not heard clearly - say "{line}" or "{saying}"')
    else:
        text = _("Sorry {player}, I didn't catch that. Say: {line}.")
        line = _('{player}: not heard clearly - say "{line}"')
    said = {"player": player, "line": expected, "saying": PASS_SAYING}
    text, line = text.format(**said), line.format(**said)
    return Announcement(
        Kind.UNCLEAR, _with_penalty(text, takes_back), _with_card_back(line, takes_back), Verbosity.QUIET
    )


def _with_penalty(text: str, takes_back: bool) -> str:
    return text + " " + _("Take the card back.") if takes_back else text


def _with_card_back(line: str, takes_back: bool) -> str:
    return line + " " + _("(card back)") if takes_back else line


def winner(player: str, deal: int | None = None) -> Announcement:
    if deal is None:
        text = _("{player} is out and wins the deal!").format(player=player)
        line = _("{player} wins the deal").format(player=player)
    else:
        text = _("{player} is out and wins deal {deal}!").format(player=player, deal=deal)
        line = _("{player} wins deal {deal}").format(player=player, deal=deal)
    return Announcement(Kind.WINNER, text, line, Verbosity.QUIET)


def settlement(winner: str, payments: Sequence[tuple[str, int]]) -> Announcement:
    """What each opponent pays the winner: ``Ann takes 8: Ben pays 3, Cy pays 5``."""
    total = sum(amount for _name, amount in payments)
    pays = ", ".join(_("{player} pays {amount}").format(player=name, amount=amount) for name, amount in payments)
    text = _("{winner} takes {total}: {payments}").format(winner=winner, total=total, payments=pays)
    return Announcement(Kind.SETTLEMENT, text, text, Verbosity.QUIET)


def standings(totals: Sequence[tuple[str, int]], after_deal: int | None = None, final: bool = False) -> Announcement:
    """Totals, highest first. Final standings name the places (1, 2, 2, 4 for ties)."""
    ordered = sorted(totals, key=lambda entry: -entry[1])
    if final:
        return _final_standings(ordered)
    spoken = ", ".join(f"{name} {_spoken_number(total)}" for name, total in ordered)
    printed = " · ".join(f"{name} {total}" for name, total in ordered)
    if after_deal is None:
        text = _("So far: {standings}").format(standings=spoken)
        line = _("Standings so far: {standings}").format(standings=printed)
    else:
        text = _("After deal {deal}: {standings}").format(deal=after_deal, standings=spoken)
        line = _("Standings after deal {deal}: {standings}").format(deal=after_deal, standings=printed)
    return Announcement(Kind.STANDINGS, text, line, Verbosity.NORMAL)


def _final_standings(ordered: list[tuple[str, int]]) -> Announcement:
    ranked = [(1 + sum(other > total for _name, other in ordered), name, total) for name, total in ordered]
    groups: dict[int, list[str]] = {}
    for place, name, _total in ranked:
        groups.setdefault(place, []).append(name)
    score = dict(ordered)
    spoken = " ".join(
        _("{place}, {players} with {score}.").format(
            place=_ordinal(place).capitalize(),
            players=functools.reduce(lambda a, b: _("{first} and {second}").format(first=a, second=b), names),
            score=_spoken_number(score[names[0]]),
        )
        for place, names in groups.items()
    )
    printed = " · ".join(f"{place}. {name} {total}" for place, name, total in ranked)
    return Announcement(
        Kind.STANDINGS,
        _("Final standings. {standings}").format(standings=spoken),
        _("Final: {standings}").format(standings=printed),
        Verbosity.QUIET,
    )


def recital(player: str, line: str, voice: str | None) -> Announcement:
    """A bot's formula, spoken in the bot's own voice (practice)."""
    return Announcement(Kind.RECITAL, line, f"{player}: {line}", Verbosity.QUIET, voice)


def again(said: Sequence[Announcement]) -> Announcement | None:
    """What was said since the last move, once more (asked for with "repeat"); None when nothing was.

    The printed line leaves out whose turn it is, which the screen shows anyway, unless nothing else was said.

    >>> again([notice("Ben passes."), turn("Cy", Rank.TWO, 2)]).line
    'Again: Ben passes.'
    """
    lines = [announcement.line for announcement in said if announcement.line and announcement.kind is not Kind.TURN]
    lines = lines or [announcement.line for announcement in said if announcement.line]
    if not lines:
        return None
    text = " ".join(announcement.text.rstrip(".") + "." for announcement in said)
    return notice(text, _("Again: {said}").format(said=" · ".join(lines)), min_verbosity=Verbosity.QUIET)


def notice(text: str, line: str | None = None, min_verbosity: Verbosity = Verbosity.NORMAL) -> Announcement:
    """Anything else the table should hear (a crowded table, a stuck rank, a taken-back play)."""
    return Announcement(Kind.NOTICE, text, text if line is None else line, min_verbosity)


def _spoken_number(value: int) -> str:
    return _("minus {number}").format(number=-value) if value < 0 else str(value)


def _ordinal(place: int) -> str:
    words: tuple[str, ...] = (_("first"), _("second"), _("third"), _("fourth"), _("fifth"))
    words += (_("sixth"), _("seventh"), _("eighth"), _("ninth"), _("tenth"))
    return words[place - 1] if place <= len(words) else _("number {place}").format(place=place)


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
            # An unknown voice is the user's to fix, with a sound device or without: UnknownVoice propagates.
            speech.check_voice(self.voice)
            chosen = output if output is not None else open_output(device)
        except (OutputUnavailable, speech_synth.SpeechError) as error:
            self._notice(_("{problem}: announcements are printed only").format(problem=error))
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
                self._give_up_speaking(_("speech failed ({error})").format(error=f"{type(error).__name__}: {error}"))
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

    def _speak(self, item: _Queued, output: AudioOutput) -> None:
        audio = speech.render(item.announcement.text, item.announcement.voice or self.voice, self.rate)
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
        self._notice(_("{problem}: announcements are printed only from now on").format(problem=reason))

    def _notice_cli_fallback(self) -> None:
        if not self._cli_noticed and speech.active_backend() is speech_synth.Backend.ESPEAK_CLI:
            self._cli_noticed = True
            self._notice(_("pyttsx3 could not render speech: using the espeak-ng command line"))

    def _notice(self, message: str) -> None:
        log.warning("%s", message)
        self._printer(_("Notice: {message}").format(message=message))
