"""Which recognizer to use, and loading it: the factory in front of the concrete recognizers.

The recognizers themselves import only the interface in :mod:`voice_earl.listening.recognizer`;
this module is the one place that knows them all, and imports them only when one is chosen or loaded.

>>> RecognizerKind.parse("Pocketsphinx")
<RecognizerKind.POCKETSPHINX: 'pocketsphinx'>
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

from voice_earl.errors import UsageError
from voice_earl.listening.recognizer import Recognizer, RecognizerError


class RecognizerKind(enum.Enum):
    AUTO = "auto"
    VOSK = "vosk"
    POCKETSPHINX = "pocketsphinx"

    @classmethod
    def parse(cls, text: str) -> RecognizerKind:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise UsageError(f"unknown recognizer {text!r}: use auto, vosk or pocketsphinx") from None


def open_recognizer(kind: RecognizerKind | str, model_path: Path | None = None) -> Recognizer:
    """Load a recognizer. ``auto`` picks vosk when a model is found, pocketsphinx otherwise."""
    chosen = choose_recognizer(kind, model_path)
    return load_recognizer(chosen)


@dataclass(frozen=True)
class RecognizerChoice:
    kind: RecognizerKind  # never AUTO
    model_path: Path | None  # the vosk model; None for pocketsphinx's bundled model
    reason: str  # one line for the user: what is used and why


def choose_recognizer(kind: RecognizerKind | str, model_path: Path | None = None) -> RecognizerChoice:
    """Decide which recognizer and model to use, without loading anything."""
    from voice_earl.listening.models.discovery import auto_recognizer_choice, discover_vosk_model

    kind = RecognizerKind.parse(kind) if isinstance(kind, str) else kind
    if kind is RecognizerKind.POCKETSPHINX:
        reason = "pocketsphinx with its bundled US English model (--recognizer pocketsphinx)"
        return RecognizerChoice(kind, None, reason)
    if kind is RecognizerKind.VOSK:
        found = discover_vosk_model(model_path)
        if found is None:
            raise RecognizerError(
                "no vosk model found: 'voice-earl models fetch' gets one, --model PATH names one, "
                "or use --recognizer pocketsphinx"
            )
        return RecognizerChoice(kind, found.path, f"vosk with model {found.path.name} from {found.source}")
    name, why = auto_recognizer_choice(model_path)
    if name == "vosk":
        found = discover_vosk_model(model_path)
        assert found is not None  # auto_recognizer_choice just found it
        return RecognizerChoice(RecognizerKind.VOSK, found.path, f"vosk: {why}")
    return RecognizerChoice(RecognizerKind.POCKETSPHINX, None, f"pocketsphinx: {why}")


def load_recognizer(choice: RecognizerChoice) -> Recognizer:
    if choice.kind is RecognizerKind.VOSK:
        from voice_earl.listening.vosk_recognizer import VoskRecognizer

        assert choice.model_path is not None
        return VoskRecognizer(choice.model_path)
    from voice_earl.listening.sphinx_recognizer import SphinxRecognizer

    return SphinxRecognizer()
