"""``play --phones``: the phones' server for the length of a game, with its addresses kept with
the series so that ``play --resume`` serves the same ones again. With ``--phone-mics`` the phones
are microphones too, served over HTTPS (kept with the series as well)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from voice_earl.i18n import _
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_values import JournalError
from voice_earl.table.journal import GoOnUnsaved
from voice_earl.table.phones.hub import PhoneHub, Phones, serve_phones
from voice_earl.table.phones.join import JoinOnScreen, at_terminal, print_addresses, print_summary, show_codes
from voice_earl.table.phones.mic_gate import HeldHearing
from voice_earl.table.phones.mics import DEFAULT_MIC_LIMITS
from voice_earl.table.phones.network import LOOPBACK, lan_address
from voice_earl.table.phones.tokens import PhoneTokens
from voice_earl.table.screen import TableScreen
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import SeatKind, TableSettings
from voice_earl.table.turns import QUIT_BEFORE_PLAY, QUIT_QUESTION, InputSource, PlayersQuit
from voice_earl.table.voice_input import VoiceInput, open_listener
from voice_earl.words.verdicts import Strictness

DEFAULT_PORT = 8765


@dataclass
class PhonesAtTable:
    phones: Phones
    tokens: PhoneTokens
    store: Store
    humans: list[int]
    args: argparse.Namespace

    def beside(self, source: InputSource) -> InputSource:
        if self.phones.mics is None:
            return self.phones.beside(source)
        return self.phones.beside(source, held_hearing(source, self.args))

    def asking(self, go_on_unsaved: GoOnUnsaved) -> GoOnUnsaved:
        """The players' choice when saving failed, with the phones told that the game waits meanwhile."""

        def ask(problem: str) -> bool:
            with self.phones.hub.waiting(_("Saving failed: the game waits for an answer at the laptop.")):
                return go_on_unsaved(problem)

        return ask

    def join_code(self, screen: TableScreen) -> JoinOnScreen:
        """The join page's code, shown over ``screen`` at the join key."""
        return JoinOnScreen(self.phones.server, screen)

    def follow(self, session: TableSession, series_id: int, resume: str) -> PhoneHub:
        """Keep the addresses with the series, and keep the phones in step with the session; then
        (not at a terminal) print them for scripts, now that each player's view can be read.
        ``resume``: the command that goes on with the series, for the phones if it is stopped."""
        self.store.keep_phones(series_id, kept_record(self.tokens, self.phones.mics is not None))
        hub = self.phones.follow(session, resume)
        if not at_terminal(sys.stdout, sys.stdin):
            print_addresses(self.phones.server, self.humans, sys.stdout)
        return hub


def listen_host(
    args: argparse.Namespace, kept: PhoneTokens | None = None, series_id: int | None = None
) -> tuple[str, str]:
    """Where to listen, and a line that says why there: ``--host``, else where the series was served
    before, else the laptop's address on the local network."""
    if args.host:
        return args.host, _("phones: listening on {host}, as --host asks").format(host=args.host)
    if kept is not None and kept.host is not None:
        text = _("phones: listening on {host}, where series {series} was served (--host chooses another address)")
        return kept.host, text.format(host=kept.host, series=series_id)
    found = lan_address()
    if found is None:
        return LOOPBACK, _(
            "phones: no local network found, so listening on {host} only, where no phone can "
            "reach it: join a Wi-Fi network or give --host"
        ).format(host=LOOPBACK)
    return found, _("phones: listening on {host}, the laptop's address on the local network").format(host=found)


def kept_record(tokens: PhoneTokens, mics: bool) -> dict[str, Any]:
    """What is kept with the series: the addresses, and whether they are served over HTTPS with the
    phones as microphones (a resumed series serves the same addresses, the same way)."""
    return {**tokens.to_record(), "mics": mics}


def held_hearing(source: InputSource, args: argparse.Namespace) -> HeldHearing:
    """How what the phones held is judged: by the laptop's own listener when it listens, else by one
    loaded for the phones (the laptop's microphone could not start)."""
    if isinstance(source, VoiceInput):
        return HeldHearing(source.listener, source.strictness, source.keep_audio)
    print("voice-earl: " + _("loading the recognizer for the phones' microphones…"), file=sys.stderr, flush=True)
    listener, reason = open_listener(args)
    print(f"voice-earl: listening to the phones with {reason}", file=sys.stderr)
    return HeldHearing(listener, Strictness(args.strictness or "normal"), bool(getattr(args, "keep_audio", False)))


def kept_mics(store: Store, series_id: int) -> bool:
    """Whether the series was played with the phones as microphones: resumed, it has them again. A
    damaged record says no here: reading its tokens refuses it, with the reason."""
    try:
        kept = store.phones(series_id)
    except JournalError:
        return False
    return bool(kept and kept.get("mics") is True)


def wants_mics(args: argparse.Namespace) -> bool:
    """--phone-mics (given, or kept with the series), but never in Silent Earl, which listens to nobody."""
    wanted = bool(getattr(args, "phone_mics", False))
    if wanted and getattr(args, "silent", False):
        print(
            "voice-earl: " + _("Silent Earl listens to nobody: the phones are not microphones in this game."),
            file=sys.stderr,
        )
        return False
    return wanted


@contextlib.contextmanager
def phones_at_table(
    args: argparse.Namespace,
    store: Store,
    series_id: int | None,
    settings: TableSettings,
    kept: PhoneTokens | None = None,
    laptop_listens: bool = True,
) -> Iterator[PhonesAtTable]:
    """Start the server, show each player their code, and stop the server when the game ends.

    ``kept``: the tokens a resumed series was served with (read by :func:`~voice_earl.table.phones.tokens.kept_tokens`);
    ``laptop_listens``: whether the laptop's microphone hears the table (a phone that cannot listen says so).
    """
    names = settings.names
    tokens = kept or PhoneTokens.new(names)
    port = args.port if args.port is not None else tokens.port or DEFAULT_PORT
    host, note = listen_host(args, kept, series_id)
    humans = [seat for seat, s in enumerate(settings.seats) if s.kind is SeatKind.HUMAN]
    mics = wants_mics(args)
    certificate = None
    if mics:
        from voice_earl.table.phones.tls import certificate_for

        certificate = certificate_for(host)
    limits = DEFAULT_MIC_LIMITS if mics else None
    with serve_phones(names, humans, tokens, host, port, mics=limits, certificate=certificate) as phones:
        phones.server.laptop_listens = laptop_listens
        served = tokens.served_at(host, phones.server.port)
        if series_id is not None:
            store.keep_phones(series_id, kept_record(served, mics))
        print_summary(phones.server, humans, note, sys.stderr)
        if at_terminal(sys.stdout, sys.stdin):
            question = QUIT_BEFORE_PLAY if series_id is None else QUIT_QUESTION
            if not show_codes(phones.server, humans, sys.stdout, sys.stdin, question):
                raise PlayersQuit
        yield PhonesAtTable(phones, served, store, humans, args)
