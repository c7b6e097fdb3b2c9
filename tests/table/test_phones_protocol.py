"""What the phones' server answers to a client that breaks HTTP or the WebSocket protocol, over raw sockets on
127.0.0.1: a malformed request gets a short page that names neither the server's software nor the request, and
a socket frame that is not masked closes the connection with 1002 (RFC 6455 §5.1)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import socket

import pytest
from support.phones_table import FAST, MALFORMED, PhoneTable, phone_table

from voice_earl.table.phones.handler import MaskedFrames

TEXT, CLOSE = 0x1, 0x8
PING = json.dumps({"type": "ping"}).encode()


def port_of(table: PhoneTable) -> int:
    return int(table.url(0).rsplit(":", 1)[1].split("/", 1)[0])


def whole_answer(port: int, request: bytes) -> bytes:
    """The server's answer to ``request``: its head and a body as long as its Content-Length says."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):  # it may answer before the end
            sock.sendall(request)
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while not _whole(answer) and (piece := sock.recv(4096)):
                answer += piece
    return answer


def _whole(answer: bytes) -> bool:
    head, found, body = answer.partition(b"\r\n\r\n")
    length = re.search(rb"\r\nContent-Length: (\d+)", head)
    return bool(found and length and len(body) >= int(length[1]))


def test_a_malformed_request_gets_a_short_page_that_names_neither_the_server_nor_the_request() -> None:
    with phone_table(limits=FAST) as table:
        answers = {kind: whole_answer(port_of(table), request) for kind, request in MALFORMED.items()}
    for kind, answer in answers.items():
        head, _, body = answer.partition(b"\r\n\r\n")
        status, *headers = head.split(b"\r\n")
        word = status.split(b" ", 2)[2]
        assert status.split(b" ")[1][:1] == b"4", (kind, status)
        assert b"Server: voice-earl" in headers, (kind, headers)
        assert b"aiohttp" not in answer.lower() and b"python" not in answer.lower(), (kind, answer)
        assert body in (b"", word), (kind, body)  # its word, and not a byte of the request


def frame(payload: bytes, opcode: int = TEXT, masked: bool = True) -> bytes:
    """One whole frame from a client (short payloads only)."""
    assert len(payload) < 126
    if not masked:
        return bytes([0x80 | opcode, len(payload)]) + payload
    key = os.urandom(4)
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def handshake(table: PhoneTable, seat: int = 0) -> bytes:
    path = table.url(seat).split("/", 3)[3]
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET /{path}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


class ServerFrames:
    """The frames the server sends on a socket whose handshake was sent, read one at a time."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""
        head = self._until(lambda: b"\r\n\r\n" in self.buffer)
        assert head and self.buffer.startswith(b"HTTP/1.1 101"), self.buffer[:200]
        self.buffer = self.buffer.split(b"\r\n\r\n", 1)[1]

    def _until(self, enough: object) -> bool:
        assert callable(enough)
        while not enough():
            try:
                piece = self.sock.recv(4096)
            except ConnectionResetError:
                piece = b""
            if not piece:
                return False
            self.buffer += piece
        return True

    def next(self) -> tuple[int, bytes] | None:
        """The next frame's opcode and payload; None once the server has closed the connection."""
        if not self._until(lambda: len(self.buffer) >= 2):
            return None
        length, at = self.buffer[1] & 0x7F, 2
        if length >= 126:
            size = 2 if length == 126 else 8
            if not self._until(lambda: len(self.buffer) >= 2 + size):
                return None
            length, at = int.from_bytes(self.buffer[2 : 2 + size], "big"), 2 + size
        if not self._until(lambda: len(self.buffer) >= at + length):
            return None
        opcode, payload = self.buffer[0] & 0x0F, self.buffer[at : at + length]
        self.buffer = self.buffer[at + length :]
        return opcode, payload

    def after_state(self) -> list[tuple[int, bytes]]:
        """Every frame up to the server's closing the connection, states aside."""
        found = []
        while (got := self.next()) is not None:
            if got[0] != TEXT or json.loads(got[1])["type"] != "state":
                found.append(got)
        return found

    def reply(self) -> dict[str, object]:
        """The next text message that is not a state."""
        while (got := self.next()) is not None:
            if got[0] == TEXT and (message := json.loads(got[1]))["type"] != "state":
                assert isinstance(message, dict)
                return message
        raise AssertionError("the server closed the socket")


def test_a_socket_frame_that_is_not_masked_closes_the_connection_with_1002() -> None:
    with phone_table(limits=FAST) as table, socket.create_connection(("127.0.0.1", port_of(table)), timeout=10) as sock:
        sock.sendall(handshake(table))
        frames = ServerFrames(sock)
        sock.sendall(frame(PING))
        assert frames.reply() == {"type": "pong"}  # masked, as a browser sends them: answered
        sock.sendall(frame(PING, masked=False))
        closing = frames.after_state()
    assert closing == [(CLOSE, (1002).to_bytes(2, "big"))]  # no pong: a Close saying 1002, then the end


def test_a_frame_that_is_not_masked_sent_with_the_handshake_closes_the_connection_too() -> None:
    with phone_table(limits=FAST) as table, socket.create_connection(("127.0.0.1", port_of(table)), timeout=10) as sock:
        sock.sendall(handshake(table) + frame(PING, masked=False))
        closing = ServerFrames(sock).after_state()
    assert closing == [(CLOSE, (1002).to_bytes(2, "big"))]


@pytest.mark.parametrize("length", [0, 5, 125, 126, 300, 65_535, 65_536, 70_000])
def test_frames_are_followed_across_any_split_of_the_bytes(length: int) -> None:
    masked = bytes([0x82]) + _length_bytes(length) + bytes(4) + bytes(length)
    unmasked = bytes([0x82, 3]) + b"abc"
    stream = masked * 2 + unmasked
    for cut in {1, 2, 3, 7, 64, 4096}:
        frames = MaskedFrames()
        verdicts = [frames.all_masked(stream[at : at + cut]) for at in range(0, len(stream), cut)]
        assert verdicts.index(False) == (2 * len(masked) + 1) // cut  # the piece with its unmasked second byte


def _length_bytes(length: int) -> bytes:
    """A masked frame's length field: 7 bits, or 126 and 2 bytes, or 127 and 8 bytes."""
    if length < 126:
        return bytes([0x80 | length])
    if length < 1 << 16:
        return bytes([0x80 | 126]) + length.to_bytes(2, "big")
    return bytes([0x80 | 127]) + length.to_bytes(8, "big")
