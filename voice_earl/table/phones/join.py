"""Before the first deal: each player's address, as a QR code on the table screen one at a time
("Ann, scan this"; a key or Ann's first connection moves on), and as plain lines to type.

When standard output is not a terminal, each player's address is printed as one ``NAME URL``
line for scripts once the game's state is there to be read, and the game starts at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from rich.console import Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from voice_earl.i18n import _
from voice_earl.table.console import text_console
from voice_earl.table.phones import qr
from voice_earl.table.phones.pages import certificate_warning, fingerprint_line
from voice_earl.table.phones.server import PhoneServer
from voice_earl.table.terminal import cbreak, key_waiting, read_waiting_key

_POLL_S = 0.2


def address_lines(server: PhoneServer, seats: Sequence[int]) -> list[str]:
    """``NAME URL`` for each seat with a phone."""
    return [f"{server.names[seat]} {server.url(seat)}" for seat in seats]


def print_addresses(server: PhoneServer, seats: Sequence[int], out: TextIO) -> None:
    """One ``NAME URL`` line per player, for scripts."""
    for line in address_lines(server, seats):
        print(line, file=out, flush=True)


def at_terminal(out: TextIO, keys: TextIO) -> bool:
    return out.isatty() and keys.isatty()


def show_codes(server: PhoneServer, seats: Sequence[int], out: TextIO, keys: TextIO) -> None:
    """Show each player their code on the terminal, one at a time, until they connect or a key is pressed."""
    console = text_console(file=out)
    with cbreak(keys), Live(console=console, screen=True, auto_refresh=False) as live:
        for number, seat in enumerate(seats, start=1):
            live.update(code_screen(server, seat, number, len(seats)), refresh=True)
            while not server.joined(seat):
                if key_waiting(keys, _POLL_S):
                    read_waiting_key(keys)
                    break


def code_screen(server: PhoneServer, seat: int, number: int, count: int) -> Group:
    name = server.names[seat]
    url = server.url(seat)
    title = Text(_("{player}, scan this").format(player=name), style="bold")
    step = Text(
        _("phone {number} of {count} · any key for the next player").format(number=number, count=count), style="dim"
    )
    code: Text | Table = qr.terminal_code(url)
    notes = certificate_lines(server)
    if notes:  # beside the code: below it, they would not fit on 24 lines
        code = Table.grid(padding=(0, 2))
        code.add_row(qr.terminal_code(url), Group(*notes))
    return Group(title, code, Text(url, style="bold"), step)


def certificate_lines(server: PhoneServer) -> list[Text]:
    """Over HTTPS: what each phone's browser says the first time, and the certificate's fingerprint."""
    if server.certificate is None:
        return []
    return [Text(certificate_warning()), Text(fingerprint_line(server.certificate.fingerprint), style="dim")]


def print_summary(server: PhoneServer, seats: Sequence[int], note: str, err: TextIO) -> None:
    """Where the server listens and every address (on standard error: it stays in the scroll-back)."""
    print(f"voice-earl: {note}", file=err)
    for line in address_lines(server, seats):
        print(f"voice-earl:   {line}", file=err)
    print("voice-earl: " + _("join page with every code: {url}").format(url=server.join_url()), file=err, flush=True)
    for text in certificate_lines(server):
        print(f"voice-earl: {text.plain}", file=err, flush=True)
