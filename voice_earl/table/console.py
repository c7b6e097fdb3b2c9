"""The consoles the game prints with: every string handed to one is text, never rich markup.

Names, chants and paths are typed by people. Read as markup, ``[/]`` in a player's name makes rich raise at
the first frame, ``[dad]`` vanishes, ``Jo [the host]`` loses its end and ``[blink red]Ben`` blinks; read for
emoji codes, ``:smile:`` becomes a face. Every console the game makes comes from here, with both off, so a
table cell, a heading or a line reaches the screen exactly as typed; styles are given with
:class:`rich.text.Text` and never written inside the text.

>>> import io
>>> console = text_console(file=io.StringIO(), width=40)
>>> console.print("[/] Jo [the host] :smile:")
>>> console.file.getvalue()
'[/] Jo [the host] :smile:\\n'
"""

from __future__ import annotations

from typing import Any

from rich.console import Console


class _TextConsole(Console):
    def on_broken_pipe(self) -> None:
        """The reader went away (``| head``): the command line stops quietly and says so with status 0, as
        for the output it prints without rich (rich's own way exits with 1)."""
        self.quiet = True
        raise BrokenPipeError


def text_console(**options: Any) -> Console:
    """A rich console (``options`` as :class:`rich.console.Console` takes them) that prints strings as text."""
    return _TextConsole(markup=False, emoji=False, **options)
