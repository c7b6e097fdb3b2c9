"""aiohttp's handler of a connection, with two answers of the phones' own.

- A malformed request (a request line or a header aiohttp cannot read, HTTP/2's preface) is answered
  by aiohttp itself, before any route or middleware, with ``Server: Python/3.x aiohttp/3.x`` and the
  request line echoed in the text. Here it gets a short page that names nothing: the status's word,
  and the ``Server`` header every other answer carries.
- RFC 6455 §5.1: a client masks every frame it sends, and a server must close the connection when a
  frame is not masked. aiohttp reads such frames all the same; here the socket's parser gets the
  client's bytes only through :class:`MaskedFrames`, and a frame that is not masked closes the
  connection with a Close frame saying 1002 (protocol error).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, cast

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

log = logging.getLogger(__name__)

SERVER_NAME = "voice-earl"  # the Server header of every answer: no library, no version
PROTOCOL_ERROR_CLOSE = b"\x88\x02\x03\xea"  # a Close frame (a server's frames are not masked) saying 1002
_MASK_BIT = 0x80
_EXTENDED_LENGTH = {126: 2, 127: 8}  # a 7-bit length of 126 or 127: the length follows in 2 or 8 bytes
_MASK_KEY = 4


def bare_answer(status: int) -> web.Response:
    """A short page that says the status and nothing else, and closes the connection."""
    try:
        word = HTTPStatus(status).phrase
    except ValueError:
        word = "Error"
    response = web.Response(status=status, text=word, headers={"Server": SERVER_NAME})
    response.force_close()
    return response


class MaskedFrames:
    """Follows the headers of the frames in what a client sends; says when a frame is not masked."""

    def __init__(self) -> None:
        self._head = bytearray()  # the header being read (at most 14 bytes)
        self._payload_left = 0

    def all_masked(self, data: bytes) -> bool:
        """Whether every frame that begins in ``data`` is masked (the rest is told by the next bytes)."""
        at = 0
        while at < len(data):
            if self._payload_left:
                step = min(self._payload_left, len(data) - at)
                self._payload_left -= step
                at += step
                continue
            self._head.append(data[at])
            at += 1
            if not self._read_head():
                return False
        return True

    def _read_head(self) -> bool:
        """Take in the header read so far; False when it is a frame that is not masked."""
        head = self._head
        if len(head) < 2:
            return True
        if not head[1] & _MASK_BIT:
            return False
        length = head[1] & 0x7F
        extended = _EXTENDED_LENGTH.get(length, 0)
        if len(head) < 2 + extended + _MASK_KEY:
            return True
        self._payload_left = int.from_bytes(head[2 : 2 + extended], "big") if extended else length
        head.clear()
        return True


class _MaskedOnly:
    """The socket's parser behind :class:`MaskedFrames`: a frame that is not masked never reaches it."""

    def __init__(self, parser: Any, refuse: Callable[[], None]) -> None:
        self.parser = parser
        self.refuse = refuse
        self.frames = MaskedFrames()
        self.refused = False

    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        if not self.refused and self.frames.all_masked(bytes(data)):
            result: tuple[bool, bytes] = self.parser.feed_data(data)
            return result
        if not self.refused:
            self.refused = True
            self.refuse()
        return True, b""  # as aiohttp's parser says after an error: read no more

    def feed_eof(self) -> None:
        self.parser.feed_eof()


class PhonesHandler(RequestHandler):
    """aiohttp's handler of one connection, with the phones' answer to a malformed request and to a
    socket frame that is not masked."""

    __slots__ = ()

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        super().handle_error(request, status, exc, message)  # one line in the log; raises once an answer began
        return bare_answer(status)

    def set_parser(self, parser: Any, *args: Any, **kwargs: Any) -> None:
        """A socket's frames are read from here on: through the check that each is masked."""
        super().set_parser(cast(Any, _MaskedOnly(parser, self._unmasked)), *args, **kwargs)

    def _unmasked(self) -> None:
        log.info("a phone's socket sent a frame that is not masked: closed (1002)")
        transport = self.transport
        if isinstance(transport, asyncio.WriteTransport) and not transport.is_closing():
            transport.write(PROTOCOL_ERROR_CLOSE)
            transport.close()


def handler_maker(server: web.Server) -> Callable[[], PhonesHandler]:
    """Makes each connection's handler as aiohttp's ``server`` would make its own, with its settings."""
    loop = asyncio.get_running_loop()
    settings: dict[str, Any] = server._kwargs  # what aiohttp's Server.__call__ hands each RequestHandler
    return lambda: PhonesHandler(server, loop=loop, **settings)
