"""Running `play` and `practice`: choose the inputs, open the table, offer silent mode when
the voice cannot start."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from voice_earl.errors import UsageError, VoiceEarlError, tell
from voice_earl.game.cards import Rank
from voice_earl.game.moves import Action, Lead, Pass, Play
from voice_earl.game.rules import DeckMode
from voice_earl.i18n import _, current_language, rank_plural
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_values import Mode
from voice_earl.paths import pip_install
from voice_earl.table import narrator as say
from voice_earl.table.extra_keys import JOIN_HELP
from voice_earl.table.journal import GoOnUnsaved, Journal, resume_journal, start_journal
from voice_earl.table.narrator import Narrator, Verbosity, recital
from voice_earl.table.saved_series import SavedSeries, SeriesSetup, remember_settings, resume_command, with_silent
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Listener, Move, SeatKind, TableSettings
from voice_earl.table.speech import narrator_voice_for
from voice_earl.table.table_app import NarratorOptions, Table, keyboard_input, open_table
from voice_earl.table.terminal import cbreak
from voice_earl.table.turns import (
    InputSource,
    KeyHelp,
    KeyPresses,
    LineCommands,
    PlayersQuit,
    TurnRequest,
    is_yes,
)
from voice_earl.wrapping import print_wrapped

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
    print_wrapped(text, sys.stderr)  # between words, never inside one


def human_input(
    args: argparse.Namespace, settings: TableSettings, stack: contextlib.ExitStack[bool | None]
) -> tuple[InputSource, KeyHelp, bool]:
    """The humans' input source, its key help, and whether the game is silent.

    When no microphone or recognizer can start, offer Silent Earl instead of failing.
    """
    if not args.silent:
        try:
            from voice_earl.table.voice_input import open_voice_input

            voice, voice_keys = stack.enter_context(open_voice_input(args, settings))
            return voice, voice_keys, False
        except VoiceEarlError as error:
            if getattr(args, "phone_mics", False):
                return _phones_listen(error, stack)
            if not offer_silent(str(error)):
                raise VoiceEarlError(_("stopped: without a microphone, play Silent Earl (--silent)")) from None
    source, keys = keyboard_input(sys.stdin, _complain)
    if isinstance(source, KeyPresses):
        # Keys stay unechoed and unbuffered for the whole game, so that none is drawn over the screen.
        stack.enter_context(cbreak(sys.stdin))
    return source, keys, True


def _phones_listen(
    problem: VoiceEarlError, stack: contextlib.ExitStack[bool | None]
) -> tuple[InputSource, KeyHelp, bool]:
    """The laptop cannot listen, but the phones can: the laptop takes keys, and the game is not silent (so
    --silent, refused beside --phone-mics, is not offered)."""
    from voice_earl.listening.stream.audio import other_way_on

    print(f"voice-earl: {other_way_on(str(problem))}", file=sys.stderr)
    print("voice-earl: " + _("the players speak into their phones; the laptop takes keys"), file=sys.stderr)
    source, keys = keyboard_input(sys.stdin, _complain)
    if isinstance(source, KeyPresses):
        stack.enter_context(cbreak(sys.stdin))
    return source, keys, False


class BotRecital:
    """Bots say their formulas aloud, and "pass", each in a voice of its own, different from the narrator's.

    In Silent Earl nobody recites: the narrator says what the bot did instead ("Ben leads Queens").
    """

    def __init__(self, settings: TableSettings, narrator_voice: str | None = None) -> None:
        from voice_earl.table.speech import bot_voices

        self.settings = settings
        self.narrator: Narrator | None = None
        self._voices = bot_voices(len(settings.seats), exclude=narrator_voice)

    def __call__(self, request: TurnRequest, action: Action, bungle: bool) -> None:
        if self.narrator is None:
            return None
        rank = action.rank if isinstance(action, Lead) else request.due.rank
        if self.settings.profile.silent:
            self.narrator.say(say.notice(_bot_move(request.name, action, rank)))
            return None
        if isinstance(action, Pass):
            line = _("pass")
        elif isinstance(action, Lead | Play) and rank is not None:
            line = self.settings.chant.line(request.due.position, rank)
        else:
            return None
        voice = self._voices[request.seat % len(self._voices)]
        self.narrator.say(recital(request.name, line, voice))
        return None


def _bot_move(name: str, action: Action, rank: Rank | None) -> str:
    """A bot's move in words, for Silent Earl: "Ben leads Queens", "Ben plays Queens", "Ben passes"."""
    if isinstance(action, Lead | Play) and rank is not None:
        text = _("{player} leads {ranks}") if isinstance(action, Lead) else _("{player} plays {ranks}")
        return text.format(player=name, ranks=rank_plural(rank))
    return _("{player} passes").format(player=name)


def _couple_to_table(source: InputSource, table: Table, barge_in: bool, phones: PhonesAtTable | None) -> None:
    """The keys' questions and complaints go on the screen, and with phones a key shows their join code. With
    a voice: half-duplex (the microphone is muted while the narrator speaks), a key (and, with ``barge_in``, a
    player talking over it) cuts the narrator short, and after a deal the game waits for the narrator."""
    from voice_earl.table.voice_input import VoiceInput, mute_while_speaking

    keys = isinstance(source, KeyPresses) or (isinstance(source, VoiceInput) and source.keys is not None)
    if phones is not None and keys and isinstance(source, KeyPresses | VoiceInput):
        source.join_code = phones.join_code(table.screen)
        table.view.more_keys = (JOIN_HELP,)
    if isinstance(source, KeyPresses):
        source.show = table.view.narrate
    if isinstance(source, VoiceInput):
        narrator = table.narrator
        source.show = table.view.narrate
        source.narrator_idle = narrator.wait
        narrator.on_speaking(mute_while_speaking(source.listener))
        source.on_key = narrator.interrupt
        if barge_in:
            source.barge_in = narrator.interrupt


def _seat_inputs(
    settings: TableSettings, strategy: str | None, human: InputSource, reciter: BotRecital
) -> Mapping[int, InputSource]:
    """Who makes each seat's moves: the humans' input, or a bot of the series' strategy."""
    from voice_earl.game.bots import strategy_by_name
    from voice_earl.table.turns import BotSource

    return {
        seat: (
            BotSource(strategy_by_name(strategy or "most"), f"bots:{settings.seed}", recite=reciter)
            if s.kind is SeatKind.BOT
            else human
        )
        for seat, s in enumerate(settings.seats)
    }


def _before_the_first_deal(table: Table, settings: TableSettings, hands_seen: bool) -> None:
    """What the table is told as it opens: that it is crowded, or that a virtual deck's hands are seen nowhere."""
    if settings.profile.is_crowded(len(settings.seats)):
        crowded = _("{count} players: a crowded table, but it works.")
        table.view.narrate(crowded.format(count=len(settings.seats)))
    if settings.deck is DeckMode.VIRTUAL and not hands_seen:
        _warn_hands_unseen(table)


def _warn_hands_unseen(table: Table) -> None:
    """A virtual deck whose hands nobody sees: say so, and how to play it."""
    table.narrator.say(say.notice(_("Nobody can see their own cards: see the screen."), line=""))
    table.screen.print_line(
        _(
            "Nobody can see their own cards: this screen shows no hands. For private hands play with --phones; "
            "or show every hand here with --open-hands, or deal a real pack with --deck physical."
        )
    )


def offer_silent(problem: str) -> bool:
    """Ask (at a terminal) whether to play Silent Earl instead; elsewhere say so and go on."""
    from voice_earl.listening.stream.audio import other_way_on

    print(f"voice-earl: {other_way_on(problem)}", file=sys.stderr)  # the question offers it, with no command
    if not sys.stdin.isatty():
        print(
            "voice-earl: " + _("playing Silent Earl instead (one command per line: play, pass, lead Q, undo, quit)"),
            file=sys.stderr,
        )
        return True
    return ask_yes(_("Play Silent Earl instead, with the keyboard? [Y/n] "))


def ask_yes(question: str) -> bool:
    """Ask at the terminal; Enter or yes says yes, anything else (the end of input too) no."""
    try:
        answer = input(question).strip().lower()
    except EOFError:
        print(file=sys.stderr)
        return False
    return answer in ("", "y", "yes", _("y"), _("yes"))


def open_store(keep_audio: bool = False) -> Store:
    """The database, for journalling. A damaged file is moved aside and a new one rebuilt, in one line."""
    return Store.open(keep_audio=keep_audio, told=tell)


def open_phones(
    args: argparse.Namespace,
    store: Store,
    series_id: int | None,
    settings: TableSettings,
    stack: contextlib.ExitStack[bool | None],
    laptop_listens: bool = True,
) -> PhonesAtTable | None:
    """With ``--phones`` (or resuming a series that had them): the players' phones, served while the game runs.

    A resumed series' phones record that is damaged is refused, not guessed at: ``--phones`` gives the
    phones new addresses instead. ``laptop_listens``: whether the laptop's microphone hears the table."""
    wanted = bool(getattr(args, "phones", False))
    kept = None
    if series_id is not None:
        from voice_earl.table.phones.tokens import DamagedPhones, kept_tokens

        try:
            kept = kept_tokens(store, series_id, settings.names)
        except DamagedPhones as error:
            if not wanted:
                resume = f"{resume_command(Mode.PLAY, series_id)} --phones"
                raise VoiceEarlError(
                    _("{problem}; it was left as it is. `{command}` serves the phones at new addresses").format(
                        problem=error, command=resume
                    )
                ) from None
            _complain("voice-earl: " + _("{problem}: the phones get new addresses").format(problem=error))
    if not wanted and kept is None:
        return None
    try:
        from voice_earl.table.phones.at_table import phones_at_table
    except ImportError as error:
        raise UsageError(
            f"--phones needs the phones extra ({error.name or error} is missing): "
            f"{pip_install('voice-earl[phones]')}, or run scripts/setup.sh"
        ) from None
    return stack.enter_context(phones_at_table(args, store, series_id, settings, kept, laptop_listens))


def _kept_mics(store: Store, series_id: int) -> bool:
    try:
        from voice_earl.table.phones.at_table import kept_mics
    except ImportError:  # no phones extra: the series is resumed without them, as open_phones says
        return False
    return kept_mics(store, series_id)


def _go_on_unsaved(table_box: list[Table], phones: PhonesAtTable | None) -> GoOnUnsaved:
    """The players' choice when saving fails (the phones told that the game waits meanwhile)."""
    go_on = _ask_to_go_on_unsaved(table_box)
    return go_on if phones is None else phones.asking(go_on)


def run_table_mode(args: argparse.Namespace, store: Store, setup: SeriesSetup, saved: SavedSeries | None = None) -> int:
    """Play or practice: humans by voice (or keys), bots by strategy; ``saved``: the series resumed."""
    with contextlib.ExitStack() as stack:
        settings = setup.table
        moves: list[Move] = saved.moves if saved is not None else []
        if saved is not None and not getattr(args, "phone_mics", False) and _kept_mics(store, saved.id):
            args.phone_mics = True  # the same addresses, served the same way
        human, keys, silent = human_input(args, settings, stack)
        spoken = human  # the voice, before the phones' taps join it
        listens = not silent and not isinstance(spoken, KeyPresses | LineCommands)  # not the keys alone
        try:
            phones = open_phones(args, store, None if saved is None else saved.id, settings, stack, listens)
        except PlayersQuit:
            _complain("voice-earl: " + _quit_before_play(setup.mode, saved))
            return 0
        if phones is not None:
            human = phones.beside(human)
        if silent and not settings.profile.silent:
            setup = _go_silent(store, setup, saved)
            settings = setup.table
        reciter = BotRecital(settings, args.voice)
        inputs = _seat_inputs(settings, setup.strategy, human, reciter)
        open_hands = settings.profile.open_hands and settings.deck is DeckMode.VIRTUAL
        humans = {seat for seat, s in enumerate(settings.seats) if s.kind is SeatKind.HUMAN}
        practice = setup.mode is Mode.PRACTICE

        def show_hands(seat: int) -> bool:
            # Practice shows the single human their own hand; open hands show everyone's.
            return open_hands or (practice and seat in humans and len(humans) == 1)

        journal_box: list[Journal] = []
        table_box: list[Table] = []
        go_on = _go_on_unsaved(table_box, phones)

        def journal(session: TableSession) -> list[Listener]:
            if saved is None:
                journal_box.append(start_journal(store, session, setup, go_on))
            else:
                journal_box.append(resume_journal(store, saved.id, session, saved.records, setup.mode, go_on))
            if phones is None:
                return [journal_box[0]]
            journal = journal_box[0]
            return [journal, phones.follow(session, journal.series_id, resume_command(journal.mode, journal.series_id))]

        hold = getattr(spoken, "wait_to_go_on", None)  # after a deal, the keys or the voice go on
        try:
            with open_table(
                settings,
                inputs,
                narration=narrator_options(args),
                show_hands=show_hands,
                keys=keys,
                hold=hold,
                moves=moves,
                extra_listeners=journal,
                saved=lambda: all(map(_all_saved, journal_box)),
            ) as table:
                table_box.append(table)
                _couple_to_table(spoken, table, bool(getattr(args, "barge_in", False)), phones)
                reciter.narrator = table.narrator
                _before_the_first_deal(table, settings, phones is not None or any(map(show_hands, humans)))
                ended = table.run()
        except KeyboardInterrupt:
            if not journal_box or journal_box[0].session.series.over or _saving_report(journal_box[0]):
                raise  # nothing to keep yet, nothing left to play, or what was not saved has been said
            print(file=sys.stderr)
            _complain("voice-earl: " + _("Stopped. {saved}").format(saved=_saved(journal_box[0])))
            return 130
    log.info("%s ended: %s", setup.mode.value, "finished" if ended.finished else "stopped")
    code = _saving_report(journal_box[0])
    if code == 0 and not ended.finished:
        _complain("voice-earl: " + _saved(journal_box[0]))
    return code


def _quit_before_play(mode: Mode, saved: SavedSeries | None) -> str:
    """The players quit on the phones' code screens: a resumed series is as it was, a new one never began."""
    if saved is None:
        return _("Stopped before the first deal: nothing was played.")
    return _saved_as(mode, saved.id)


def _saved(journal: Journal) -> str:
    return _saved_as(journal.mode, journal.series_id)


def _saved_as(mode: Mode, series_id: int) -> str:
    """That a stopped series is saved, and the command that goes on with it."""
    command = resume_command(mode, series_id)
    return _("The series is saved: {command} goes on with it.").format(command=command)


def _go_silent(store: Store, setup: SeriesSetup, saved: SavedSeries | None) -> SeriesSetup:
    """Silent Earl instead of voice; for a resumed series only if the moves so far replay the same."""
    silent = dataclasses.replace(setup.table, profile=setup.table.profile.with_changes(silent=True))
    if saved is None:
        return dataclasses.replace(setup, table=silent)
    switched = with_silent(saved, setup)
    if switched is None:
        raise VoiceEarlError(
            _(
                "Silent Earl would change the rules series {series} has been played by (a bungled"
                " chant was forfeited): resume it by voice (voice-earl doctor checks the microphone)"
            ).format(series=saved.id)
        )
    remember_settings(store, saved.id, switched)
    return switched


def _ask_to_go_on_unsaved(table_box: list[Table]) -> GoOnUnsaved:
    """At a terminal, the players choose with a key; elsewhere the game stops (the safe choice)."""

    def ask(problem: str) -> bool:
        show = table_box[0].view.narrate if table_box else _complain
        if not sys.stdin.isatty():
            show(problem)
            return False
        question = _("Go on without saving? {yes}: go on, any other key: stop here (the series so far is kept)")
        show(f"{problem} {question.format(yes=_('y'))}")  # one notice: the screen shows the latest
        from voice_earl.table.terminal import read_key

        return is_yes(read_key(sys.stdin))

    return ask


def _all_saved(journal: Journal) -> bool:
    return journal.failure is None and not journal.unsaved


def _saving_report(journal: Journal) -> int:
    """0 when everything is saved; otherwise say what was not, and how to go on, and return 1. A game log that
    could not be written beside the database is said too: the database holds the series, but a damaged
    database is rebuilt from those files."""
    if (problem := journal.log_file.problem) is not None:
        text = _(
            "the game log could not be written ({problem}): the database holds the series, but should it be"
            " damaged, this series could not be rebuilt from the log"
        )
        _complain("voice-earl: " + text.format(problem=problem))
    report = journal.report()
    if report is None:
        return 0
    _complain(report)
    return 1
