"""The listener's and the judge's settings, as a benchmark is told to try them (``--set NAME=VALUE``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from voice_earl.listening.judge.decision import JudgeSettings
from voice_earl.listening.stream.utterance import ListenSettings


def chosen_settings(pairs: Sequence[str], judge: JudgeSettings | None = None) -> tuple[ListenSettings, JudgeSettings]:
    """The listener's and the judge's settings, with fields set from NAME=VALUE pairs (--set) over the
    defaults (``judge``: the judge's, when its model's are not tiny.en's)."""
    chosen: list[Any] = []
    for defaults in (ListenSettings(), judge or JudgeSettings()):
        names = [f.name for f in dataclasses.fields(defaults)]
        values: dict[str, Any] = {}
        for name, _, value in (pair.partition("=") for pair in pairs):
            if name in names:
                kind = type(getattr(defaults, name))
                values[name] = value.lower() in ("true", "1", "yes") if kind is bool else kind(value)
        chosen.append(dataclasses.replace(defaults, **values))
    known = {f.name for settings in chosen for f in dataclasses.fields(settings)}
    unknown = [pair.partition("=")[0] for pair in pairs if pair.partition("=")[0] not in known]
    if unknown:
        raise SystemExit(f"--set: no listening or judge setting {unknown[0]!r} (one of: {', '.join(sorted(known))})")
    return chosen[0], chosen[1]
