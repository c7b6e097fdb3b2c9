"""The phones at a table: the session's listener that keeps them in step, and the wiring.

:class:`PhoneHub` runs on the game's thread as one of the session's listeners: it opens and closes
turns at the :class:`TurnGate`, and after every event hands the server an immutable snapshot of
the table (and refusals to the phones of the player refused). :func:`serve_phones` starts the
server for the length of a game.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from voice_earl.game.events import Event, Led, Passed, Played, QuartetCompleted, SeriesEnded, Won
from voice_earl.i18n import _, rank_name, rank_plural
from voice_earl.table import narrator as say
from voice_earl.table.phones.gate import TurnGate, WithPhones
from voice_earl.table.phones.limits import DEFAULT_LIMITS, Limits
from voice_earl.table.phones.mic_gate import HeldHearing, MicGate, WithPhoneMics
from voice_earl.table.phones.mics import MicLimits, PhoneMics
from voice_earl.table.phones.server import PhoneServer
from voice_earl.table.phones.tokens import PhoneTokens
from voice_earl.table.phones.views import News, TableState, snapshot
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import (
    MoveRefused,
    PauseChanged,
    RulesApplied,
    SessionEnded,
    TableEvent,
    TurnBegins,
    Undone,
)
from voice_earl.table.turns import InputSource

if TYPE_CHECKING:
    from voice_earl.table.phones.tls import SiteCertificate


class PhoneHub:
    """Keeps the phones in step with the session (a session listener, on the game's thread).

    ``resume`` is the command that goes on with the series, for the phones to show if the game is
    stopped at the laptop before the end."""

    def __init__(self, server: PhoneServer, gate: TurnGate) -> None:
        self.server = server
        self.gate = gate
        self.session: TableSession | None = None
        self.last = News()
        self.resume: str | None = None
        self.stopped = False
        self.shown: TableState | None = None  # the state the phones were last given

    def attach(self, session: TableSession, resume: str | None = None) -> PhoneHub:
        """Follow ``session`` from now on; the phones get its state at once."""
        self.session = session
        self.resume = resume
        self._publish()
        return self

    def __call__(self, event: TableEvent) -> None:
        if isinstance(event, TurnBegins):
            self.gate.open(event.seat)
        elif isinstance(event, RulesApplied | Undone | SessionEnded):
            self.gate.close()
        elif isinstance(event, PauseChanged):
            self.gate.pause(event.paused)
        elif isinstance(event, MoveRefused):
            self.server.tell(event.seat, event.reason)
        if isinstance(event, SessionEnded) and not event.finished:
            self.stopped = True
        news = self._news(event)
        self.last = news if news.text else self.last
        self._publish()

    @contextlib.contextmanager
    def waiting(self, reason: str) -> Iterator[None]:
        """While the game waits for an answer at the laptop (saving failed: go on?). The phones keep
        the state they were shown, paused, saying ``reason``: the move being saved is not shown before
        it is kept or the players go on; and a tap is refused with ``reason``, since none is applied
        before the answer."""
        self.gate.pause(True, reason)
        if self.shown is not None:
            self.server.publish(dataclasses.replace(self.shown, paused=True, pause_reason=reason))
        try:
            yield
        finally:
            self.gate.pause(self.session is not None and self.session.paused)
            if self.shown is not None:
                self.server.publish(self.shown)  # the move, once the players go on, follows as it comes

    def _publish(self) -> None:
        if self.session is not None:
            resume = self.resume if self.stopped else None
            self.shown = snapshot(self.session, self.gate.turn_id, self.last, self.stopped, resume)
            self.server.publish(self.shown)

    def _news(self, event: TableEvent) -> News:
        """What just happened, as a short line for every phone (never a card still in a hand)."""
        if isinstance(event, Undone):
            seat = self.session.settings.names.index(event.name) if self.session is not None else None
            return News(
                _("Taken back: {player}'s last move.").format(player=event.name),
                seat,
                _("Taken back: your last move."),
                undo=True,
            )
        if isinstance(event, RulesApplied):
            news = [found for e in event.events if (found := self._rules_news(e)).text]
            return news[-1] if news else News()
        return News()

    def _rules_news(self, event: Event) -> News:
        assert self.session is not None
        names = self.session.settings.names
        if isinstance(event, Led | Played):  # the rank only: what the phones show is never a suit
            rank = rank_name(event.rank)
            return News(f"{names[event.player]}: {rank}", event.player, _("You: {rank}").format(rank=rank))
        if isinstance(event, Passed):
            return News(say.passed(names[event.player]).line, event.player, _("You pass"))
        if isinstance(event, QuartetCompleted):
            line = say.quartet(names[event.player], event.rank, self.session.settings.chant).line
            return News(line, event.player, _("{ranks} complete - you lead").format(ranks=rank_plural(event.rank)))
        if isinstance(event, Won):
            yours = _("You win deal {deal}").format(deal=event.deal)
            return News(say.winner(names[event.player], event.deal).line, event.player, yours)
        if isinstance(event, SeriesEnded):
            return News(say.standings(self.session.standings(), final=True).line)
        return News()


@dataclass
class Phones:
    """A running phone server and what a table needs from it."""

    server: PhoneServer
    gate: TurnGate
    hub: PhoneHub
    mics: MicGate | None = None  # with --phone-mics

    def beside(self, source: InputSource, hearing: HeldHearing | None = None) -> InputSource:
        """The humans' input with their phones' taps beside it, and with ``hearing`` what their phones held."""
        if self.mics is not None and hearing is not None:
            source = WithPhoneMics(source, self.mics, hearing)
        return WithPhones(source, self.gate)

    def follow(self, session: TableSession, resume: str | None = None) -> PhoneHub:
        """Keep the phones in step with ``session``; ``resume``: the command that goes on with it."""
        return self.hub.attach(session, resume)


@contextlib.contextmanager
def serve_phones(
    names: Sequence[str],
    seats: Collection[int],
    tokens: PhoneTokens,
    host: str,
    port: int,
    limits: Limits = DEFAULT_LIMITS,
    *,
    mics: MicLimits | None = None,
    certificate: SiteCertificate | None = None,
) -> Iterator[Phones]:
    """Serve the phones of ``seats`` on ``host``:``port`` while the block runs; with ``mics`` the
    phones are microphones too, and with ``certificate`` the pages are served over HTTPS."""
    gate = TurnGate(names)
    server = PhoneServer(tokens, gate, seats, limits)
    mic_gate = MicGate(gate, mics.press_s) if mics is not None else None
    if mic_gate is not None and mics is not None:
        server.mics = PhoneMics(mic_gate, mics)
    server.start(host, port, certificate)
    try:
        yield Phones(server, gate, PhoneHub(server, gate), mic_gate)
    finally:
        server.stop()
