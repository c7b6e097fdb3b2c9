"""Chant sets by name, or read from a custom TOML wording.

>>> chant_set("earl").name
'earl'
"""

from __future__ import annotations

import sys
from pathlib import Path

from voice_earl.errors import UsageError
from voice_earl.game.chants import BUILTIN, ChantSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def chant_set(name_or_path: str) -> ChantSet:
    """A built-in chant set by name, or a custom one from a TOML file path."""
    if name_or_path in BUILTIN:
        return BUILTIN[name_or_path]
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        return load_chant_file(path)
    known = ", ".join(sorted(BUILTIN))
    raise UsageError(f"unknown chant set {name_or_path!r}: use one of {known}, or a path to a .toml file")


def load_chant_file(path: Path) -> ChantSet:
    """Load a custom wording (Hiccup / Earl's Court, or another language).

    The file holds ``name`` (optional) and ``lines``: a list of four strings, where
    ``{rank}`` stands for the rank's word. ``alternates`` (optional) is a table from
    position ("1".."4") to a list of other accepted wordings.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: no such chant file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot read the chant file ({error})") from None
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path}: not valid TOML ({error})") from None
    return chant_from_table(str(path), data, path.stem)


def chant_from_table(path: str, data: dict[str, object], default_name: str = "custom") -> ChantSet:
    """A chant set from its table (a chant file's, or one saved with a series); ``path`` names it in errors."""
    name = data.get("name", default_name)
    lines = data.get("lines")
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"{path}: 'name' must be a non-empty string")
    if not isinstance(lines, list) or len(lines) != 4 or not all(isinstance(x, str) and x.strip() for x in lines):
        raise UsageError(f"{path}: 'lines' must be a list of exactly four non-empty strings")
    if "{rank}" not in lines[0]:
        raise UsageError(f"{path}: the first line (the lead) must contain {{rank}}, so the lead names its rank")
    unknown = set(data) - {"name", "lines", "alternates"}
    if unknown:
        raise UsageError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}: allowed are name, lines, alternates")
    alternates: list[tuple[str, ...]] = [(), (), (), ()]
    table = data.get("alternates", {})
    if not isinstance(table, dict):
        raise UsageError(f"{path}: 'alternates' must be a table such as alternates.1 = [\"...\"]")
    for key, texts in table.items():
        if key not in {"1", "2", "3", "4"}:
            raise UsageError(f"{path}: alternates key {key!r} must be a position 1-4")
        if not isinstance(texts, list) or not all(isinstance(x, str) and x.strip() for x in texts):
            raise UsageError(f"{path}: alternates.{key} must be a list of non-empty strings")
        alternates[int(key) - 1] = tuple(texts)
    return ChantSet(name=name.strip(), lines=(lines[0], lines[1], lines[2], lines[3]), alternates=tuple(alternates))
