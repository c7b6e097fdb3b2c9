"""The table session: one object that drives the engine, the inputs and the presenters.

For each turn it announces, asks the seat's input source (voice, keyboard, bot or script),
grades what came back, applies a move or asks again, and reports everything as typed
:data:`TableEvent` values to its listeners (narrator, screen, game log, journal). The engine
stays pure; the session holds the moves, and rebuilds the series from them for undo and resume.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Mapping, Sequence

from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.engine import Deal
from voice_earl.game.events import Event, Led, Passed, Played, Settled, Won
from voice_earl.game.gamelog import Record, to_record
from voice_earl.game.moves import Action, FormulaDue, IllegalAction, Lead, Pass, Play
from voice_earl.game.rules import DeckMode, Scoring
from voice_earl.game.series import Series, competition_places
from voice_earl.i18n import N_, _, current_language, rank_plural
from voice_earl.table.refusals import explain, holds_none, rank_finished
from voice_earl.table.session_events import (
    DealBegins,
    DealOver,
    FormulaGraded,
    Listener,
    Move,
    MoveRefused,
    PauseChanged,
    Reminded,
    RepeatAsked,
    RulesApplied,
    SeatKind,
    SessionEnded,
    Standing,
    TableEvent,
    TableSettings,
    TurnBegins,
    Undone,
)
from voice_earl.table.turns import (
    OPEN_RANK,
    SAY_PASS,
    TAP_PASS,
    BotMove,
    Command,
    Heard,
    InputSource,
    KeyCommand,
    Silence,
    TurnInput,
    TurnRequest,
    Woken,
)
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import Verdict


def _go_on(final: bool) -> bool:
    """Unattended tables (bots, scripts, tests) go straight on after a deal."""
    return True


class TableSession:
    """A series at the table. ``inputs`` maps each seat to its input source.

    ``hold`` is called after each deal's :class:`DealOver` (``final=False``) and, once the series
    is over, after :class:`SessionEnded` (``final=True``): it returns when the players go on, False
    when they quit instead (the next deal is then dealt on resuming).
    """

    def __init__(
        self,
        settings: TableSettings,
        inputs: Mapping[int, InputSource],
        listeners: Sequence[Listener] = (),
        moves: Sequence[Move] = (),
    ) -> None:
        self.settings = settings
        self.inputs = inputs
        self.listeners = list(listeners)
        self.moves: list[Move] = []
        self.records: list[Record] = []
        self._move_events: list[tuple[Event, ...]] = []  # what each move did, for saying what undo takes back
        self.series = self._new_series()
        self.paused = False
        self.hold: Callable[[bool], bool] = _go_on
        self._quitting = False  # the players quit after a deal: the turn that ended it ends the session
        self._tapped = False  # the input being handled was tapped on its player's phone: refusals are for it alone
        self._rebuild(list(moves))

    # -- state

    def _new_series(self) -> Series:
        s = self.settings
        return Series(
            s.profile, s.names, rng=random.Random(s.seed), deck=s.deck, deals=s.deals, first_dealer=s.first_dealer
        )

    @property
    def deal(self) -> Deal:
        assert self.series.deal is not None  # a session always has a deal once built
        return self.series.deal

    def _rebuild(self, moves: list[Move]) -> None:
        """Replay ``moves`` from the start of the series (same seed, same shuffles)."""
        self.series = self._new_series()
        self.moves = []
        self.records = []
        self._move_events = []
        self._start_deal(announce=False)
        for move in moves:
            self._apply(move, announce=False)

    def _start_deal(self, announce: bool) -> None:
        deal = self.series.start_deal()
        started = deal.started_event()
        self.records.append(to_record(started, self.settings.chant))
        if announce:
            self._emit(RulesApplied((started,), (self.records[-1],)))
            self._emit(self.deal_begins())

    def deal_begins(self) -> DealBegins:
        """The current deal as it was dealt: its dealer and each hand's size, in dealing order."""
        started = self.deal.started_event()
        names = self.settings.names
        order = [(started.dealer + k) % len(names) for k in range(1, len(names) + 1)]
        sizes = tuple((names[s], started.hand_sizes[s]) for s in order if s in started.seated)
        return DealBegins(started.deal, names[started.dealer], sizes, self.settings.deck is DeckMode.PHYSICAL)

    def _apply(self, move: Move, announce: bool) -> tuple[Event, ...]:
        events = self.series.apply(move.action)
        self.moves.append(move)
        self._move_events.append(events)
        records = tuple(self._record(event, move) for event in events)
        self.records.extend(records)
        if announce:
            self._emit(RulesApplied(events, records))
            if self.deal.over:
                self._emit(self._deal_over(events))
                self._quitting = not self.series.over and not self.hold(False)
        if self.deal.over and not self.series.over and not self._quitting:
            self._start_deal(announce)
        return events

    def _deal_over(self, events: Sequence[Event]) -> DealOver:
        """The deal's winner, what each took or paid, and the running totals (final places when it is over)."""
        names = self.settings.names
        won = next(event for event in events if isinstance(event, Won))
        settled = next((event for event in events if isinstance(event, Settled)), None)
        totals = self.series.totals
        if settled is None:  # a tie-break round decides places, not totals
            change = [0] * len(names)
        elif self.series.profile.scoring is Scoring.VICTORY:
            change = [int(seat == won.player) for seat in range(len(names))]
        else:
            change = list(settled.payments)
        places = self.series.places if self.series.over else competition_places(totals)
        standings = sorted(
            (Standing(places[seat], names[seat], change[seat], totals[seat]) for seat in range(len(names))),
            key=lambda standing: standing.place,
        )
        return DealOver(won.deal, names[won.player], tuple(standings), final=self.series.over)

    def _record(self, event: Event, move: Move) -> Record:
        record = to_record(event, self.settings.chant)
        if isinstance(event, Led | Played | Passed) and event.player == move.action.player:
            record.update(move.fields)
        return record

    def _emit(self, event: TableEvent) -> None:
        for listener in self.listeners:
            listener(event)

    # -- turns

    def formula_line(self, due: FormulaDue) -> str:
        if due.rank is None:
            return self.settings.chant.lines[0].replace("{rank}", "RANK")  # a lead: the rank is the player's
        return self.settings.chant.line(due.position, due.rank)

    def context_for(self, due: FormulaDue) -> ListenContext:
        """What the player may say now: the rank is fixed at positions 2-4 (with a virtual deck, a
        player who holds none of it may only pass; with a real pack nobody knows, so any may pass); at a
        lead the ranks held (virtual deck) or not yet finished (physical deck). The table's language decides
        which words pass besides "pass" ("pas", "passo")."""
        deal = self.deal
        if due.rank is not None:
            known = deal.hands is not None
            return ListenContext(
                due.position,
                (due.rank,),
                self.settings.chant,
                SPOKEN_COMMANDS,
                must_pass=known and not deal.holds(due.player, due.rank),
                may_pass=not known,
                language=current_language(),
            )
        if deal.hands is not None:
            ranks = tuple(rank for rank in RANKS if deal.holds(due.player, rank))
        else:
            ranks = tuple(rank for rank in RANKS if deal.out[rank.index] < 4)
        return ListenContext(1, ranks or RANKS, self.settings.chant, SPOKEN_COMMANDS, language=current_language())

    def request(self, reminded: bool = False) -> TurnRequest:
        deal = self.deal
        due = deal.formula_due()
        assert due is not None
        return TurnRequest(
            seat=due.player,
            name=self.settings.names[due.player],
            due=due,
            context=self.context_for(due),
            legal=deal.legal_actions(),
            view=deal.view(due.player),
            move_number=len(self.moves),
            reminded=reminded,
            paused=self.paused,
        )

    def run(self) -> SessionEnded:
        """Play until the series ends or the players quit."""
        started = self.deal.started_event()
        if not self.moves:
            self._emit(RulesApplied((started,), (self.records[0],)))
        if not self.deal.history:
            self._emit(self.deal_begins())
        while not self.series.over:
            if not self.play_turn():
                ended = SessionEnded(finished=False)
                self._emit(ended)
                return ended
        ended = SessionEnded(finished=True)
        self._emit(ended)
        self.hold(True)
        return ended

    def play_turn(self) -> bool:
        """One turn, through to an applied move. False when the players quit."""
        request = self.request()
        self._emit(TurnBegins(request.seat, request.name, request.due, self.formula_line(request.due)))
        source = self.inputs[request.seat]
        while True:
            outcome = self._handle(request, source.next_input(request))
            if outcome is _Outcome.QUIT:
                return False
            if outcome is _Outcome.DONE:
                return not self._quitting
            if outcome is _Outcome.REMINDED:
                request = self.request(reminded=True)
            elif outcome is _Outcome.PAUSE_TOGGLED:
                request = self.request(reminded=request.reminded)

    def _handle(self, request: TurnRequest, given: TurnInput) -> _Outcome:
        self._tapped = isinstance(given, KeyCommand) and given.private
        if self.paused:
            # While paused only the pause key (or quit) does anything; another is told how to go on.
            if isinstance(given, KeyCommand) and given.command in (Command.PAUSE, Command.QUIT):
                return self._command(request, given)
            if isinstance(given, KeyCommand):
                self._emit(self._pause_changed(request))
            return _Outcome.AGAIN
        if isinstance(given, Silence):
            if request.reminded:
                return _Outcome.AGAIN  # reminded once already: keep waiting
            self._emit(Reminded(request.seat, request.name, self.formula_line(request.due)))
            return _Outcome.REMINDED
        if isinstance(given, Woken):
            return _Outcome.AGAIN  # input arrived elsewhere (a phone's tap): ask the source again
        if isinstance(given, BotMove):
            return self._bot_move(request, given)
        if isinstance(given, KeyCommand):
            return self._command(request, given)
        return self._heard(request, given)

    def _command(self, request: TurnRequest, given: KeyCommand) -> _Outcome:
        command = given.command
        if command is Command.QUIT:
            return _Outcome.QUIT
        if command is Command.NEXT:
            return _Outcome.AGAIN  # "next" goes on after a deal; during one there is nothing to skip
        if command is Command.PAUSE:
            self.paused = not self.paused
            self._emit(self._pause_changed(request))
            return _Outcome.PAUSE_TOGGLED
        if command is Command.REPEAT:
            self._emit(RepeatAsked())
            return _Outcome.AGAIN
        if command is Command.UNDO:
            return self._undo()
        action = self._keyed_action(request, given)
        if action is None:
            return _Outcome.AGAIN
        return self._try(request, Move(action), chant_heard=None)

    def _pause_changed(self, request: TurnRequest) -> PauseChanged:
        """The pause as it is now, and how the input of the seat on turn goes on from it."""
        return PauseChanged(self.paused, getattr(self.inputs.get(request.seat), "paused_hint", PAUSED_HINT))

    def _keyed_action(self, request: TurnRequest, given: KeyCommand) -> Action | None:
        seat, due = request.seat, request.due
        if given.command is Command.PASS:
            return Pass(seat)
        if due.rank is None and given.command is Command.PLAY:
            how = getattr(self.inputs.get(seat), "lead_hint", LEAD_HINT)
            self._refuse(request, _("a lead needs a rank: {how}").format(how=_(how)))
            return None
        if due.rank is not None and given.command is Command.LEAD:
            self._refuse(request, _(OPEN_RANK).format(ranks=rank_plural(due.rank).lower()))
            return None
        rank = given.rank if given.command is Command.LEAD else due.rank
        assert rank is not None
        return self._card_action(request, rank, chant_ok=True)

    def _card_action(self, request: TurnRequest, rank: Rank, chant_ok: bool) -> Action | None:
        """The lead or play of ``rank`` by the seat on turn (any suit: suits never matter)."""
        seat, due = request.seat, request.due
        card = None
        hands = self.deal.hands
        if due.rank is None and self.deal.out[rank.index] == 4:
            self._refuse(request, rank_finished(rank))  # nobody holds one: say why, not that this player holds none
            return None
        if hands is not None:
            card = next((c for c in hands[seat] if c.rank is rank), None)
            if card is None:
                hint: str = TAP_PASS if self._tapped else getattr(self.inputs.get(seat), "pass_hint", SAY_PASS)
                self._refuse(request, holds_none(request.name, rank, due.rank is None, _(hint), self._tapped))
                return None
        if due.rank is None:
            return Lead(seat, rank, card, chant_ok=chant_ok)
        return Play(seat, card, chant_ok=chant_ok)

    def _heard(self, request: TurnRequest, heard: Heard) -> _Outcome:
        grade = heard.grade
        verdict = grade.verdict
        command = _spoken_command(grade.heard)
        if command is not None:
            return self._command(request, KeyCommand(command))
        if verdict is Verdict.SILENT:
            return self._handle(request, Silence(0.0))
        if verdict is Verdict.PASS:  # shown as heard, as a line is (the narrator says nothing of it)
            self._emit(FormulaGraded(request.seat, request.name, heard, takes_back=False))
            return self._try(request, Move(Pass(request.seat), heard.log_fields()), chant_heard=None)
        rank = request.due.rank or grade.rank or grade.heard_rank
        if verdict is Verdict.UNCLEAR or rank is None:
            self._emit(FormulaGraded(request.seat, request.name, heard, takes_back=False))
            return _Outcome.AGAIN
        if request.due.rank is None and rank not in request.context.ranks:
            self._emit(FormulaGraded(request.seat, request.name, heard, takes_back=False))
            text = _("{player} cannot lead {ranks}: lead a rank you hold")
            # All four out: nobody holds one, so say that (a real pack's hands are unknown; "you hold" misleads)
            finished = self.deal.out[rank.index] == 4
            why = rank_finished(rank) if finished else text.format(player=request.name, ranks=rank_plural(rank).lower())
            self._refuse(request, why)
            return _Outcome.AGAIN
        action = self._card_action(request, rank, chant_ok=verdict is Verdict.CORRECT)
        if action is None:
            return _Outcome.AGAIN
        return self._try(request, Move(action, heard.log_fields()), chant_heard=heard)

    def _bot_move(self, request: TurnRequest, given: BotMove) -> _Outcome:
        action = given.action
        heard = given.heard
        if heard is not None and isinstance(action, Lead | Play):
            ok = heard.grade.verdict is Verdict.CORRECT
            action = (
                Lead(action.player, action.rank, action.card, ok)
                if isinstance(action, Lead)
                else Play(action.player, action.card, ok)
            )
        fields = heard.log_fields() if heard is not None else {}
        return self._try(request, Move(action, fields), chant_heard=heard)

    def _try(self, request: TurnRequest, move: Move, chant_heard: Heard | None) -> _Outcome:
        action = move.action
        if chant_heard is not None:
            chant_ok = getattr(action, "chant_ok", True)
            takes_back = not chant_ok and self.settings.profile.chant_forfeit_applies
            self._emit(FormulaGraded(request.seat, request.name, chant_heard, takes_back))
        try:
            self._apply(move, announce=True)
        except IllegalAction as error:
            self._refuse(request, explain(error, action, self.deal, self.settings.names, self._tapped))
            return _Outcome.AGAIN
        return _Outcome.DONE

    def _refuse(self, request: TurnRequest, reason: str) -> None:
        self._emit(MoveRefused(request.seat, request.name, reason, private=self._tapped))

    def _undo(self) -> _Outcome:
        if not self.moves:
            return self._nothing_to_undo(_("nothing to undo yet"))
        if not self.deal.history:
            # The last move ended the deal before: its payments are made and, at a real table, the cards redealt.
            text = _("Nothing to undo: deal {previous} is over and paid, and deal {deal} has just been dealt.")
            return self._nothing_to_undo(text.format(previous=self.deal.number - 1, deal=self.deal.number))
        taken = self._moves_to_take_back()
        if not taken:
            text = _("Nothing to undo: only the bots have moved in deal {deal} so far.")
            return self._nothing_to_undo(text.format(deal=self.deal.number))
        last, events = self.moves[-taken], self._move_events[-taken]
        self._rebuild(self.moves[:-taken])
        self._emit(Undone(self.settings.names[last.action.player], len(self.records), events))
        return _Outcome.DONE

    def _nothing_to_undo(self, reason: str) -> _Outcome:
        self._emit(MoveRefused(self.deal.turn, self.settings.names[self.deal.turn], reason))
        return _Outcome.AGAIN

    def _moves_to_take_back(self) -> int:
        """How many moves undo takes back: the last one; at a table of players and bots, back to the last move
        a player made in this deal (a bot's move taken back alone, the bot makes again at once). 0: none yet."""
        bots = {number for number, seat in enumerate(self.settings.seats) if seat.kind is SeatKind.BOT}
        if not bots or len(bots) == len(self.settings.seats):
            return 1
        this_deal = self.moves[len(self.moves) - len(self.deal.history) :]
        for back, move in enumerate(reversed(this_deal), start=1):
            if move.action.player not in bots:
                return back
        return 0

    # -- summaries for presenters

    def standings(self) -> tuple[tuple[str, int], ...]:
        return tuple(zip(self.settings.names, self.series.totals, strict=True))


class _Outcome(enum.Enum):
    DONE = "done"  # a move was applied (or undone): the next turn begins
    AGAIN = "again"  # ask the same player again
    REMINDED = "reminded"
    PAUSE_TOGGLED = "pause"
    QUIT = "quit"


_SPOKEN_COMMANDS = {"undo": Command.UNDO, "repeat": Command.REPEAT}
SPOKEN_COMMANDS = tuple(_SPOKEN_COMMANDS)  # listened for on every turn
LEAD_HINT = N_("press its key (A 2-9 0/T J Q K) or type 'lead Q'")  # how a lead names its rank (sources may say)
PAUSED_HINT = N_("Paused. Press p to go on.")  # and how the pause ends (sources may say)


def _spoken_command(heard: str) -> Command | None:
    return _SPOKEN_COMMANDS.get(heard.strip().lower())
