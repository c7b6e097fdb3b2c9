"""Real recordings for the listening benchmark: utterances a table kept with ``--keep-audio``.

``scripts/bench_listening.py --recordings DIR`` takes either a voice-earl data directory (the
one holding ``voice-earl.sqlite3``: every utterance kept with ``--keep-audio`` comes with the
position and rank that were due), or any folder of WAV files with a ``labels.jsonl``:

    {"path": "ann-1.wav", "position": 2, "rank": "Q"}
    {"path": "ann-2.wav", "position": 1, "ranks": ["7", "K"], "said": "pass"}

``said`` is what the speaker really said: ``line`` (the line due, the default), ``wrong_line``,
``wrong_rank``, ``pass``, ``command`` (then ``text`` names it) or ``chatter``. In a data
directory, a ``labels.jsonl`` beside the database can correct ``said`` for any kept file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from voice_earl.bench.corpus import COMMAND_SAYINGS, Expect, Trial, commands_context
from voice_earl.game.cards import RANKS, Rank

SAID = {
    "line": Expect.CORRECT,
    "wrong_line": Expect.WRONG_LINE,
    "wrong_rank": Expect.WRONG_RANK,
    "pass": Expect.PASS,
    "command": Expect.COMMAND,
    "chatter": Expect.CHATTER,
}


def recorded_trials(folder: Path) -> list[Trial]:
    labels = _labels(folder / "labels.jsonl")
    if (folder / "voice-earl.sqlite3").is_file():
        return _kept_trials(folder, labels)
    trials = []
    for path, entry in labels.items():
        trial = _trial(path, entry)
        if trial is not None:
            trials.append(trial)
    return trials


def _labels(path: Path) -> dict[Path, dict[str, object]]:
    if not path.is_file():
        return {}
    labels: dict[Path, dict[str, object]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            labels[(path.parent / str(entry["path"])).resolve()] = entry
        except (ValueError, KeyError, TypeError):
            print(f"{path}:{number}: not a label, skipped", file=sys.stderr)
    return labels


def _kept_trials(folder: Path, labels: dict[Path, dict[str, object]]) -> list[Trial]:
    from voice_earl.keep.storage import Store

    trials = []
    with Store.open(folder / "voice-earl.sqlite3", exclusive=False) as store:
        for kept in store.utterances():
            if kept.audio_path is None or not kept.audio_path.is_file():
                continue
            entry: dict[str, object] = {"position": kept.position}
            if kept.position > 1 and kept.rank is not None:
                entry["rank"] = kept.rank.value
            entry.update(labels.get(kept.audio_path.resolve(), {}))
            trial = _trial(kept.audio_path, entry)
            if trial is not None:
                trials.append(trial)
    return trials


def _trial(path: Path, entry: dict[str, object]) -> Trial | None:
    try:
        position = int(str(entry["position"]))
        names: object = entry.get("ranks") or ([entry["rank"]] if entry.get("rank") else [])
        ranks = tuple(Rank.parse(str(name)) for name in names) if isinstance(names, list) else ()
        context = commands_context(position, ranks or RANKS)
        said = str(entry.get("said", "line"))
        text = str(entry.get("text", said))
        if said == "command" and text not in COMMAND_SAYINGS:
            raise ValueError(f"a command is one of {COMMAND_SAYINGS}")
        return Trial(text, context, SAID[said], None, path)
    except (KeyError, ValueError) as error:
        print(f"{path}: cannot use this label ({error}), skipped", file=sys.stderr)
        return None
