"""Checked extraction of a model archive and its atomic install.

Both ways of installing (``fetch_model`` and ``install_model_archive`` in
:mod:`voice_earl.listening.models.vosk_install`) share this: an archive is extracted into a work
directory next to the target with every member checked, and the checked model is renamed into
place, so a failed or interrupted install leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from voice_earl.errors import VoiceEarlError
from voice_earl.listening.models.install_steps import CHUNK_BYTES, error_reason, move_into_place
from voice_earl.listening.models.discovery import (
    MODEL_NAME,
    RECEIPT_NAME,
    InstallReceipt,
    check_model_layout,
    human_size,
    visible_subdirs,
)


@dataclass(frozen=True)
class ExtractionLimits:
    """Bounds that keep a hostile or broken archive from filling the disk."""

    max_members: int = 10_000
    max_total_bytes: int = 8 * 1024**3
    max_member_bytes: int = 4 * 1024**3
    max_ratio: float = 100.0
    ratio_floor_bytes: int = 1024 * 1024  # tiny members compress oddly; judge ratio above this size


DEFAULT_LIMITS = ExtractionLimits()


def install_from_archive(
    archive: Path,
    target: Path,
    work: Path,
    receipt: InstallReceipt,
    force: bool,
    limits: ExtractionLimits,
) -> None:
    extracted = work / "extracted"
    extract_zip_safely(archive, extracted, limits, models_dir=target.parent)
    model_root = _model_root(extracted, archive)
    layout = check_model_layout(model_root)
    if not layout.valid:
        # The work directory is about to go: name its folders as the archive does.
        problems = "; ".join(problem.replace(f"{extracted}{os.sep}", "") for problem in layout.problems)
        raise VoiceEarlError(f"{archive.name} does not hold a usable vosk model: {problems}; nothing was installed")
    (model_root / RECEIPT_NAME).write_text(json.dumps(receipt.__dict__, indent=2) + "\n", encoding="utf-8")
    move_into_place(model_root, target, work, force)


def _model_root(extracted: Path, archive: Path) -> Path:
    """The model is either at the top of the archive or in its single top folder."""
    if (extracted / "am").is_dir():
        return extracted
    folders = [entry for entry in visible_subdirs(extracted) if entry.name != "__MACOSX"]
    if len(folders) == 1:
        return folders[0]
    raise VoiceEarlError(
        f"{archive.name} does not hold a vosk model: expected am/, conf/ and graph/ at its top "
        "or inside one folder; nothing was installed"
    )


def archive_model_name(archive: Path) -> str:
    """The single top folder of the archive, else the archive's file name without .zip."""
    try:
        with zipfile.ZipFile(archive) as bundle:
            tops = {PurePosixPath(name).parts[0] for name in bundle.namelist() if name.strip("/")}
    except (zipfile.BadZipFile, OSError) as error:
        raise VoiceEarlError(f"{archive} is not a readable zip archive ({error})") from error
    tops.discard("__MACOSX")
    if len(tops) == 1:
        (top,) = tops
        if top not in ("am", "conf", "graph", "ivector") and MODEL_NAME.fullmatch(top):
            return top
    return archive.name.removesuffix(".zip")


def extract_zip_safely(
    archive: Path, target: Path, limits: ExtractionLimits = DEFAULT_LIMITS, *, models_dir: Path | None = None
) -> None:
    """Extract ``archive`` into the new directory ``target``, refusing anything unsafe.

    Refused: paths that are absolute or climb out with ``..``, symlinks and other special files,
    encrypted or duplicate members, too many members, and sizes or compression ratios beyond
    ``limits``, of each member and of the whole archive (declared sizes are checked before anything
    is written, actual bytes while writing). ``models_dir`` is the folder a shortage of space is
    reported for (default: the one holding ``target``).
    """
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = bundle.infolist()
            _check_members(archive, members, limits)
            _check_free_space(target.parent, sum(member.file_size for member in members), models_dir)
            target.mkdir()
            for member in members:
                _extract_member(bundle, member, target, limits)
    except zipfile.BadZipFile as error:
        raise VoiceEarlError(f"{archive.name} is not a valid zip archive ({error}); nothing was installed") from error
    except OSError as error:
        reason = error_reason(error)
        raise VoiceEarlError(f"could not extract {archive.name}: {reason}; nothing was installed") from error


def _refuse(archive: Path, reason: str) -> VoiceEarlError:
    return VoiceEarlError(f"refusing to install {archive.name}: {reason}; nothing was installed")


def _check_members(archive: Path, members: list[zipfile.ZipInfo], limits: ExtractionLimits) -> None:
    if len(members) > limits.max_members:
        raise _refuse(archive, f"it has {len(members)} members (at most {limits.max_members} allowed)")
    total = 0
    seen: set[str] = set()
    for member in members:
        relative = _safe_member_path(archive, member)
        key = relative.as_posix()
        if key in seen:
            raise _refuse(archive, f"member {member.filename!r} appears twice")
        seen.add(key)
        _check_member_size(archive, member, limits)
        total += member.file_size
        if total > limits.max_total_bytes:
            raise _refuse(archive, f"it unpacks to more than {human_size(limits.max_total_bytes)}")
    # Many small members can each stay under the floor below which one member's ratio is not judged.
    packed = sum(member.compress_size for member in members)
    if total > limits.ratio_floor_bytes and total / max(packed, 1) > limits.max_ratio:
        raise _refuse(
            archive,
            f"its {len(members)} members unpack to {human_size(total)} from {human_size(packed)}, "
            f"compressed {total / max(packed, 1):.0f} to 1 (a zip bomb?)",
        )


def _safe_member_path(archive: Path, member: zipfile.ZipInfo) -> PurePosixPath:
    name = member.filename
    relative = PurePosixPath(name)
    if (
        not name.strip("/")
        or "\x00" in name
        or "\\" in name
        or relative.is_absolute()
        or ".." in relative.parts
        or re.match(r"[A-Za-z]:", name)
    ):
        raise _refuse(archive, f"member {name!r} would be written outside the model folder")
    if member.flag_bits & 0x1:
        raise _refuse(archive, f"member {name!r} is encrypted")
    # Many zip writers store permission bits without a file type: only a stated type is judged.
    file_type = stat.S_IFMT(member.external_attr >> 16)
    if file_type not in (0, stat.S_IFREG, stat.S_IFDIR):
        kind = "a symlink" if file_type == stat.S_IFLNK else "a special file"
        raise _refuse(archive, f"member {name!r} is {kind}")
    return relative


def _check_member_size(archive: Path, member: zipfile.ZipInfo, limits: ExtractionLimits) -> None:
    if member.file_size > limits.max_member_bytes:
        raise _refuse(
            archive,
            f"member {member.filename!r} unpacks to {human_size(member.file_size)}, more than allowed",
        )
    if member.file_size > limits.ratio_floor_bytes:
        ratio = member.file_size / max(member.compress_size, 1)
        if ratio > limits.max_ratio:
            raise _refuse(archive, f"member {member.filename!r} is compressed {ratio:.0f} to 1 (a zip bomb?)")


def _check_free_space(directory: Path, needed: int, shown: Path | None) -> None:
    free = shutil.disk_usage(directory).free
    if free < needed:
        raise VoiceEarlError(
            f"not enough free space in {shown or directory}: the model needs {human_size(needed)}, "
            f"{human_size(free)} is free; nothing was installed"
        )


def _extract_member(bundle: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path, limits: ExtractionLimits) -> None:
    destination = target.joinpath(*PurePosixPath(member.filename).parts)
    if not destination.resolve().is_relative_to(target.resolve()):  # second line of defence
        raise VoiceEarlError(f"member {member.filename!r} would be written outside the model folder")
    if member.is_dir():
        destination.mkdir(parents=True, exist_ok=True)
        return
    destination.parent.mkdir(parents=True, exist_ok=True)
    # Never trust the declared size alone: stop as soon as the real bytes exceed it.
    allowed = min(member.file_size, limits.max_member_bytes)
    written = 0
    with bundle.open(member) as source, destination.open("xb") as out:
        while chunk := source.read(CHUNK_BYTES):
            written += len(chunk)
            if written > allowed:
                raise VoiceEarlError(
                    f"member {member.filename!r} is larger than its archive entry says; nothing was installed"
                )
            out.write(chunk)
