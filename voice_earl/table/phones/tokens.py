"""The unguessable part of each player's address, kept with the series so that ``play --resume``
serves the same addresses.

>>> tokens = PhoneTokens.new(("Ann", "Ben"))
>>> len(tokens.players), len(tokens.players[0]) >= 22
(2, True)
>>> tokens.seat_of(tokens.players[1]), tokens.seat_of("not-a-token")
(1, None)
>>> PhoneTokens.from_record(tokens.to_record(), ("Ann", "Ben")) == tokens
True
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TOKEN_BYTES = 16  # 128 bits, as secrets.token_urlsafe reads them: 22 characters


@dataclass(frozen=True)
class PhoneTokens:
    """One token per seat (in seat order) and one for the join page that shows everyone's code."""

    players: tuple[str, ...]
    join: str
    port: int | None = None  # where they were served last: a resumed series listens there again

    @classmethod
    def new(cls, names: Sequence[str]) -> PhoneTokens:
        return cls(tuple(secrets.token_urlsafe(TOKEN_BYTES) for _ in names), secrets.token_urlsafe(TOKEN_BYTES))

    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is. Every token is compared, each in constant time, so the
        time taken says nothing about how close a guess came."""
        found = None
        given = token.encode("utf-8", "replace")
        for seat, known in enumerate(self.players):
            if hmac.compare_digest(given, known.encode()):
                found = seat
        return found

    def is_join(self, token: str) -> bool:
        return hmac.compare_digest(token.encode("utf-8", "replace"), self.join.encode())

    def with_port(self, port: int) -> PhoneTokens:
        return PhoneTokens(self.players, self.join, port)

    def to_record(self) -> dict[str, Any]:
        return {"players": list(self.players), "join": self.join, "port": self.port}

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None, names: Sequence[str]) -> PhoneTokens | None:
        """Tokens kept with a series, or None when there are none fit for these players."""
        if not record:
            return None
        players = record.get("players")
        join = record.get("join")
        if not isinstance(players, list) or len(players) != len(names) or not isinstance(join, str):
            return None
        if not all(isinstance(token, str) and len(token) >= 22 for token in [*players, join]):
            return None
        port = record.get("port")
        return cls(tuple(players), join, port if isinstance(port, int) and 0 < port < 65536 else None)
