"""How fast and how many: the phones' server's limits on requests, taps and connections, and the
token bucket that keeps them."""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """How fast clients may go: requests per client address, taps per connection (each with a burst)."""

    requests_per_second: float = 20.0
    request_burst: float = 60.0
    taps_per_second: float = 4.0  # a person taps far more slowly
    tap_burst: float = 8.0
    connections_per_address: int = 32  # a phone's browser opens about 8 (see doors.py)
    connections_in_all: int = 256  # at most (see doors.py): well under the usual 1,024 descriptors
    header_timeout: float = 10.0  # seconds a connection may take to send a whole request, or stay idle


DEFAULT_LIMITS = Limits()


class Bucket:
    """A token bucket: ``rate`` actions a second, ``burst`` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    def allow(self, cost: float = 1.0) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True
