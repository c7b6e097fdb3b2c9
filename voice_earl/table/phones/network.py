"""The laptop's address on the local network, found without sending anything anywhere."""

from __future__ import annotations

import ipaddress
import socket

LOOPBACK = "127.0.0.1"
# A private address used only to ask the routing table which interface the local network is on:
# "connecting" a UDP socket sends no packet.
_PROBE = ("10.255.255.255", 9)


def lan_address() -> str | None:
    """The address of the interface that reaches the local network, or None when there is none."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE)
            host = str(probe.getsockname()[0])
    except OSError:
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if address.is_loopback or address.is_unspecified or address.is_link_local:
        return None
    return host


def url_host(host: str) -> str:
    """A host as it goes in a URL (IPv6 addresses in brackets).

    >>> url_host("192.168.1.5"), url_host("::1")
    ('192.168.1.5', '[::1]')
    """
    return f"[{host}]" if ":" in host else host
