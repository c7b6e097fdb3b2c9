"""Writing the settings file: ``voice-earl config set`` and ``unset``.

Each change reads the file, changes one key with tomlkit (comments and layout stay as the person wrote
them) and replaces the file atomically, all under a lock beside it, so that changes made at the same
moment by several commands are all kept.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.keep.config import (
    KEYS_BY_NAME,
    Key,
    config_path,
    find_key,
    parse_value,
    read_text,
    table_of,
    unknown_key_message,
)
from voice_earl.keep.file_lock import held
from voice_earl.keep.toml_text import new_document, parse_document, remove_from, set_in

if TYPE_CHECKING:
    from tomlkit.toml_document import TOMLDocument

LIST_KEYS = frozenset({"players"})  # the keys that take several values


def set_value(name: str, value: str | Sequence[str], path: Path | None = None) -> object:
    """Check the value(s) for key ``name`` and write it to the file; returns the value as stored.

    ``players`` takes several values, one name each (or one value of comma-separated names).
    """
    key = find_key(name)
    parsed = parse_value(key, _given(key, value))
    stored: object = parsed
    if isinstance(parsed, Path) or (key.name == "chant" and Path(str(parsed)).suffix == ".toml"):
        stored = str(Path(os.path.expanduser(str(parsed))).resolve())  # the file must not depend on the cwd
    elif isinstance(parsed, tuple):
        stored = list(parsed)
    _update_file(path, key.path, stored)
    return stored


def _given(key: Key, value: str | Sequence[str]) -> object:
    if isinstance(value, str):
        return value
    values = list(value)
    if len(values) == 1:
        return values[0]
    if key.name not in LIST_KEYS:
        raise UsageError(f"{key.name} takes one value, not {len(values)}: quote a value that holds spaces")
    return values


def unset_value(name: str, path: Path | None = None) -> bool:
    """Remove ``name`` from the file (an unknown key too, to clean it up); False if it was not set."""
    removed = _update_file(path, tuple(name.split(".")), None)
    if not removed and name not in KEYS_BY_NAME:
        raise UsageError(unknown_key_message(name))
    return removed


def _update_file(path: Path | None, dotted: tuple[str, ...], value: object | None) -> bool:
    """Set (or with ``None`` remove) one key; False when there was nothing to remove."""
    path = config_path() if path is None else path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        # mkdir says "File exists" of the file that stands where the folder should be: name it instead
        blocked = isinstance(error, FileExistsError | NotADirectoryError)
        reason = "a file stands in the way of the folder" if blocked else error.strerror
        raise VoiceEarlError(f"{path}: cannot write the config file: cannot make {path.parent} ({reason})") from None
    with held(path.with_name(f".{path.name}.lock")):
        document = _document(path)
        if value is None:
            if not remove_from(document, dotted):
                return False
        else:
            set_in(document, dotted, value)
        write_atomically(path, document.as_string())
    return True


def _document(path: Path) -> TOMLDocument:
    """The file as a document that keeps its comments; a file that is not valid TOML is refused (naming its
    line), never overwritten."""
    text = read_text(path)
    if text is None:
        return new_document()
    table_of(path, text)
    try:
        return parse_document(text)
    except ValueError as error:
        raise VoiceEarlError(f"{path}: not valid TOML: {error}") from None


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` (in a folder that exists) with ``text``: a reader sees the old file or the new one."""
    try:
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
