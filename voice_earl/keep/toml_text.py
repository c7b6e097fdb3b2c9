"""TOML text for the settings file: tables, keys and values written the way TOML reads them back.

>>> print(toml_value(["Ann", 'Bo "B"']))
["Ann", "Bo \\"B\\""]
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from pathlib import Path
from typing import cast

HEADER = "# voice-earl settings. Change them with 'voice-earl config set KEY VALUE'.\n"


def dump_toml(table: Mapping[str, object]) -> str:
    """A TOML document for ``table``: plain values first, then one ``[table]`` per sub-table.

    >>> print(dump_toml({"narrator": {"rate": 150}, "profile": "hoyle"}), end="")
    # voice-earl settings. Change them with 'voice-earl config set KEY VALUE'.
    profile = "hoyle"
    <BLANKLINE>
    [narrator]
    rate = 150
    """
    lines = [HEADER.rstrip("\n")]
    lines += _dump_body(table, ())
    return "\n".join(lines) + "\n"


def _dump_body(table: Mapping[str, object], prefix: tuple[str, ...]) -> list[str]:
    lines = [f"{toml_key(k)} = {toml_value(v)}" for k, v in table.items() if not _is_table(v)]
    for name, value in table.items():
        if _is_table(value):
            header = ".".join(toml_key(part) for part in (*prefix, name))
            lines += ["", f"[{header}]", *_dump_body(cast(Mapping[str, object], value), (*prefix, name))]
    return lines


def _is_table(value: object) -> bool:
    return isinstance(value, Mapping)


def toml_key(name: str) -> str:
    bare = name and all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in name)
    return name if bare else toml_value(name)


def toml_value(value: object) -> str:
    """One value in TOML syntax (strings, numbers, booleans, dates, arrays and inline tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str | Path):
        return _toml_string(str(value))
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{toml_key(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    return _toml_string(str(value))


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_string(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
