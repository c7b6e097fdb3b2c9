"""What a player does on a turn, as typed values, and the sources that produce them.

A :class:`TableSession` asks an :class:`InputSource` for each turn. Sources: the voice
listener (``voice_earl.table.voice_input``), the keyboard for Silent Earl
(:class:`LineCommands`, :class:`KeyPresses`), bots (:class:`BotSource`) and, in tests,
:class:`ScriptedInput`, which grades scripted transcripts for real.
"""

from __future__ import annotations

import enum
import queue
import random
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO, runtime_checkable

from voice_earl.game.bots import Strategy
from voice_earl.game.cards import Rank
from voice_earl.game.moves import Action, FormulaDue, Lead, Play, SeatView
from voice_earl.i18n import N_, _, rank_plural
from voice_earl.table.extra_keys import JoinCode, OutOfTurn, toggled_join_code
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import LineGrade, Strictness, grade_line


class Command(enum.Enum):
    PLAY = "play"
    PASS = "pass"
    LEAD = "lead"
    UNDO = "undo"
    REPEAT = "repeat"
    PAUSE = "pause"
    QUIT = "quit"
    NEXT = "next"  # goes on after a deal (line mode); at a turn it does nothing


@dataclass(frozen=True)
class KeyCommand:
    """A command from the keyboard (or a spoken command word)."""

    command: Command
    rank: Rank | None = None  # for LEAD
    private: bool = False  # tapped on the player's own phone: why it is refused is for that phone alone


@dataclass(frozen=True)
class Heard:
    """A formula heard and graded (``audio``: its 16 kHz mono PCM, kept only when asked; ``why``: the
    rule or veto that decided, as the log file and ``hear --json`` say it)."""

    grade: LineGrade
    latency_ms: float | None = None
    audio: bytes | None = field(default=None, repr=False, compare=False)
    why: str = field(default="", compare=False)

    def log_fields(self) -> dict[str, Any]:
        """The fields voice-driven games add to lead/play/pass records (game-log.md)."""
        grade = self.grade
        fields: dict[str, Any] = {"heard": grade.heard, "verdict": grade.verdict.value, "score": grade.score}
        if self.latency_ms is not None:
            fields["latency_ms"] = round(self.latency_ms, 1)
        return fields


@dataclass(frozen=True)
class Silence:
    """Nothing was said for ``seconds``."""

    seconds: float


@dataclass(frozen=True)
class BotMove:
    """A bot's chosen action, and what the listener heard when it recited (None if not listened to)."""

    action: Action
    heard: Heard | None = None


@dataclass(frozen=True)
class Woken:
    """The source stopped waiting because input arrived elsewhere (a phone's tap): ask again."""


TurnInput = KeyCommand | Heard | Silence | BotMove | Woken


@dataclass(frozen=True)
class TurnRequest:
    """Everything a source may use to produce a turn's input."""

    seat: int
    name: str
    due: FormulaDue
    context: ListenContext
    legal: tuple[Action, ...]
    view: SeatView
    move_number: int = 0  # moves applied so far in the series (bots seed their choice with it)
    reminded: bool = False
    paused: bool = False


class InputSource(Protocol):
    def next_input(self, request: TurnRequest) -> TurnInput: ...


@runtime_checkable
class Interruptible(Protocol):
    """A source that stops waiting, answering :class:`Woken`, as soon as ``interrupt()`` is true."""

    interrupt: Callable[[], bool] | None


_POLL_S = 0.02  # how often a waiting source looks at its interrupt


# ---------------------------------------------------------------------------- keyboard (Silent Earl)

# In English, as the screen's key help takes them (it translates); use _() to show them elsewhere.
# No key is both a move and a command: the rank keys lead, and quitting is x (or Esc), which no move uses.
KEY_HELP = N_("space pass · enter play · A 2-9 0/T J Q K lead that rank · u undo · r repeat · p pause · x quit")
LINE_HELP = N_("commands: play, pass, lead RANK (e.g. lead Q), undo, repeat, pause, quit")
OPEN_RANK = N_("the {ranks} are open: play one (enter) or pass (space)")  # a lead asked for where a rank is open
QUIT_QUESTION = N_("Quit? the series is saved (y/n)")
QUIT_BEFORE_PLAY = N_("Quit? nothing has been played yet (y/n)")  # a new series, before its first deal
SAY_PASS = N_("say “I pass”")  # how a player who holds none of the open rank passes (sources may say otherwise)
TAP_PASS = N_("tap Pass")  # the same, to a player who tapped on their phone
Show = Callable[[str], None]  # puts a line in front of the players (the screen's message line)


class PlayersQuit(Exception):
    """The players quit before the first deal (on the phones' code screens): the game does not begin."""


@dataclass(frozen=True)
class KeyHelp:
    """What the key bar says: on a turn, after a deal (the next one waits), and at the final standings."""

    turn: str
    next_deal: str = N_("any key: next deal · x quit")
    close: str = N_("any key: close")


SILENT_KEYS = KeyHelp(KEY_HELP)
LINE_KEYS = KeyHelp(LINE_HELP, N_("next: next deal"), N_("the game is over"))


def parse_command(text: str) -> KeyCommand:
    """A typed command line. Raises ``ValueError`` with a message that teaches.

    >>> parse_command("lead q")
    KeyCommand(command=<Command.LEAD: 'lead'>, rank=Rank.QUEEN, private=False)
    >>> parse_command("PASS").command
    <Command.PASS: 'pass'>
    """
    words = text.strip().lower().split()
    if not words:
        raise ValueError(_("an empty line: {help}").format(help=_(LINE_HELP)))
    try:
        command = Command(words[0])
    except ValueError:
        message = _("unknown command {command}: {help}")
        raise ValueError(message.format(command=repr(words[0]), help=_(LINE_HELP))) from None
    if command is Command.LEAD:
        if len(words) != 2:
            raise ValueError(_("say which rank to lead, e.g. 'lead Q' or 'lead 7'"))
        try:
            rank = Rank.parse(words[1])
        except ValueError:
            message = _("unknown rank {rank}: use A 2 3 4 5 6 7 8 9 10 J Q K")
            raise ValueError(message.format(rank=repr(words[1]))) from None
        return KeyCommand(command, rank)
    if len(words) > 1:
        raise ValueError(_("'{command}' takes no argument: {help}").format(command=command.value, help=_(LINE_HELP)))
    return KeyCommand(command)


_KEYS = {
    " ": Command.PASS,
    "\r": Command.PLAY,
    "\n": Command.PLAY,
    "u": Command.UNDO,
    "r": Command.REPEAT,
    "p": Command.PAUSE,
    "x": Command.QUIT,
    "\x1b": Command.QUIT,
}
_RANK_KEYS = {
    "a": Rank.ACE,
    "0": Rank.TEN,
    "t": Rank.TEN,
    "j": Rank.JACK,
    "q": Rank.QUEEN,
    "k": Rank.KING,
    **{str(n): Rank.parse(str(n)) for n in range(2, 10)},
}


def key_command(key: str, at_lead: bool) -> KeyCommand | None:
    """A single key press (Silent Earl at a terminal). Rank keys lead, and only at a lead.

    >>> key_command(" ", at_lead=False)
    KeyCommand(command=<Command.PASS: 'pass'>, rank=None, private=False)
    >>> key_command("q", at_lead=True).rank
    Rank.QUEEN
    >>> key_command("q", at_lead=False) is None  # never quits
    True
    >>> key_command("x", at_lead=True).command
    <Command.QUIT: 'quit'>
    """
    lowered = key.lower()
    if at_lead and lowered in _RANK_KEYS:
        return KeyCommand(Command.LEAD, _RANK_KEYS[lowered])
    command = _KEYS.get(lowered)
    return KeyCommand(command) if command is not None else None


def nothing_for(key: str, open_rank: Rank | None) -> str:
    """Why a key did nothing: a rank key where a rank is open says what to press instead."""
    if open_rank is not None and key.lower() in _RANK_KEYS:
        return _(OPEN_RANK).format(ranks=rank_plural(open_rank).lower())
    return _("that key does nothing here: {help}").format(help=_(KEY_HELP))


def _asks_for(key: str, *commands: Command) -> bool:
    """Whether a key, pressed anywhere but at a lead, gives one of ``commands``."""
    command = key_command(key, at_lead=False)
    return command is not None and command.command in commands


def _no_move(key: str) -> bool:
    """Whether a key asks for something that is no move at a turn: to quit or to pause."""
    return _asks_for(key, Command.QUIT, Command.PAUSE)


def kept_keys(stream: TextIO) -> list[str]:
    """The keys typed while others moved that are kept for the keyboard's turn: a move then is dropped, but a
    quit or a pause is no move, and a player who pressed it must not have to press it again."""
    from voice_earl.table.terminal import drop_waiting_keys

    return [key for key in drop_waiting_keys(stream) if _no_move(key)]


def quits(key: str) -> bool:
    """Whether a key asks to quit (x or Esc), wherever it is pressed: on a turn, after a deal, on a code screen."""
    return _asks_for(key, Command.QUIT)


def is_yes(key: str | None) -> bool:
    """Whether a key answers yes: y, or the table's language's y."""
    return key is not None and key.lower() in ("y", _("y"))


def confirm_quit(stream: TextIO, show: Show, question: str = QUIT_QUESTION, *, paused: bool = False) -> bool:
    """Ask "Quit? the series is saved (y/n)" and read one key: y quits (so does the end of input); no goes on,
    or leaves the game ``paused``, and the answer says which."""
    from voice_earl.table.terminal import read_key

    show(_(question))
    key = read_key(stream)
    if key is None or is_yes(key):
        return True
    show(_("Not quitting: still paused, press p to go on.") if paused else _("Not quitting: the game goes on."))
    return False


class LineCommands:
    """Silent Earl when stdin is not a terminal: one command per line, so games can be scripted.

    With an ``interrupt`` the lines are read on a thread of their own, so that waiting for the
    next line can stop when input arrives elsewhere (a line already read waits for the next turn).
    A script never waits after a deal: a ``next`` line is taken if it comes next, and any other
    line is the next deal's first command, so scripts run unattended with or without it.
    """

    pass_hint = N_("type pass")
    lead_hint = N_("type lead and the rank, e.g. lead Q")
    paused_hint = N_("Paused. Type pause to go on.")

    def __init__(self, lines: Iterable[str], complain: Callable[[str], None]) -> None:
        self._lines = iter(lines)
        self._complain = complain
        self.interrupt: Callable[[], bool] | None = None
        self._read: queue.SimpleQueue[str | None] | None = None
        self._peeked: str | None = None  # a line read after a deal that belongs to the next turn

    def next_input(self, request: TurnRequest) -> TurnInput:
        while True:
            line = self._next_command_line()
            if isinstance(line, Woken):
                return line
            if line is None:
                return KeyCommand(Command.QUIT)  # end of input
            try:
                return parse_command(line)
            except ValueError as error:
                self._complain(str(error))

    def wait_to_go_on(self, final: bool) -> bool:
        """After a deal: take a ``next`` line if it is the next one; leave any other line for the game (a
        ``quit`` quits at the next turn). At the end of the series nothing is read: the program ends."""
        if final:
            return True
        line = self._next_command_line()
        if isinstance(line, str) and line.strip().lower() != Command.NEXT.value:
            self._peeked = line
        return True

    def _next_command_line(self) -> str | Woken | None:
        """The next line that is not empty or a comment."""
        if self._peeked is not None:
            peeked, self._peeked = self._peeked, None
            return peeked
        while True:
            line = self._next_line()
            if not isinstance(line, str) or (line.strip() and not line.lstrip().startswith("#")):
                return line

    def _next_line(self) -> str | Woken | None:
        if self.interrupt is None:
            return next(self._lines, None)
        if self._read is None:
            self._read = queue.SimpleQueue()
            threading.Thread(target=self._reader, args=(self._read,), name="line-commands", daemon=True).start()
        while True:
            try:
                return self._read.get(timeout=_POLL_S)
            except queue.Empty:
                if self.interrupt():
                    return Woken()

    def _reader(self, read: queue.SimpleQueue[str | None]) -> None:
        for line in self._lines:
            read.put(line)
        read.put(None)


class KeyPresses:
    """Silent Earl at a terminal: single keys, read without waiting for Enter.

    ``show`` puts a line in front of the players (the table screen's message line, once it is open).
    """

    pass_hint = N_("press space to pass")
    lead_hint = N_("press its key (A 2-9 0/T J Q K)")

    def __init__(self, stream: TextIO, show: Callable[[str], None]) -> None:
        self._stream = stream
        self.show = show
        self.interrupt: Callable[[], bool] | None = None
        self.join_code: JoinCode | None = None
        self._out_of_turn = OutOfTurn()
        self._kept: list[str] = []  # typed while others moved, and no move: a quit or a pause

    def next_input(self, request: TurnRequest) -> TurnInput:
        if self._out_of_turn.others_moved(request.move_number):
            self._kept = kept_keys(self._stream)  # pressed during a bot's turn or a phone's tap
        while True:
            key = self._kept.pop(0) if self._kept else self._key()
            if isinstance(key, Woken):
                return key
            if key is None:
                return KeyCommand(Command.QUIT)
            if toggled_join_code(self.join_code, key):
                continue
            command = key_command(key, at_lead=request.due.position == 1 and request.due.rank is None)
            if command is not None and command.command is Command.QUIT:
                if confirm_quit(self._stream, self.show, paused=request.paused):
                    return command
                continue
            if command is not None:
                return command
            self.show(nothing_for(key, request.due.rank))

    def wait_to_go_on(self, final: bool) -> bool:
        """After a deal: any key goes on (or input arriving elsewhere), but x or Esc asks first, and yes
        stops the game (False). At the final standings any key closes."""
        while True:
            key = self._key()
            if key is None:
                return False
            if isinstance(key, str) and toggled_join_code(self.join_code, key):
                continue
            if final or isinstance(key, Woken) or not quits(key):
                return True
            if confirm_quit(self._stream, self.show):
                return False

    def _key(self) -> str | Woken | None:
        from voice_earl.table.terminal import cbreak, key_waiting, read_key, read_waiting_key

        if self.interrupt is None:
            return read_key(self._stream)
        with cbreak(self._stream):
            while not key_waiting(self._stream, _POLL_S * 5):
                if self.interrupt():
                    return Woken()
            return read_waiting_key(self._stream)


# ---------------------------------------------------------------------------- bots and scripts


@dataclass
class BotSource:
    """A bot seat: its strategy picks the action; ``recite`` (optional) says its line aloud and
    returns what the listener heard, so bots can go through the real voice pipeline.

    Each choice draws from a generator seeded with ``seed`` and the move number, so a series
    resumed after a crash makes the same choices as one never interrupted.
    """

    strategy: Strategy
    seed: int | str
    chant_errors: float = 0.0
    recite: Callable[[TurnRequest, Action, bool], Heard | None] | None = None

    def next_input(self, request: TurnRequest) -> TurnInput:
        rng = random.Random(f"{self.seed}:{request.move_number}")
        legal = request.legal
        action = legal[0] if len(legal) == 1 else self.strategy.choose(request.view, legal, rng)
        bungle = isinstance(action, Lead | Play) and rng.random() < self.chant_errors
        heard = self.recite(request, action, bungle) if self.recite is not None else None
        return BotMove(action, heard)


@dataclass
class ScriptedInput:
    """Scripted turns for tests and rehearsals: transcripts are graded for real, commands pass through.

    Each item is a transcript (``str``), ``None`` for silence, or a ready :data:`TurnInput`.
    """

    items: Iterable[str | TurnInput | None]
    strictness: Strictness = Strictness.NORMAL
    requests: list[TurnRequest] = field(default_factory=list)
    _iterator: Iterator[str | TurnInput | None] | None = None

    def next_input(self, request: TurnRequest) -> TurnInput:
        self.requests.append(request)
        if self._iterator is None:
            self._iterator = iter(self.items)
        item = next(self._iterator, KeyCommand(Command.QUIT))
        if item is None:
            return Silence(30.0)
        if isinstance(item, str):
            return Heard(grade_line(item, request.context, self.strictness), latency_ms=None)
        return item
