"""What keys do beside the moves, for every source that reads them (Silent Earl's keys, and the keys
beside the voice): the phones' join code shown over the table, and keys typed out of turn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from voice_earl.i18n import N_

JOIN_KEY = "c"  # with phones: the join page's address and code over the table (no move uses c)
JOIN_HELP = N_("c join code for a phone")


class JoinCode(Protocol):
    """The phones' join page, its address and QR code, shown over the table at a key (play --phones)."""

    shown: bool

    def toggle(self) -> None: ...


def toggled_join_code(join_code: JoinCode | None, key: str) -> bool:
    """The join key shows the join code over the table, and the next key (whichever) hides it again: True
    when ``key`` did one or the other, and is spent."""
    if join_code is None or not (join_code.shown or key.lower() == JOIN_KEY):
        return False
    join_code.toggle()
    return True


@dataclass
class OutOfTurn:
    """Whether other seats moved since a source was last asked, without asking it: a bot's turn (or a phone's
    tap). Moves typed meanwhile were typed out of turn, and do nothing (``turns.kept_keys``)."""

    asked_at: int = -1  # the move number of the last turn the source was asked for

    def others_moved(self, move_number: int) -> bool:
        """Asked for the turn after ``move_number`` moves: whether others moved since the last time."""
        moved = move_number > self.asked_at + 1
        self.asked_at = move_number
        return moved
