"""``play --phones``: the phones' server for the length of a game, with its addresses kept with
the series so that ``play --resume`` serves the same ones again."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from voice_earl.i18n import _
from voice_earl.keep.storage import Store
from voice_earl.table.phones.hub import PhoneHub, Phones, serve_phones
from voice_earl.table.phones.join import at_terminal, print_addresses, print_summary, show_codes
from voice_earl.table.phones.network import LOOPBACK, lan_address
from voice_earl.table.phones.tokens import PhoneTokens
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import SeatKind, TableSettings
from voice_earl.table.turns import InputSource

DEFAULT_PORT = 8765


@dataclass
class PhonesAtTable:
    phones: Phones
    tokens: PhoneTokens
    store: Store
    humans: list[int]

    def beside(self, source: InputSource) -> InputSource:
        return self.phones.beside(source)

    def follow(self, session: TableSession, series_id: int, resume: str) -> PhoneHub:
        """Keep the addresses with the series, and keep the phones in step with the session; then
        (not at a terminal) print them for scripts, now that each player's view can be read.
        ``resume``: the command that goes on with the series, for the phones if it is stopped."""
        self.store.keep_phones(series_id, self.tokens.to_record())
        hub = self.phones.follow(session, resume)
        if not at_terminal(sys.stdout, sys.stdin):
            print_addresses(self.phones.server, self.humans, sys.stdout)
        return hub


def listen_host(args: argparse.Namespace, kept: PhoneTokens | None = None,
                series_id: int | None = None) -> tuple[str, str]:
    """Where to listen, and a line that says why there: ``--host``, else where the series was served
    before, else the laptop's address on the local network."""
    if args.host:
        return args.host, _("phones: listening on {host}, as --host asks").format(host=args.host)
    if kept is not None and kept.host is not None:
        text = _("phones: listening on {host}, where series {series} was served (--host chooses another address)")
        return kept.host, text.format(host=kept.host, series=series_id)
    found = lan_address()
    if found is None:
        return LOOPBACK, _("phones: no local network found, so listening on {host} only, where no phone can "
                           "reach it: join a Wi-Fi network or give --host").format(host=LOOPBACK)
    return found, _("phones: listening on {host}, the laptop's address on the local network").format(host=found)


@contextlib.contextmanager
def phones_at_table(
    args: argparse.Namespace, store: Store, series_id: int | None, settings: TableSettings,
    kept: PhoneTokens | None = None,
) -> Iterator[PhonesAtTable]:
    """Start the server, show each player their code, and stop the server when the game ends.

    ``kept``: the tokens a resumed series was served with (read by :func:`~voice_earl.table.phones.tokens.kept_tokens`).
    """
    names = settings.names
    tokens = kept or PhoneTokens.new(names)
    port = args.port if args.port is not None else tokens.port or DEFAULT_PORT
    host, note = listen_host(args, kept, series_id)
    humans = [seat for seat, s in enumerate(settings.seats) if s.kind is SeatKind.HUMAN]
    with serve_phones(names, humans, tokens, host, port) as phones:
        served = tokens.served_at(host, phones.server.port)
        if series_id is not None:
            store.keep_phones(series_id, served.to_record())
        print_summary(phones.server, humans, note, sys.stderr)
        if at_terminal(sys.stdout, sys.stdin):
            show_codes(phones.server, humans, sys.stdout, sys.stdin)
        yield PhonesAtTable(phones, served, store, humans)
