"""Adapters that turn the session's events into speech, a screen and a game log."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TextIO

from voice_earl.game.cards import RANKS, SUITS, Card
from voice_earl.game.events import (
    Event,
    FullCircle,
    Led,
    Misplayed,
    Passed,
    Penalised,
    Played,
    QuartetCompleted,
    SeriesEnded,
    Settled,
    Won,
)
from voice_earl.game.gamelog import to_line
from voice_earl.game.moves import FormulaDue
from voice_earl.game.rules import DeckMode, Scoring
from voice_earl.i18n import N_, _, a_rank, rank_name, rank_plural
from voice_earl.table import narrator as say
from voice_earl.table.narrator import Announcement, Narrator, Verbosity
from voice_earl.table.screen import TableScreen
from voice_earl.table.screen_sections import DealResult, PlayerRow, ResultRow, TableSnapshot
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import (
    DealBegins,
    DealOver,
    FormulaGraded,
    MoveRefused,
    PauseChanged,
    Reminded,
    RepeatAsked,
    RulesApplied,
    SeatKind,
    SessionEnded,
    TableEvent,
    TurnBegins,
    Undone,
)
from voice_earl.table.turns import KeyHelp
from voice_earl.words.verdicts import Verdict

_RECENT_MOVES = 24  # at most this many of the deal's moves are kept for the moves line


class Narration:
    """Speaks (and prints) what happens at the table."""

    def __init__(self, session: TableSession, narrator: Narrator, saved: Callable[[], bool] = lambda: True) -> None:
        self.session = session
        self.narrator = narrator
        self.saved = saved  # whether every move so far is kept (the players may go on without saving)
        self.said: list[Announcement] = []  # since the last move: what "repeat" says again

    def __call__(self, event: TableEvent) -> None:
        if isinstance(event, RepeatAsked):
            repeated = say.again(self.said)
            if repeated is not None:
                self.narrator.say(repeated)
            return
        if isinstance(event, RulesApplied | Undone):
            self.said = []
        for announcement in self.announcements(event):
            self.said.append(announcement)
            self.narrator.say(announcement)

    def announcements(self, event: TableEvent) -> list[Announcement]:
        if isinstance(event, RulesApplied):
            return [a for e in event.events for a in self._rules(e)]
        if isinstance(event, TurnBegins):
            return [say.turn(event.name, event.due.rank, event.due.position)]
        if isinstance(event, FormulaGraded):
            return self._graded(event)
        if isinstance(event, DealBegins):
            return [say.deal_begins(event.deal, event.dealer, event.hand_sizes if event.physical else None)]
        if isinstance(event, MoveRefused):
            return [] if event.private else [say.notice(event.reason, min_verbosity=Verbosity.QUIET)]
        if isinstance(event, Reminded):
            return [say.notice(_("{player}, it is your turn: {line}").format(player=event.name, line=event.line))]
        if isinstance(event, Undone):
            return [say.notice(taken_back(event), min_verbosity=Verbosity.QUIET)]
        if isinstance(event, PauseChanged):
            return [say.notice(self._pause_text(event), min_verbosity=Verbosity.QUIET)]
        if isinstance(event, SessionEnded) and not event.finished:
            text = _("Stopped. The series is saved.") if self.saved() else _("Stopped. The last moves are not saved.")
            return [say.notice(text, min_verbosity=Verbosity.QUIET)]
        return []

    def _pause_text(self, event: PauseChanged) -> str:
        if event.paused:
            return _(event.go_on)
        return _("Going on.") if self.session.settings.silent else _("Listening again.")  # Silent Earl hears nothing

    def _graded(self, event: FormulaGraded) -> list[Announcement]:
        grade = event.heard.grade
        if grade.verdict in (Verdict.CORRECT, Verdict.PASS):
            return []  # a pass heard is a pass, not a wrong line
        if grade.verdict in (Verdict.UNCLEAR, Verdict.SILENT):
            return [say.unclear(event.name, grade.expected, event.takes_back, grade.or_pass)]
        return [say.wrong_line(event.name, grade.expected, grade.heard, event.takes_back)]

    def _rules(self, event: Event) -> list[Announcement]:
        names = self.session.settings.names
        if isinstance(event, Passed):
            if self.session.settings.seats[event.player].kind is SeatKind.BOT:
                return []  # a bot announces its own pass (play_modes.BotRecital)
            return [say.passed(names[event.player])]
        if isinstance(event, QuartetCompleted):
            return [say.quartet(names[event.player], event.rank, self.session.settings.chant)]
        if isinstance(event, Won):
            return [say.winner(names[event.player], event.deal)]
        if isinstance(event, Settled):
            return self._settled(event)
        if isinstance(event, SeriesEnded):
            return [say.standings(self.session.standings(), final=True)]
        if isinstance(event, FullCircle):
            text = _("A full circle of passes: someone holds {a_rank} and passed.").format(a_rank=a_rank(event.rank))
            if event.relead:
                text += " " + _("{player} leads a new rank.").format(player=names[event.last_player])
            else:  # the turn comes round again to a player who passed: say why
                text += " " + _("Look at your cards again: the {ranks} go round once more.").format(
                    ranks=rank_plural(event.rank)
                )
            return [say.notice(text, min_verbosity=Verbosity.QUIET)]
        if isinstance(event, Penalised):
            return [say.notice(_("{player} pays a counter into the kitty.").format(player=names[event.player]))]
        if isinstance(event, Misplayed):
            text = _("{player}: misplay, take the card back.").format(player=names[event.player])
            return [say.notice(text, min_verbosity=Verbosity.QUIET)]
        return []

    def _settled(self, event: Settled) -> list[Announcement]:
        names = self.session.settings.names
        result: list[Announcement] = []
        winner = max(range(len(names)), key=lambda seat: event.payments[seat])
        payers = [(names[s], -p) for s, p in enumerate(event.payments) if p < 0]
        if payers:
            result.append(say.settlement(names[winner], payers))
        if not self.session.series.over:
            result.append(say.standings(self.session.standings(), after_deal=event.deal))
        return result


class ScreenView:
    """Keeps the table screen in step with the session."""

    def __init__(self, session: TableSession, screen: TableScreen, *, show_hands: Callable[[int], bool]) -> None:
        self.session = session
        self.screen = screen
        self.show_hands = show_hands
        self.heard: FormulaGraded | None = None
        self.message = ""
        self._refusal: str | None = None  # the message line's refusal, until the move that answers it
        self.status = ""
        self.keys = KeyHelp(N_("u undo · r repeat · p pause · x quit"))  # the screen translates them
        self.more_keys: tuple[str, ...] = ()  # what this table adds to them on turns and between deals
        self.result: DealResult | None = None  # between deals, and at the end: the deal-over view
        self.finished = False  # the game is over or stopped: no key does anything any more
        self._owner = threading.get_ident()
        self._samples: tuple[str, ...] | None = None

    def narrate(self, line: str) -> None:
        """The narrator's printer: every announcement is shown, and stays until the next one.

        On the live screen, whose turn it is and the deal's sizes have places of their own, so their
        announcements leave the last one in place; elsewhere each announcement is printed as it comes (the
        turn is in the line that shows the move). A line from the narrator's own thread only leaves its
        line for the next redraw: the session's state may be changing on the game's thread at that moment.
        """
        on_game_thread = threading.get_ident() == self._owner
        if on_game_thread and line in self._shown_in_place():
            return
        if not self.screen.is_live:
            self.screen.print_line(line)
            return
        self.message = line
        if on_game_thread:
            self.refresh()

    def _shown_in_place(self) -> tuple[str, ...]:
        """The announcements the screen shows in places of their own: the turn, and the deal's sizes."""
        due = self.session.deal.formula_due()
        turn = say.turn(self.session.settings.names[due.player], due.rank, due.position).line if due else None
        return tuple(line for line in (turn, self._deal_line() if self.screen.is_live else "") if line)

    def _deal_line(self) -> str:
        """Who dealt and how many cards each player got: shown until the deal's first card."""
        if self.session.deal.history:
            return ""
        begins = self.session.deal_begins()
        return say.deal_begins(begins.deal, begins.dealer, begins.hand_sizes if begins.physical else None).line

    def __call__(self, event: TableEvent) -> None:
        if isinstance(event, MoveRefused):
            self._refusal = event.reason  # the narrator shows it next (not a refusal for a phone alone)
        elif isinstance(event, RulesApplied | Undone):
            self._answered()
        if isinstance(event, FormulaGraded):
            self.heard = event
        elif isinstance(event, PauseChanged):
            self.status = _("paused") if event.paused else ""
        elif isinstance(event, DealOver):
            self.result = deal_result(event)
            self.message = ""  # the result says who won and paid: the view keeps its line for what is asked next
        elif isinstance(event, DealBegins):
            self.result = None
            self.heard = None
        self.refresh()

    def _answered(self) -> None:
        """A move was made (or taken back): a refusal on the message line was about the turn before it."""
        if self._refusal is not None and self.message == self._refusal:
            self.message = ""
        self._refusal = None

    def finish(self) -> None:
        """The game is over (or stopped): the key bar offers nothing more."""
        self.finished = True
        self.refresh()

    def refresh(self) -> None:
        self.screen.update(self.snapshot())

    def snapshot(self) -> TableSnapshot:
        session = self.session
        series = session.series
        deal = session.deal
        settings = session.settings
        due = deal.formula_due()
        rows = tuple(
            PlayerRow(
                name=seat.name,
                cards=deal.sizes[i],
                total=series.totals[i],
                dealer=i == deal.dealer,
                to_move=due is not None and due.player == i,
                hand=sorted_hand(deal.hands[i]) if deal.hands is not None and self.show_hands(i) else None,
                note=_("bot") if seat.kind is SeatKind.BOT else (_("won") if deal.winner == i else ""),
            )
            for i, seat in enumerate(settings.seats)
        )
        heard = self.heard.heard.grade if self.heard is not None else None
        due_line = self._due_line(due)
        return TableSnapshot(
            title=self._title(),
            players=rows,
            rank=deal.rank.value if deal.rank is not None else None,
            in_quartet=deal.in_quartet,
            finished_ranks=tuple(rank.value for rank in deal.finished_ranks()),
            due_player=settings.names[due.player] if due is not None else None,
            due_line=due_line,
            due_hint=say.due(due.rank, due.position) if due is not None and not settings.silent else "",
            heard=heard.heard if heard is not None else None,
            heard_from=self.heard.name if self.heard is not None else None,
            verdict=heard.verdict.value if heard is not None else None,
            feedback=heard.feedback() if heard is not None else "",
            message=self.message,
            deal_line=self._deal_line() if self.result is None else "",
            due_samples=self._due_samples(),
            listening=not settings.silent,
            status=self.status,
            keys=self._keys(),
            more_keys=() if self.finished or (self.result is not None and self.result.final) else self.more_keys,
            recent=self._recent(),
            result=self.result,
        )

    def _due_samples(self) -> tuple[str, ...]:
        if self._samples is None:
            self._samples = due_samples(self.session)
        return self._samples

    def _keys(self) -> str:
        """The turn's keys; after a deal the key that goes on; nothing once the game is over."""
        if self.finished:
            return ""
        if self.result is not None:
            return self.keys.close if self.result.final else self.keys.next_deal
        return self.keys.turn

    def _recent(self) -> tuple[str, ...]:
        """The deal's moves so far, oldest first: ``Ann Q♠``, ``Ben pass`` (a physical deck shows the rank)."""
        names = self.session.settings.names
        moves: list[str] = []
        for record in reversed(self.session.records):
            kind = record["event"]
            if kind == "deal" or len(moves) == _RECENT_MOVES:
                break
            if kind in ("lead", "play"):
                card = record.get("card")
                moves.append(f"{names[record['player']]} {Card.parse(card).pretty if card else record['rank']}")
            elif kind == "pass":
                moves.append(f"{names[record['player']]} {_('pass')}")
        return tuple(reversed(moves))

    def _due_line(self, due: FormulaDue | None) -> str | None:
        """The formula in large text; in Silent Earl, whose turn and what is due instead."""
        if due is None:
            return None
        if self.session.settings.silent:
            return say.turn(self.session.settings.names[due.player], due.rank, due.position).line
        return self.session.formula_line(due)

    def _title(self) -> str:
        session = self.session
        series = session.series
        deal_no = session.deal.number
        planned = series.planned_deals if series.profile.scoring is not Scoring.COUNTERS else None
        deck = _("physical deck") if session.settings.deck is DeckMode.PHYSICAL else _("virtual deck")
        if planned:
            return _("Deal {deal} of {deals} · {profile} · {deck}").format(
                deal=deal_no, deals=planned, profile=series.profile.name, deck=deck
            )
        return _("Deal {deal} · {profile} · {deck}").format(deal=deal_no, profile=series.profile.name, deck=deck)


def due_samples(session: TableSession) -> tuple[str, ...]:
    """Every line that may be due at this table as the big text shows it (any player, any rank)."""
    settings = session.settings
    if settings.silent:
        turns = [say.turn(name, rank, 4).line for name in settings.names for rank in RANKS]
        return tuple(turns + [say.turn(name, None, 1).line for name in settings.names])
    lead = session.formula_line(FormulaDue(0, 1, None))
    return (lead, *(settings.chant.line(position, rank) for position in (2, 3, 4) for rank in RANKS))


def sorted_hand(cards: tuple[Card, ...] | list[Card]) -> tuple[str, ...]:
    """A hand as the screen shows it: by rank (A 2 … 10 J Q K), then by suit.

    >>> sorted_hand([Card.parse(text) for text in ("KS", "2H", "AD", "2S", "10C")])
    ('A♦', '2♠', '2♥', '10♣', 'K♠')
    """
    return tuple(card.pretty for card in sorted(cards, key=hand_order))


def hand_order(card: Card) -> tuple[int, int]:
    """The place of a card in a sorted hand: by rank, then by suit (the screen and the phones agree)."""
    return card.rank.index, SUITS.index(card.suit)


def deal_result(event: DealOver) -> DealResult:
    """The deal-over view of a :class:`DealOver`: the winner, who paid what, and the standings."""
    winner = say.winner(event.winner, event.deal).line
    payers = [(standing.name, -standing.change) for standing in event.standings if standing.change < 0]
    settled = say.settlement(event.winner, payers).line if payers else ""
    places = [standing.place for standing in event.standings]
    rows = tuple(
        ResultRow(s.place, s.name, s.change, s.total, shared=places.count(s.place) > 1) for s in event.standings
    )
    if event.final:
        detail = f"{winner} · {settled}" if settled else winner
        return DealResult(_("Final standings"), f"{game_won(event)}\n{detail}", rows, event.deal, final=True)
    return DealResult(winner, settled, rows, event.deal)


def game_won(event: DealOver) -> str:
    """Who won the series, over the last deal's result: ``Ben wins the game.`` or ``Ann, Ben share first place.``"""
    first = [standing.name for standing in event.standings if standing.place == 1]
    if len(first) == 1:
        return _("{winner} wins the game.").format(winner=first[0])
    return _("{players} share first place.").format(players=", ".join(first))


def taken_back(event: Undone) -> str:
    """What undo took back: ``Taken back: Ben's Queen, card 2 of 4.``"""
    for done in event.events:
        if isinstance(done, Led):
            return _("Taken back: {player}'s lead of {ranks}.").format(player=event.name, ranks=rank_plural(done.rank))
        if isinstance(done, Played):
            text = _("Taken back: {player}'s {rank}, card {position} of 4.")
            return text.format(player=event.name, rank=rank_name(done.rank), position=done.position)
        if isinstance(done, Passed):
            return _("Taken back: {player}'s pass.").format(player=event.name)
    return _("Taken back: {player}'s last move.").format(player=event.name)


class JsonlLog:
    """Writes the game log (one JSON object per line) as the session produces it."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def __call__(self, event: TableEvent) -> None:
        if isinstance(event, RulesApplied):
            for record in event.records:
                self.out.write(to_line(record) + "\n")
            self.out.flush()
