"""TOML text for the settings file, through tomlkit, so that a person's comments and layout survive a change.

>>> print(toml_value(["Ann", 'Bo "B"']))
["Ann", "Bo \\"B\\""]
>>> document = parse_document('# my table\\nprofile = "hoyle"  # the default\\n')
>>> set_in(document, ("narrator", "rate"), 150)
>>> print(document.as_string(), end="")
# my table
profile = "hoyle"  # the default
<BLANKLINE>
[narrator]
rate = 150
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Table
from tomlkit.toml_document import TOMLDocument

HEADER = "voice-earl settings. Change them with 'voice-earl config set KEY VALUE', or edit this file."


def toml_value(value: object) -> str:
    """One value as TOML writes it (strings quoted and escaped, lists in brackets), for messages; what is
    nested deeper than a message could show is written ``"…"``.

    >>> deep: list[object] = []
    >>> for _ in range(1000):
    ...     deep = [deep]
    >>> toml_value([[["Ann"]]]), toml_value(deep) == "[" * 32 + '"…"' + "]" * 32
    ('[[["Ann"]]]', True)
    """
    shown = _plain(value, _SHOWN_LEVELS)
    try:
        return tomlkit.item(shown).as_string()
    except (TOMLKitError, TypeError, ValueError):
        return tomlkit.item(str(shown)).as_string()


_SHOWN_LEVELS = 32  # tomlkit writes a value by recursion: a file's value may be nested a thousand levels deep


def _plain(value: object, levels: int | None = None) -> object:
    """``value`` in the types tomlkit writes; with ``levels``, no deeper than that."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list | Mapping) and levels == 0:
        return "…"
    deeper = None if levels is None else levels - 1
    if isinstance(value, tuple | list):
        return [_plain(item, deeper) for item in value]
    if isinstance(value, Mapping):
        return {str(key): _plain(item, deeper) for key, item in value.items()}
    return value


def new_document() -> TOMLDocument:
    document = tomlkit.document()
    document.add(tomlkit.comment(HEADER))
    return document


def parse_document(text: str) -> TOMLDocument:
    """The file's text as a document that keeps its comments (``ValueError`` if it is not TOML)."""
    try:
        return tomlkit.parse(text)
    except TOMLKitError as error:
        raise ValueError(str(error)) from None


def set_in(document: TOMLDocument, dotted: tuple[str, ...], value: object) -> None:
    """Set ``a.b`` to ``value``, making the table ``[a]`` if the file has none."""
    parent: Any = document
    for part in dotted[:-1]:
        if part not in parent or not isinstance(parent[part], Mapping):
            parent[part] = tomlkit.table()
        parent = parent[part]
    parent[dotted[-1]] = _plain(value)


def remove_from(document: TOMLDocument, dotted: tuple[str, ...]) -> bool:
    """Remove ``a.b`` (and the table ``[a]`` when it is left empty); False if it was not there."""
    parents: list[Any] = [document]
    for part in dotted[:-1]:
        child = parents[-1].get(part)
        if not isinstance(child, Mapping):
            return False
        parents.append(child)
    if dotted[-1] not in parents[-1]:
        return False
    del parents[-1][dotted[-1]]
    for depth in range(len(dotted) - 1, 0, -1):
        table = parents[depth]
        if isinstance(table, Table | Mapping) and not table:
            del parents[depth - 1][dotted[depth - 1]]
    return True
