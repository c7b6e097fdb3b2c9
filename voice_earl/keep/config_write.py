"""Writing the settings file: ``voice-earl config set`` and ``unset``, atomically, as TOML."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.keep.config import KEYS_BY_NAME, config_path, find_key, parse_value, read_table, unknown_key_message
from voice_earl.keep.toml_text import dump_toml


def set_value(name: str, value: str, path: Path | None = None) -> object:
    """Check ``value`` for key ``name`` and write it to the file; returns the value as stored."""
    key = find_key(name)
    parsed = parse_value(key, value)
    stored: object = parsed
    if isinstance(parsed, Path) or (key.name == "chant" and Path(str(parsed)).suffix == ".toml"):
        stored = str(Path(os.path.expanduser(str(parsed))).resolve())  # the file must not depend on the cwd
    elif isinstance(parsed, tuple):
        stored = list(parsed)
    _update_file(path, key.path, stored)
    return stored


def unset_value(name: str, path: Path | None = None) -> bool:
    """Remove ``name`` from the file (an unknown key too, to clean it up); False if it was not set."""
    path = config_path() if path is None else path
    table = read_table(path)
    dotted = tuple(name.split("."))
    parent = _parent_table(table, dotted, create=False)
    if parent is None or dotted[-1] not in parent:
        if name not in KEYS_BY_NAME:
            raise UsageError(unknown_key_message(name))
        return False
    _update_file(path, dotted, None)
    return True


def _parent_table(
    table: dict[str, object], dotted: tuple[str, ...], create: bool
) -> dict[str, object] | None:
    for part in dotted[:-1]:
        child = table.get(part)
        if not isinstance(child, dict):
            if not create:
                return None
            child = table[part] = {}
        table = child
    return table


def _update_file(path: Path | None, dotted: tuple[str, ...], value: object | None) -> None:
    path = config_path() if path is None else path
    table = read_table(path)  # a file that is not valid TOML is refused, never overwritten
    parent = _parent_table(table, dotted, create=value is not None)
    assert parent is not None
    if value is None:
        parent.pop(dotted[-1], None)
        if len(dotted) > 1 and not parent:
            table.pop(dotted[0], None)
    else:
        parent[dotted[-1]] = value
    write_atomically(path, dump_toml(table))


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that a reader sees the old file or the new one, never half."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            os.chmod(temp_name, mode)  # mkstemp makes it private; keep the file's own mode
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp_name, path)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise VoiceEarlError(f"{path}: cannot write the config file ({error})") from None
