"""The phones at a table: the session's listener that keeps them in step, and the wiring.

:class:`PhoneHub` runs on the game's thread as one of the session's listeners: it opens and closes
turns at the :class:`TurnGate`, and after every event hands the server an immutable snapshot of
the table (and refusals to the phones of the player refused). :func:`serve_phones` starts the
server for the length of a game.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from voice_earl.game.events import Event, Led, Passed, Played, QuartetCompleted, SeriesEnded, Won
from voice_earl.i18n import _, rank_name
from voice_earl.table import narrator as say
from voice_earl.table.phones.gate import TurnGate, WithPhones
from voice_earl.table.phones.mic_gate import HeldHearing, MicGate, WithPhoneMics
from voice_earl.table.phones.mics import MicLimits, PhoneMics
from voice_earl.table.phones.server import DEFAULT_LIMITS, Limits, PhoneServer
from voice_earl.table.phones.tokens import PhoneTokens
from voice_earl.table.phones.views import snapshot
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
    """Keeps the phones in step with the session (a session listener, on the game's thread)."""

    def __init__(self, server: PhoneServer, gate: TurnGate) -> None:
        self.server = server
        self.gate = gate
        self.session: TableSession | None = None
        self.last = ""

    def attach(self, session: TableSession) -> PhoneHub:
        """Follow ``session`` from now on; the phones get its state at once."""
        self.session = session
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
        self.last = self._line(event) or self.last
        self._publish()

    def _publish(self) -> None:
        if self.session is not None:
            self.server.publish(snapshot(self.session, self.gate.turn_id, self.last))

    def _line(self, event: TableEvent) -> str:
        """What just happened, as a short line for every phone (never a card still in a hand)."""
        if isinstance(event, Undone):
            return _("Taken back: {player}'s last move.").format(player=event.name)
        if isinstance(event, RulesApplied):
            lines = [line for e in event.events if (line := self._rules_line(e))]
            return lines[-1] if lines else ""
        return ""

    def _rules_line(self, event: Event) -> str:
        assert self.session is not None
        names = self.session.settings.names
        if isinstance(event, Led | Played):  # the rank only: what the phones show is never a suit
            return f"{names[event.player]}: {rank_name(event.rank)}"
        if isinstance(event, Passed):
            return say.passed(names[event.player]).line
        if isinstance(event, QuartetCompleted):
            return say.quartet(names[event.player], event.rank, self.session.settings.chant).line
        if isinstance(event, Won):
            return say.winner(names[event.player], event.deal).line
        if isinstance(event, SeriesEnded):
            return say.standings(self.session.standings(), final=True).line
        return ""


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

    def follow(self, session: TableSession) -> PhoneHub:
        return self.hub.attach(session)


@contextlib.contextmanager
def serve_phones(
    names: Sequence[str], seats: Collection[int], tokens: PhoneTokens, host: str, port: int,
    limits: Limits = DEFAULT_LIMITS, *, mics: MicLimits | None = None, certificate: SiteCertificate | None = None,
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
