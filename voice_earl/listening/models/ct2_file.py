"""CTranslate2's ``model.bin``, read and written as records of bytes: what a trained judge changes is
a set of its variables, shipped in the same layout and laid over the base model's.

The layout (CTranslate2's ``ModelSpec._serialize``, binary version 6), little-endian: the version
(uint32), the spec's name (a string: uint16 length with its NUL, then the bytes), its revision
(uint32), the number of variables (uint32), each variable as its name, its rank (uint8), its
dimensions (uint32 each), its type (uint8) and its bytes (uint32 count, then the data), and last the
aliases (uint32 count, each two strings: the alias and the variable it names).

>>> base = ModelFile(6, "WhisperSpec", 3, {"a": Variable((2,), 4, bytes(4)), "b": Variable((), 1, b"\\x01")}, {})
>>> patch = ModelFile(6, "WhisperSpec", 3, {"a": Variable((2,), 4, b"\\x00\\x3c\\x00\\x3c")}, {})
>>> laid_over(base, patch).variables["a"].data, laid_over(base, patch).variables["b"] == base.variables["b"]
(b'\\x00<\\x00<', True)
>>> parse_model(serialized(base)) == base
True
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, replace
from pathlib import Path

from voice_earl.errors import VoiceEarlError

BINARY_VERSION = 6
# CTranslate2's DataType ids and each one's size in bytes.
ITEM_BYTES = {0: 4, 1: 1, 2: 2, 3: 4, 4: 2, 5: 2}


class ModelFileError(VoiceEarlError):
    """A file that is not a CTranslate2 model.bin this code can read, or a patch that does not fit."""


@dataclass(frozen=True)
class Variable:
    shape: tuple[int, ...]
    dtype: int  # CTranslate2's DataType id (4: float16, 0: float32, 1: int8 ...)
    data: bytes


@dataclass(frozen=True)
class ModelFile:
    version: int
    spec: str
    revision: int
    variables: dict[str, Variable]
    aliases: dict[str, str]


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, count: int) -> bytes:
        if self.at + count > len(self.data):
            raise ModelFileError(f"the file ends early (at byte {self.at}, {count} more wanted)")
        part = self.data[self.at : self.at + count]
        self.at += count
        return part

    def number(self, form: str) -> int:
        return int(struct.unpack(f"<{form}", self.take(struct.calcsize(form)))[0])

    def string(self) -> str:
        raw = self.take(self.number("H"))
        if not raw.endswith(b"\0"):
            raise ModelFileError("a name in the file is not ended by a NUL")
        return raw[:-1].decode("utf-8")


def parse_model(data: bytes) -> ModelFile:
    """The records of a model.bin's bytes."""
    reader = _Reader(data)
    version = reader.number("I")
    if version != BINARY_VERSION:
        raise ModelFileError(f"binary version {version} (this reads version {BINARY_VERSION})")
    spec, revision = reader.string(), reader.number("I")
    variables = {}
    for _ in range(reader.number("I")):
        name = reader.string()
        shape = tuple(reader.number("I") for _ in range(reader.number("B")))
        dtype, size = reader.number("B"), reader.number("I")
        variables[name] = Variable(shape, dtype, reader.take(size))
    aliases = {}
    for _ in range(reader.number("I")):
        alias = reader.string()
        aliases[alias] = reader.string()
    if reader.at != len(data):
        raise ModelFileError(f"{len(data) - reader.at} bytes follow the aliases")
    return ModelFile(version, spec, revision, variables, aliases)


def read_model(path: Path) -> ModelFile:
    try:
        return parse_model(path.read_bytes())
    except ModelFileError as error:
        raise ModelFileError(f"{path} is not a CTranslate2 model.bin: {error}") from None


def serialized(model: ModelFile) -> bytes:
    parts = [struct.pack("<I", model.version), _string(model.spec), struct.pack("<II", model.revision,
                                                                                 len(model.variables))]
    for name, variable in model.variables.items():
        parts += [_string(name), struct.pack(f"<B{len(variable.shape)}I", len(variable.shape), *variable.shape)]
        parts += [struct.pack("<BI", variable.dtype, len(variable.data)), variable.data]
    parts.append(struct.pack("<I", len(model.aliases)))
    for alias, name in model.aliases.items():
        parts += [_string(alias), _string(name)]
    return b"".join(parts)


def _string(text: str) -> bytes:
    raw = text.encode("utf-8") + b"\0"
    return struct.pack("<H", len(raw)) + raw


def write_model(model: ModelFile, path: Path) -> None:
    """Writes ``model`` to ``path`` whole or not at all (a file beside it, then renamed)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.part")
    with open(partial, "wb") as file:
        file.write(serialized(model))
        file.flush()
        os.fsync(file.fileno())
    os.replace(partial, path)


def laid_over(base: ModelFile, patch: ModelFile) -> ModelFile:
    """``base`` with each of ``patch``'s variables in place of its own: the same spec, and each
    variable of the same shape and type as the one it replaces."""
    if (patch.spec, patch.revision) != (base.spec, base.revision):
        raise ModelFileError(f"the patch is for {patch.spec} {patch.revision}, the base is {base.spec} {base.revision}")
    variables = dict(base.variables)
    for name, variable in patch.variables.items():
        old = base.variables.get(name)
        if old is None:
            raise ModelFileError(f"the base model has no variable {name}")
        if (old.shape, old.dtype) != (variable.shape, variable.dtype):
            raise ModelFileError(f"{name} is {variable.shape} of type {variable.dtype} in the patch, "
                                 f"{old.shape} of type {old.dtype} in the base")
        if len(variable.data) != _bytes_of(variable):
            raise ModelFileError(f"{name} holds {len(variable.data)} bytes, not {_bytes_of(variable)}")
        variables[name] = variable
    return replace(base, variables=variables)


def _bytes_of(variable: Variable) -> int:
    count = 1
    for dim in variable.shape:
        count *= dim
    return count * ITEM_BYTES.get(variable.dtype, 1)
