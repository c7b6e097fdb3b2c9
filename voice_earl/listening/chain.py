"""The listener as the game uses it: the first pass (pocketsphinx or vosk) and, when it can, the judge.

``play``, ``practice``, ``drill``, ``demo`` and ``hear`` all build their listener here, so they all
hear and judge the same way, and all say the same line about it: the chain used and why, for
example "pocketsphinx + whisper judge", or without the judge what is lost and how to get it back.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from pathlib import Path

from voice_earl.listening.choice import choose_recognizer, load_recognizer
from voice_earl.listening.models.judge_models import choose_judge
from voice_earl.listening.stream.knock import shipped_model
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.utterance import ListenSettings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ListenerChain:
    listener: Listener
    description: str  # one line for the user
    ready_s: float  # from the start of loading to ready to listen
    summary: str = ""  # what listens, short; without the judge, also what is lost (the rest is in the log)


def open_listener(
    recognizer: str | None = None,
    model: Path | str | None = None,
    *,
    judge_model: Path | str | None = None,
    judge: bool = True,
    settings: ListenSettings | None = None,
    knock: bool = False,
    verifier: bool = False,
    base_judge: bool = False,
) -> ListenerChain:
    """Load the first pass and the judge (once per run) and say what listens and why; ``knock``: a knock
    on the table passes too; ``verifier``: the judge decides by its trained verifier, not its rules;
    ``base_judge``: the judge's model is tiny.en as it ships, not the one trained on the game's words."""
    started = time.perf_counter()
    first = choose_recognizer(recognizer or "auto", Path(model) if model else None)
    judging = choose_judge(Path(judge_model) if judge_model else None, wanted=judge, base=base_judge)
    loaded = load_recognizer(first)
    for notice in loaded.take_notices():
        logger.warning(notice)
    second = None
    if judging.model is not None:
        from voice_earl.listening.judge.whisper import WhisperJudge, settings_for

        fitted = settings_for(judging.model.path)
        second = WhisperJudge(judging.model.path, replace(fitted, verifier=True) if verifier else fitted)
    name = f"{loaded.name} + whisper judge" if second is not None else f"{loaded.name} alone"
    name += " (its verifier)" if second is not None and verifier else ""
    description = f"{name}: {first.reason}; {judging.reason}"
    ready = time.perf_counter() - started
    logger.info("listening with %s (ready in %.2f s)", description, ready)
    summary = name if second is not None else f"{name}: {judging.reason}"
    knocks = shipped_model() if knock else None
    if knock:
        description += "; a knock on the table passes"
        summary += "; a knock on the table passes"
    return ListenerChain(Listener(loaded, settings, judge=second, knocks=knocks), description, ready, summary)
