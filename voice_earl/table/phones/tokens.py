"""The unguessable part of each player's address, kept with the series with the host and port they were
served on, so that ``play --resume`` serves the same addresses in the same place.

A record that is there but cannot be read whole is refused (``DamagedPhones``), never guessed at: it
would otherwise switch the phones on, or serve them somewhere else, with tokens nobody checked.

>>> tokens = PhoneTokens.new(("Ann", "Ben"))
>>> len(tokens.players), len(tokens.players[0]) >= 22
(2, True)
>>> tokens.seat_of(tokens.players[1]), tokens.seat_of("not-a-token")
(1, None)
>>> served = tokens.served_at("127.0.0.1", 8765)
>>> PhoneTokens.from_record(served.to_record(), ("Ann", "Ben")) == served
True
>>> PhoneTokens.from_record({"players": ["x"], "join": 3}, ("Ann", "Ben"))
Traceback (most recent call last):
...
voice_earl.table.phones.tokens.DamagedPhones: it holds 1 players' tokens for 2 players
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from voice_earl.errors import VoiceEarlError
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_values import JournalError

TOKEN_BYTES = 16  # 128 bits, as secrets.token_urlsafe reads them: 22 characters
_TOKEN = re.compile(r"[A-Za-z0-9_-]{22,64}")
_HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")


class DamagedPhones(VoiceEarlError):
    """A series' phones record that cannot be read whole; the text says what is wrong with it."""


@dataclass(frozen=True)
class PhoneTokens:
    """One token per seat (in seat order) and one for the join page that shows everyone's code."""

    players: tuple[str, ...]
    join: str
    port: int | None = None  # where they were served last: a resumed series listens there again
    host: str | None = None  # and on which address (None: not kept, by a voice-earl before it was)

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

    def served_at(self, host: str, port: int) -> PhoneTokens:
        return PhoneTokens(self.players, self.join, port, host)

    def to_record(self) -> dict[str, Any]:
        return {"players": list(self.players), "join": self.join, "port": self.port, "host": self.host}

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None, names: Sequence[str]) -> PhoneTokens | None:
        """Tokens kept with a series (None when none are kept); ``DamagedPhones`` for a record that is
        not whole: a token missing or malformed, one too few or too many, a port or host that is not one."""
        if record is None:
            return None
        players, join, port, host = (record.get(key) for key in ("players", "join", "port", "host"))
        if not isinstance(players, list):
            raise DamagedPhones("it holds no list of players' tokens")
        if len(players) != len(names):
            raise DamagedPhones(f"it holds {len(players)} players' tokens for {len(names)} players")
        if not isinstance(join, str) or not all(isinstance(t, str) and _TOKEN.fullmatch(t) for t in [*players, join]):
            raise DamagedPhones("a token in it is not one")
        if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536):
            raise DamagedPhones(f"its port {port!r} is not a port number")
        if host is not None and not _is_host(host):
            raise DamagedPhones(f"its host {host!r} is not an address")
        return cls(tuple(players), join, port, host)


def _is_host(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return bool(_HOST_NAME.fullmatch(value))
    return True


def kept_tokens(store: Store, series_id: int, names: Sequence[str]) -> PhoneTokens | None:
    """The phones' tokens kept with a series, or None; a damaged record is ``DamagedPhones``, naming the series."""
    try:
        return PhoneTokens.from_record(store.phones(series_id), names)
    except (DamagedPhones, JournalError) as error:
        why = str(error).removeprefix(f"series {series_id}'s phones record ").removeprefix("is ")
        raise DamagedPhones(f"series {series_id}'s phones record is damaged ({why})") from None
