"""A judge that remembers what Whisper found in each stretch of audio it was asked about, so that the
real listener can be run again and again over the same trials with other decisions (other operating
points, other rules) at the cost of the first run only.

The listener's verdicts are a function of the audio and of the judge's answers (never of how long the
judge took), so a run with remembered scores is the run the game would make. A stretch the listener
asks about for the first time (a decision that takes a verdict sooner or later changes what it looks
at next) is scored then. The free transcript is always computed, once, so that it is there whatever a
decision asks.

What is remembered is kept in a file (``~/.cache/voice-earl/bench-listening/remembered-*.pickle``) so
that a later run, or another process, starts from it.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable
from pathlib import Path

from voice_earl.listening.judge.decision import JudgeSettings, Transcript
from voice_earl.listening.judge.whisper import Scoring, WhisperJudge
from voice_earl.listening.stream.audio import Pcm16
from voice_earl.words.context import ListenContext

Key = tuple[str, int, ListenContext, str]


class RememberingJudge(WhisperJudge):
    """A :class:`WhisperJudge` whose scores are remembered by the audio they were found in."""

    def __init__(self, model_dir: Path, settings: JudgeSettings | None = None, kept: Path | None = None) -> None:
        super().__init__(model_dir, settings)
        self.kept = kept
        self.remembered: dict[Key, tuple[Scoring, Transcript]] = (
            pickle.loads(kept.read_bytes()) if kept is not None and kept.exists() else {}
        )
        self.found = 0  # stretches scored by Whisper in this process

    def _scoring(
        self, samples: Pcm16, skip: int, context: ListenContext, heard: str
    ) -> tuple[Scoring, Callable[[], Transcript]]:
        key = (hashlib.blake2b(samples.tobytes(), digest_size=16).hexdigest(), skip, context, heard)
        if key not in self.remembered:
            scoring, transcribe = super()._scoring(samples, skip, context, heard)
            self.remembered[key] = (scoring, transcribe())
            self.found += 1
        scoring, free = self.remembered[key]
        return scoring, lambda: free

    def keep(self) -> None:
        """Write what is remembered to the file it was read from (written whole, then moved in)."""
        if self.kept is None:
            return
        partial = self.kept.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(self.remembered))
        partial.replace(self.kept)
