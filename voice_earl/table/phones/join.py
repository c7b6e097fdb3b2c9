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
from voice_earl.table.screen import TableScreen
from voice_earl.table.terminal import cbreak, key_waiting, read_waiting_key
from voice_earl.table.turns import QUIT_QUESTION, confirm_quit, quits

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


def show_codes(
    server: PhoneServer, seats: Sequence[int], out: TextIO, keys: TextIO, question: str = QUIT_QUESTION
) -> bool:
    """Show each player their code on the terminal, one at a time, until they connect or a key is pressed.
    x or Esc asks ``question`` first, as everywhere in the game: False when the players quit."""
    console = text_console(file=out)
    with cbreak(keys), Live(console=console, screen=True, auto_refresh=False) as live:
        for number, seat in enumerate(seats, start=1):

            def show(note: str = "", seat: int = seat, number: int = number) -> None:
                live.update(code_screen(server, seat, number, len(seats), note), refresh=True)

            show()
            while not server.joined(seat):
                if not key_waiting(keys, _POLL_S):
                    continue
                key = read_waiting_key(keys)
                if key is None or not quits(key):
                    break
                if confirm_quit(keys, show, question):
                    return False
                show()  # the same player's code again
    return True


def code_screen(server: PhoneServer, seat: int, number: int, count: int, note: str = "") -> Group:
    """One player's code and address; ``note``: a line below them (the quit question)."""
    name = server.names[seat]
    url = server.url(seat)
    title = Text(_("{player}, scan this").format(player=name), style="bold")
    step = _("phone {number} of {count} · any key for the next player · x quit").format(number=number, count=count)
    code: Text | Table = qr.terminal_code(url)
    notes = certificate_lines(server)
    if notes:  # beside the code: below it, they would not fit on 24 lines
        code = Table.grid(padding=(0, 2))
        code.add_row(qr.terminal_code(url), Group(*notes))
    return Group(title, code, Text(url, style="bold"), Text(note or step, style="dim"))


class JoinOnScreen:
    """The join page's address and QR code over the table screen, at the join key: a phone or a tablet
    that comes late joins mid-game (the codes shown before the first deal are gone by then)."""

    def __init__(self, server: PhoneServer, screen: TableScreen) -> None:
        self.server = server
        self.screen = screen
        self.shown = False

    def toggle(self) -> None:
        if not self.screen.is_live:  # a plain screen prints the address, and has nothing to take away
            self.screen.print_line(_("join page with every code: {url}").format(url=self.server.join_url()))
            return
        self.shown = not self.shown
        self.screen.show_over(join_screen(self.server) if self.shown else None)


def join_screen(server: PhoneServer) -> Group:
    """The join page's code and address, with what to do once it is scanned."""
    url = server.join_url()
    title = Text(_("Join page: each player opens their own code from it"), style="bold")
    code: Text | Table = qr.terminal_code(url)
    notes = certificate_lines(server)
    if notes:  # beside the code, as on the code screens
        code = Table.grid(padding=(0, 2))
        code.add_row(qr.terminal_code(url), Group(*notes))
    return Group(title, code, Text(url, style="bold"), Text(_("any key: back to the game"), style="dim"))


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
