"""Running `play` and `practice`: choose the inputs, open the table, offer silent mode when
the voice cannot start."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.game.moves import Action, Lead, Play
from voice_earl.game.rules import DeckMode
from voice_earl.i18n import _, current_language
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import StoreCorrupt
from voice_earl.table.journal import Journal, resume_journal, resume_point, start_journal
from voice_earl.table.narrator import Narrator, Verbosity, narrator_voice_for, recital
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Listener, Move, SeatKind, TableSettings
from voice_earl.table.table_app import NarratorOptions, keyboard_input, open_table
from voice_earl.table.turns import InputSource, TurnRequest

if TYPE_CHECKING:
    from voice_earl.table.phones.at_table import PhonesAtTable

log = logging.getLogger(__name__)


def narrator_options(args: argparse.Namespace) -> NarratorOptions:
    speak = not args.no_voice
    return NarratorOptions(
        speak=speak,
        # Without a voice chosen, the narrator speaks the table's language when espeak-ng can.
        voice=args.voice or (narrator_voice_for(current_language()) if speak else None),
        rate=args.rate,
        verbosity=Verbosity.parse(args.verbosity or "normal"),
    )


def _complain(text: str) -> None:
    print(text, file=sys.stderr)


def human_input(
    args: argparse.Namespace, settings: TableSettings, stack: contextlib.ExitStack[bool | None]
) -> tuple[InputSource, str, bool]:
    """The humans' input source, its key help, and whether the game is silent.

    When no microphone or recognizer can start, offer Silent Earl instead of failing.
    """
    if not args.silent:
        try:
            from voice_earl.table.voice_input import open_voice_input

            voice, voice_keys = stack.enter_context(open_voice_input(args, settings))
            return voice, voice_keys, False
        except VoiceEarlError as error:
            if not offer_silent(str(error)):
                raise
    source, keys = keyboard_input(sys.stdin, _complain)
    return source, keys, True


class BotRecital:
    """Bots say their formulas aloud, each in a voice of its own, different from the narrator's."""

    def __init__(self, settings: TableSettings, narrator_voice: str | None = None) -> None:
        from voice_earl.table.speech import bot_voices

        self.settings = settings
        self.narrator: Narrator | None = None
        self._voices = bot_voices(len(settings.seats), exclude=narrator_voice)

    def __call__(self, request: TurnRequest, action: Action, bungle: bool) -> None:
        if self.narrator is None or self.settings.profile.silent or not isinstance(action, Lead | Play):
            return None
        rank = action.rank if isinstance(action, Lead) else request.due.rank
        if rank is None:
            return None
        line = self.settings.chant.line(request.due.position, rank)
        voice = self._voices[request.seat % len(self._voices)]
        self.narrator.say(recital(request.name, line, voice))
        return None


def _couple_voice_and_narrator(source: InputSource, narrator: Narrator, barge_in: bool) -> None:
    """Half-duplex: the microphone is muted while the narrator speaks; a key (and, with ``barge_in``,
    a player talking over it) cuts the narrator short."""
    from voice_earl.table.voice_input import VoiceInput, mute_while_speaking

    if isinstance(source, VoiceInput):
        narrator.on_speaking(mute_while_speaking(source.listener))
        source.on_key = narrator.interrupt
        if barge_in:
            source.barge_in = narrator.interrupt


def offer_silent(problem: str) -> bool:
    """Ask (at a terminal) whether to play Silent Earl instead; elsewhere say so and go on."""
    print(f"voice-earl: {problem}", file=sys.stderr)
    if not sys.stdin.isatty():
        print("voice-earl: " + _("playing Silent Earl instead (one command per line: play, pass, lead Q, undo, quit)"),
              file=sys.stderr)
        return True
    answer = input(_("Play Silent Earl instead, with the keyboard? [Y/n] ")).strip().lower()
    return answer in ("", "y", "yes", _("y"), _("yes"))


def open_store(keep_audio: bool = False) -> Store:
    """The database, for journalling. A damaged file is moved aside (with a message) and a new one begun."""
    try:
        return Store.open(keep_audio=keep_audio)
    except StoreCorrupt as error:
        print(f"voice-earl: {error}", file=sys.stderr)
        return Store.open(keep_audio=keep_audio)


def open_phones(args: argparse.Namespace, store: Store, series_id: int | None, settings: TableSettings,
                stack: contextlib.ExitStack[bool | None]) -> PhonesAtTable | None:
    """With ``--phones`` (or resuming a series that had them): the players' phones, served while the game runs."""
    if not getattr(args, "phones", False) and (series_id is None or store.phones(series_id) is None):
        return None
    try:
        from voice_earl.table.phones.at_table import phones_at_table
    except ImportError as error:
        raise UsageError(f"--phones needs the phones extra ({error.name or error} is missing): "
                         "pip install 'voice-earl[phones]', or run scripts/setup.sh") from None
    return stack.enter_context(phones_at_table(args, store, series_id, settings))


def run_table_mode(args: argparse.Namespace, settings: TableSettings | None, mode: str) -> int:
    """Play or practice: humans by voice (or keys), bots by strategy. ``settings`` None: resume."""
    from voice_earl.game.bots import strategy_by_name
    from voice_earl.table.turns import BotSource

    with contextlib.ExitStack() as stack:
        store = stack.enter_context(open_store(keep_audio=args.keep_audio))
        moves: list[Move] = []
        records: list[dict[str, Any]] = []
        series_id: int | None = None
        if settings is None:
            series_id, settings, moves, records = resume_point(store)
            resuming = _("Resuming series {series}: {players}, {moves} moves in.")
            print(resuming.format(series=series_id, players=", ".join(settings.names), moves=len(moves)),
                  file=sys.stderr)
        human, keys, silent = human_input(args, settings, stack)
        spoken = human  # the voice, before the phones' taps join it
        phones = open_phones(args, store, series_id, settings, stack)
        if phones is not None:
            human = phones.beside(human)
        if silent and not settings.profile.silent:
            settings = dataclasses.replace(settings, profile=settings.profile.with_changes(silent=True))
        strategy = getattr(args, "strategy", "most")
        reciter = BotRecital(settings, args.voice)
        inputs: Mapping[int, InputSource] = {
            seat: (BotSource(strategy_by_name(strategy), f"bots:{settings.seed}", recite=reciter)
                   if s.kind is SeatKind.BOT else human)
            for seat, s in enumerate(settings.seats)
        }
        open_hands = settings.profile.open_hands and settings.deck is DeckMode.VIRTUAL
        humans = {seat for seat, s in enumerate(settings.seats) if s.kind is SeatKind.HUMAN}

        def show_hands(seat: int) -> bool:
            # Practice shows the single human their own hand; open hands show everyone's.
            return open_hands or (mode == "practice" and seat in humans and len(humans) == 1)

        journal_box: list[Journal] = []

        def journal(session: TableSession) -> list[Listener]:
            if series_id is None:
                journal_box.append(start_journal(store, session, mode))
            else:
                journal_box.append(resume_journal(store, series_id, session, records, mode))
            if phones is None:
                return [journal_box[0]]
            return [journal_box[0], phones.follow(session, journal_box[0].series_id)]

        with open_table(settings, inputs, narration=narrator_options(args), show_hands=show_hands, keys=keys,
                        moves=moves, extra_listeners=journal) as table:
            _couple_voice_and_narrator(spoken, table.narrator, bool(getattr(args, "barge_in", False)))
            reciter.narrator = table.narrator
            if settings.profile.is_crowded(len(settings.seats)):
                crowded = _("{count} players: a crowded table, but it works.")
                table.view.narrate(crowded.format(count=len(settings.seats)))
            ended = table.run()
    log.info("%s ended: %s", mode, "finished" if ended.finished else "stopped")
    return 0
