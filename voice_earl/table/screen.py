"""The table screen: the game as the players read it from across the table.

The game loop builds a :class:`TableSnapshot` after every change and hands it to a :class:`TableScreen`.
On a terminal the screen redraws one frame in place (rich ``Live`` on the alternate screen, refreshed only on
an update or when the terminal changes size, each frame overwriting the last without clearing); anywhere else
(a pipe, a file) it prints one plain line per update holding only what changed.

The frame is built by :func:`voice_earl.table.screen_layout.render` from the sections in
:mod:`voice_earl.table.screen_sections`.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from types import FrameType
from typing import Any

from rich.console import Console, RenderableType
from rich.live import Live
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

from voice_earl.i18n import _
from voice_earl.table.console import text_console
from voice_earl.table.screen_layout import TableView, render
from voice_earl.table.screen_sections import TableSnapshot, plain_parts

logger = logging.getLogger(__name__)

_NOTICE_MEMORY = 20
_REFRESH_INTERVAL = 0.1  # seconds between spinner frames while long work runs
_RESIZE_SETTLE_S = 0.05


# ---------------------------------------------------------------------------------------------------------
# The screen.


class TableScreen:
    """Shows snapshots: a live frame on a terminal, plain lines of what changed elsewhere.

    ``live=None`` picks the live frame when the console is an interactive terminal.
    """

    def __init__(self, console: Console | None = None, *, live: bool | None = None) -> None:
        self.console = console if console is not None else text_console()
        self.is_live = self.console.is_interactive if live is None else live
        self._live: Live | None = None
        self._alt_screen = False
        self._snapshot: TableSnapshot | None = None
        self._over: RenderableType | None = None
        self._notices: deque[str] = deque(maxlen=_NOTICE_MEMORY)
        self._progress: Progress | None = None
        self._printed: dict[str, str] = {}
        self._lock = threading.RLock()
        self._closed = False
        self._resized = threading.Event()
        self._previous_resize_handler: Callable[[int, FrameType | None], Any] | int | None = None

    def __enter__(self) -> TableScreen:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def update(self, snapshot: TableSnapshot) -> None:
        with self._lock:
            self._snapshot = snapshot
            if self.is_live:
                self._redraw()
            else:
                self._print_changes(snapshot)

    def print_line(self, text: str) -> None:
        """A narrator line or notice: above the frame's key help when live, a printed line otherwise."""
        with self._lock:
            if self.is_live:
                logger.debug("screen notice: %s", text)  # the frame keeps only the latest few
                self._notices.append(text)
                self._redraw()
            else:
                self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def show_over(self, shown: RenderableType | None) -> None:
        """On the live frame: ``shown`` in place of the table (the phones' join code) until it is taken away
        with None; the table goes on being updated underneath."""
        with self._lock:
            self._over = shown
            self._redraw()

    def progress(self, description: str, total: float | None = None) -> AbstractContextManager[Callable[[float], None]]:
        """Show long work (loading a model, synthesizing voices) while the block runs; yields ``advance(amount)``.

        ``total=None`` shows a spinner without a bar's end.
        """
        if self.is_live:
            return self._live_progress(description, total)
        if self.console.is_terminal:
            return self._terminal_progress(description, total)
        return self._plain_progress(description)

    def close(self) -> None:
        """Leave the live frame; the last frame stays printed on the normal screen."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._stop_following_resizes()
            if self._live is not None:
                self._live.stop()
                if self._alt_screen and self._snapshot is not None:
                    # One row fewer than the terminal so that the prompt after it does not scroll the title away.
                    self.console.print(render(self._snapshot), height=max(self.console.height - 1, 1))

    # -- live mode --------------------------------------------------------------------------------------

    def _view(self) -> TableView:
        return TableView(self._snapshot, tuple(self._notices), self._progress, self._over)

    def _redraw(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._live is None:
                self._live = Live(self._view(), console=self.console, auto_refresh=False, transient=False, screen=True)
                self._live.start()
                self._alt_screen = self.console.is_alt_screen
                self._follow_resizes()
            self._live.update(self._view(), refresh=True)

    def _follow_resizes(self) -> None:
        """Redraw whenever the terminal changes size, so that the frame always fills it.

        The terminal says so with SIGWINCH, whose handler may only be set on the main thread; the
        handler only wakes a thread that redraws, since a redraw may be under way where it interrupts.
        """
        if not hasattr(signal, "SIGWINCH") or threading.current_thread() is not threading.main_thread():
            return
        resized = self._resized
        previous = signal.getsignal(signal.SIGWINCH)

        def on_resize(signum: int, frame: FrameType | None) -> None:
            resized.set()
            if callable(previous):
                previous(signum, frame)

        signal.signal(signal.SIGWINCH, on_resize)
        self._previous_resize_handler = previous
        threading.Thread(target=self._redraw_on_resize, name="screen-resize", daemon=True).start()

    def _redraw_on_resize(self) -> None:
        while True:
            self._resized.wait()
            time.sleep(_RESIZE_SETTLE_S)  # a window dragged larger sends many: draw once it has settled
            self._resized.clear()
            if self._closed:
                return
            self._redraw()

    def _stop_following_resizes(self) -> None:
        if self._previous_resize_handler is not None:
            with contextlib.suppress(ValueError):  # not the main thread: the handler stays, and only wakes nobody
                signal.signal(signal.SIGWINCH, self._previous_resize_handler)
            self._previous_resize_handler = None
        self._resized.set()

    @contextlib.contextmanager
    def _live_progress(self, description: str, total: float | None) -> Iterator[Callable[[float], None]]:
        with self._lock:
            if self._progress is None:
                self._progress = _progress_display(self.console, auto_refresh=False)
            display = self._progress
            task = display.add_task(description, total=total)
        stop = threading.Event()
        ticker = threading.Thread(target=self._tick, args=(stop,), name="screen-progress", daemon=True)
        ticker.start()
        last_refresh = 0.0

        def advance(amount: float) -> None:
            nonlocal last_refresh
            display.advance(task, amount)
            if time.monotonic() - last_refresh >= _REFRESH_INTERVAL / 2:
                last_refresh = time.monotonic()
                self._redraw()

        try:
            self._redraw()
            yield advance
        finally:
            stop.set()
            ticker.join()
            with self._lock:
                display.remove_task(task)
                if not display.tasks:
                    self._progress = None
                self._redraw()

    def _tick(self, stop: threading.Event) -> None:
        while not stop.wait(_REFRESH_INTERVAL):
            self._redraw()

    # -- terminal without live frame, and plain mode ---------------------------------------------------------

    @contextlib.contextmanager
    def _terminal_progress(self, description: str, total: float | None) -> Iterator[Callable[[float], None]]:
        with _progress_display(self.console, auto_refresh=True, transient=True) as display:
            task = display.add_task(description, total=total)
            yield lambda amount: display.advance(task, amount)

    @contextlib.contextmanager
    def _plain_progress(self, description: str) -> Iterator[Callable[[float], None]]:
        self.console.print(f"{description}…", markup=False, highlight=False, soft_wrap=True)
        started = time.monotonic()
        yield lambda amount: None
        elapsed = time.monotonic() - started
        done = _("{task}: done ({seconds} s)").format(task=description, seconds=f"{elapsed:.1f}")
        self.console.print(done, markup=False, highlight=False, soft_wrap=True)

    def _print_changes(self, snapshot: TableSnapshot) -> None:
        parts = plain_parts(snapshot)
        changed = [text for name, text in parts.items() if text and self._printed.get(name) != text]
        self._printed = parts
        if changed:
            self.console.print(" | ".join(changed), markup=False, highlight=False, soft_wrap=True)


def _progress_display(console: Console, *, auto_refresh: bool, transient: bool = False) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=console,
        auto_refresh=auto_refresh,
        transient=transient,
    )
