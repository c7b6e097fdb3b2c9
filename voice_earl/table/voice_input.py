"""The voice as a turn input: microphone -> listener -> verdict, with keys alongside.

:class:`VoiceInput` listens with the turn's context grammar, stops after a silence timeout
(the session reminds once, then waits), lets a key interrupt (undo, repeat, pause, quit, and
Silent Earl's space / Enter / rank keys as a fallback), and, when the microphone vanishes,
offers to retry or to go on in silent mode. Lines said outside a turn (the demo's bots, the drill)
are in :mod:`voice_earl.table.recitals`.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TextIO

from voice_earl.game.cards import RANKS
from voice_earl.i18n import N_, _
from voice_earl.listening.chain import open_listener as open_chain
from voice_earl.listening.recognizer import ListenEvent, SpeechSetAside, SpeechStarted
from voice_earl.listening.stream.audio import AudioChunk, DeviceLostError, Microphone, choose_input_device
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.utterance import Utterance, grade_utterance
from voice_earl.table.extra_keys import JoinCode, OutOfTurn, toggled_join_code
from voice_earl.table.session import SPOKEN_COMMANDS
from voice_earl.table.terminal import cbreak, key_waiting, read_key, read_waiting_key
from voice_earl.table.turns import (
    SAY_PASS,
    Command,
    Heard,
    KeyCommand,
    KeyHelp,
    LineCommands,
    Silence,
    TurnInput,
    TurnRequest,
    Woken,
    confirm_quit,
    kept_keys,
    key_command,
    quits,
)
from voice_earl.words.context import ListenContext
from voice_earl.words.text import normalise
from voice_earl.words.verdicts import LineGrade, Strictness, Verdict

log = logging.getLogger(__name__)

VOICE_KEYS = KeyHelp(
    N_("speak your line · u undo · r repeat · p pause · x quit · space/enter/rank keys work too"),
    N_("any key, or say “next”: next deal · x quit"),
    N_("any key, or say “next”: close"),
)
KNOCK_KEYS = KeyHelp(
    N_(
        "speak your line, or knock on the table to pass · u undo · r repeat · p pause · x quit · "
        "space/enter/rank keys work too"
    ),
    VOICE_KEYS.next_deal,
    VOICE_KEYS.close,
)
SAY_PASS_OR_KNOCK = N_("say “I pass”, or knock on the table")
# After a deal, once the narrator has finished: how long the deal-over view stays before the next deal.
GO_ON_PAUSE_S = 2.5


class Clock:
    """Monotonic time; tests pass a fake one."""

    def now(self) -> float:
        return time.monotonic()


@dataclass
class VoiceInput:
    """Humans at the table, by voice. ``keys`` is the terminal to poll for key presses (or None)."""

    listener: Listener
    chunks: Callable[[], Iterable[AudioChunk]]
    strictness: Strictness = Strictness.NORMAL
    silence_timeout_s: float = 20.0
    keys: TextIO | None = None
    clock: Clock | None = None
    on_lost: Callable[[str], bool] | None = None  # asked "retry?" when the microphone vanishes
    fallback: LineCommands | None = None  # silent mode after the microphone is gone
    on_key: Callable[[], None] | None = None  # a key was pressed (the narrator stops talking)
    barge_in: Callable[[], None] | None = None  # a player talks over the narrator (opt-in: no echo cancelling)
    keep_audio: bool = False  # hand the turn's audio on with what was heard
    show: Callable[[str], None] = print  # a line for the players (the table screen's message line)
    narrator_idle: Callable[[float], bool] | None = None  # waits up to the seconds given for the narrator to finish
    lost: bool = False
    interrupt: Callable[[], bool] | None = None  # input arrived elsewhere (a phone's tap): stop listening
    knock: bool = False  # the listener hears a knock on the table as a pass
    join_code: JoinCode | None = None  # with phones: a key shows the join page over the table
    out_of_turn: OutOfTurn = field(default_factory=OutOfTurn, repr=False)
    _kept: list[str] = field(default_factory=list, repr=False)  # a quit or a pause typed while others moved

    @property
    def pass_hint(self) -> str:
        """How a player who holds none of the open rank passes (the session says it)."""
        return SAY_PASS_OR_KNOCK if self.knock and not self.lost else SAY_PASS

    def next_input(self, request: TurnRequest) -> TurnInput:
        if self.lost and self.fallback is not None:
            self.fallback.interrupt = self.interrupt
            return self.fallback.next_input(request)
        if self.keys is not None and self.out_of_turn.others_moved(request.move_number):
            self._kept = kept_keys(self.keys)  # pressed during a bot's turn or a phone's tap
        while self._kept:
            command = key_command(self._kept.pop(0), at_lead=False)
            if command is not None and not self._quit_not_confirmed(command):
                return command
        if request.paused and self.keys is not None:
            return self._paused_key()
        while True:
            try:
                heard = self._listen(request)
                if self._quit_not_confirmed(heard):
                    continue
                return heard
            except DeviceLostError as error:
                if self.on_lost is not None and self.on_lost(str(error)):
                    continue
                self.lost = True
                if self.fallback is None:
                    raise
                return self.fallback.next_input(request)

    def _quit_not_confirmed(self, given: TurnInput, paused: bool = False) -> bool:
        """The quit key asks first; True when the players said no."""
        if not isinstance(given, KeyCommand) or given.command is not Command.QUIT or self.keys is None:
            return False
        return not confirm_quit(self.keys, self.show, paused=paused)

    def _paused_key(self) -> TurnInput:
        """Paused: the microphone is not listened to; only the pause key (or quit) goes on."""
        assert self.keys is not None
        while True:
            key = read_key(self.keys)
            if key is None:
                return KeyCommand(Command.QUIT)
            command = key_command(key, at_lead=False)
            if command is not None and command.command in (Command.PAUSE, Command.QUIT):
                if self._quit_not_confirmed(command, paused=True):
                    continue
                return command

    def wait_to_go_on(self, final: bool) -> bool:
        """After a deal: until the narrator has finished and a short pause has passed; a key, or
        "next" said in the pause, goes on at once, but x or Esc asks first, and yes stops the game
        (False). At the final standings: until a key or "next" (with no terminal, only the pause)."""
        while True:
            key = self._key_after_the_deal(final)
            if key and toggled_join_code(self.join_code, key):
                continue
            if final or self.keys is None or not key or not quits(key):
                return True
            if confirm_quit(self.keys, self.show):
                return False

    def _key_after_the_deal(self, final: bool) -> str | None:
        """The key that ended the wait after a deal; None when the pause passed, "next" was said or input
        arrived elsewhere."""
        while self.narrator_idle is not None and not self.narrator_idle(0.1):
            if self.keys is not None and key_waiting(self.keys):
                key = read_waiting_key(self.keys)
                if self.on_key is not None:
                    self.on_key()
                return key
            if self.interrupt is not None and self.interrupt():
                return None
        try:
            return self._hear_next(None if final and self.keys is not None else GO_ON_PAUSE_S)
        except DeviceLostError as error:
            log.warning("the microphone went away after the deal: %s", error)
            return None

    def _hear_next(self, seconds: float | None) -> str | None:
        """Listen until "next" is said, a key is pressed (returned) or ``seconds`` pass (None: no limit)."""
        clock = self.clock or Clock()
        deadline = None if seconds is None else clock.now() + seconds
        context = ListenContext(1, RANKS, commands=(Command.NEXT.value,))
        while True:
            ended: list[str] = []
            utterance = self.listener.listen(self._chunks_until(deadline, clock, ended), context)
            if ended:
                return ended[0] or None
            if normalise(utterance.text) == Command.NEXT.value:
                return None

    def _chunks_until(self, deadline: float | None, clock: Clock, ended: list[str]) -> Iterator[AudioChunk]:
        """The microphone's chunks until a key is pressed, input arrives elsewhere or the deadline passes
        (``ended`` then holds the key, or "")."""
        key = ""
        for chunk in self.chunks():
            if self.keys is not None and key_waiting(self.keys):
                key = read_waiting_key(self.keys) or ""
                break
            if self.interrupt is not None and self.interrupt():
                break
            if deadline is not None and clock.now() >= deadline:
                break
            yield chunk
        ended.append(key)  # also when the microphone's stream ends

    def _listen(self, request: TurnRequest) -> TurnInput:
        clock = self.clock or Clock()
        turn = _Turn(clock.now())
        talking_over = SpeechDetector(self.barge_in) if self.barge_in is not None else None

        def on_event(event: ListenEvent) -> None:
            if isinstance(event, SpeechStarted):
                turn.heard_speech = True
            elif isinstance(event, SpeechSetAside):
                # On the screen only: table talk is set aside too, and should not set the narrator off.
                self.show(
                    _("{player}: that was not heard as a line or a pass - say it again").format(player=request.name)
                )

        utterance = self.listener.listen(
            self._turn_chunks(turn, clock, talking_over), request.context, on_event=on_event
        )
        return self._turn_input(request, utterance, turn, clock)

    def _turn_chunks(self, turn: _Turn, clock: Clock, talking_over: SpeechDetector | None) -> Iterator[AudioChunk]:
        """The microphone's chunks of this turn, until a key is pressed, the turn is woken or nobody
        has spoken for ``silence_timeout_s`` (``turn`` keeps which)."""
        for chunk in self.chunks():
            if chunk.captured_at is not None and chunk.captured_at < turn.started:
                continue  # captured before this turn began
            if self.keys is not None and key_waiting(self.keys):
                key = read_waiting_key(self.keys)
                if key:
                    turn.pressed.append(key)
                    if self.on_key is not None:
                        self.on_key()
                    return
            if self.interrupt is not None and self.interrupt():
                turn.woken = True
                return
            if talking_over is not None and self.listener.is_muted_at(chunk.captured_at or time.monotonic()):
                talking_over.feed(chunk.pcm)
            if self.keep_audio:
                turn.kept.append(chunk.pcm)
            yield chunk
            if not turn.heard_speech and clock.now() - turn.started >= self.silence_timeout_s:
                return

    def _turn_input(self, request: TurnRequest, utterance: Utterance, turn: _Turn, clock: Clock) -> TurnInput:
        """What the turn's player did: woken, a key, silence, or what was heard and how it was graded."""
        if turn.woken:
            return Woken()
        if turn.pressed:
            if toggled_join_code(self.join_code, turn.pressed[0]):
                return Woken()  # the join code shown or hidden: the turn is listened to again
            at_lead = request.due.rank is None
            command = key_command(turn.pressed[0], at_lead)
            return command if command is not None else KeyCommand(Command.REPEAT)
        grade = graded(utterance, request.context, self.strictness)
        if not utterance.text and utterance.speech_start is None:
            return Silence(clock.now() - turn.started)
        audio = b"".join(turn.kept) if self.keep_audio else None
        return Heard(grade, latency_ms=utterance.latency_ms, audio=audio, why=utterance.why)


@dataclass
class _Turn:
    """What happened while a turn was listened to: the keys pressed, whether it was woken or speech
    began, and the audio kept (with --keep-audio)."""

    started: float
    pressed: list[str] = field(default_factory=list)
    woken: bool = False
    heard_speech: bool = False
    kept: list[bytes] = field(default_factory=list)


class SpeechDetector:
    """Calls ``on_speech`` once when it hears about a third of a second of speech (barge-in).

    It is fed only the audio the listener drops while the narrator speaks. Without echo
    cancelling, the narrator's own voice reaching the microphone would count too, so barge-in
    is for headphones or a speaker away from the microphone, and is off unless asked for.
    """

    def __init__(self, on_speech: Callable[[], None], min_speech_s: float = 0.3) -> None:
        from pocketsphinx import Vad

        self._vad = Vad(mode=3, sample_rate=16000)  # the strictest: only clear speech counts
        self._needed = max(1, round(min_speech_s / self._vad.frame_length))
        self._on_speech = on_speech
        self._pending = b""
        self._run = 0
        self.fired = False

    def feed(self, pcm: bytes) -> None:
        self._pending += pcm
        size = self._vad.frame_bytes
        while len(self._pending) >= size and not self.fired:
            frame, self._pending = self._pending[:size], self._pending[size:]
            self._run = self._run + 1 if self._vad.is_speech(frame) else 0
            if self._run >= self._needed:
                self.fired = True
                self._on_speech()


COMMAND_MAX_SPEECH_S = 1.2  # "undo" and "repeat" take well under a second; a formula takes longer


def graded(utterance: Utterance, context: ListenContext, strictness: Strictness) -> LineGrade:
    """The grade of what was heard. A command word over formula-length speech is unclear and carries
    no words: the session acts on the command word heard, whatever the verdict."""
    grade = grade_utterance(utterance, context, strictness)
    if implausible_command(utterance):
        return replace(grade, verdict=Verdict.UNCLEAR, heard="")
    return grade


def implausible_command(utterance: Utterance) -> bool:
    """A command word decoded from speech as long as a formula is a line forced onto the command
    (the grammar has no garbage path), not the command: never take back a move on that."""
    if utterance.text.strip() not in SPOKEN_COMMANDS:
        return False
    if utterance.speech_start is None or utterance.speech_end is None:
        return False
    return utterance.speech_end - utterance.speech_start > COMMAND_MAX_SPEECH_S


def ask_retry(stream: TextIO) -> Callable[[str], bool]:
    """At a terminal: 'r' retries the microphone, anything else goes on in silent mode."""

    def ask(problem: str) -> bool:
        print(f"\nvoice-earl: {problem}", file=sys.stderr)
        if not stream.isatty():
            return False
        print("Press r to retry the microphone, or s to go on in silent mode.", file=sys.stderr)
        with cbreak(stream):
            answer = stream.read(1).lower()
        return answer == "r"

    return ask


def open_listener(args: object) -> tuple[Listener, str]:
    """Load the first pass and the judge (once per run) as the command line asks, and say in short what
    listens (the whole description, with its models' paths, is in the log)."""
    chain = open_chain(
        getattr(args, "recognizer", None),
        getattr(args, "model", None),
        judge_model=getattr(args, "judge_model", None),
        base_judge=bool(getattr(args, "base_judge", False)),
        judge=not getattr(args, "no_judge", False),
        knock=bool(getattr(args, "knock", False)),
        verifier=bool(getattr(args, "judge_verifier", False)),
    )
    return chain.listener, chain.summary or chain.description


@contextlib.contextmanager
def open_voice_input(args: object, settings: object) -> Iterator[tuple[VoiceInput, KeyHelp]]:
    """The microphone and the listener for `play` and `practice`. Raises VoiceEarlError when
    either cannot start, so the caller can offer silent mode."""
    device = getattr(args, "device", None)
    choose_input_device(device)  # no microphone: say so before the recognizer takes its seconds to load
    print("voice-earl: " + _("loading the recognizer") + "…", file=sys.stderr, flush=True)
    listener, reason = open_listener(args)
    print("voice-earl: " + _("listening with {listener}").format(listener=reason), file=sys.stderr)
    microphone = Microphone(device)
    with microphone:
        keys = sys.stdin if sys.stdin.isatty() else None
        source = VoiceInput(
            listener=listener,
            chunks=microphone.chunks,
            strictness=Strictness(getattr(args, "strictness", None) or "normal"),
            silence_timeout_s=float(getattr(args, "remind_after", 20.0)),
            keep_audio=bool(getattr(args, "keep_audio", False)),
            keys=keys,
            on_lost=ask_retry(sys.stdin),
            fallback=LineCommands(sys.stdin, lambda text: print(text, file=sys.stderr)),
            knock=listener.knocks is not None,
        )
        help_ = KNOCK_KEYS if source.knock else VOICE_KEYS
        if keys is not None:
            with cbreak(keys):
                yield source, help_
        else:
            yield source, help_


def mute_while_speaking(listener: Listener) -> Callable[[bool], None]:
    """A narrator callback: the microphone is muted while the narrator speaks (half-duplex)."""
    stack = contextlib.ExitStack()

    def on_speaking(speaking: bool) -> None:
        if speaking:
            stack.enter_context(listener.muted())
        else:
            stack.close()

    return on_speaking
