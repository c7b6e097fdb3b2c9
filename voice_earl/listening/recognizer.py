"""One small interface in front of every offline recognizer, and the events a listener sends.

A recognizer turns 16 kHz mono int16 audio into text. Each turn it gets a grammar (the
phrases the turn allows); :meth:`Recognizer.begin` resets the stream and then sets the
grammar, so a grammar never changes in the middle of an utterance.

>>> RecognizerKind.parse("Pocketsphinx")
<RecognizerKind.POCKETSPHINX: 'pocketsphinx'>
>>> Partial("there is a", at=0.4)
Partial(text='there is a', at=0.4)
"""

from __future__ import annotations

import abc
import enum
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from voice_earl.errors import UsageError, VoiceEarlError

logger = logging.getLogger(__name__)

# The garbage word: a grammar path for anything that is none of the phrases (table chatter).
UNKNOWN_WORD = "[unk]"


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


class RecognizerError(VoiceEarlError):
    """A recognizer or its model cannot be used (missing, damaged, or the wrong kind)."""


class MissingWordsError(RecognizerError):
    """None of a turn's phrases can be said with this model's vocabulary."""


# ------------------------------------------------------------------ events (times in seconds of audio)


@dataclass(frozen=True)
class SpeechStarted:
    at: float


@dataclass(frozen=True)
class Partial:
    text: str
    at: float


@dataclass(frozen=True)
class SpeechStopped:
    at: float


@dataclass(frozen=True)
class Final:
    text: str
    at: float
    early: bool = False  # decided on a stable partial before the trailing silence ended


ListenEvent = SpeechStarted | Partial | SpeechStopped | Final


# ------------------------------------------------------------------ the interface


def missing_words_notice(name: str, missing: Iterable[str]) -> str:
    """The one line shown when a model lacks words of a grammar."""
    words = ", ".join(sorted(missing))
    return f"the {name} model does not know these words, so lines with them cannot be heard: {words}"


class Recognizer(abc.ABC):
    """An offline recognizer for one stream at a time."""

    name: str = ""

    def __init__(self) -> None:
        self._notices: list[str] = []
        self._shown: set[str] = set()
        self.missing_words: frozenset[str] = frozenset()  # words of the current grammar the model lacks

    @property
    def notices(self) -> tuple[str, ...]:
        """Problems the user should see once (missing words, a model that ignores grammars)."""
        return tuple(self._notices)

    def take_notices(self) -> tuple[str, ...]:
        """The notices not yet shown; each is returned once."""
        fresh = tuple(n for n in self._notices if n not in self._shown)
        self._shown.update(fresh)
        return fresh

    def _notice(self, text: str) -> None:
        if text not in self._notices:
            logger.warning("%s", text)
            self._notices.append(text)

    def begin(self, phrases: Sequence[str]) -> None:
        """Start a new utterance whose grammar is ``phrases`` (normalised, lowercase) plus a garbage path."""
        self.reset()
        self._set_grammar(self._usable_phrases(phrases))

    def _usable_phrases(self, phrases: Sequence[str]) -> tuple[str, ...]:
        words = {word for phrase in phrases for word in phrase.split()}
        missing = frozenset(word for word in words if not self.knows(word))
        self.missing_words = missing
        if missing:
            self._notice(missing_words_notice(self.name, missing))
        usable = tuple(p for p in phrases if p.strip() and not set(p.split()) & missing)
        if not usable:
            raise MissingWordsError(
                f"the {self.name} model knows none of this turn's phrases ({'; '.join(phrases)}); "
                "use a model for the chant's language (voice-earl models) or another recognizer"
            )
        return usable

    @abc.abstractmethod
    def knows(self, word: str) -> bool:
        """Whether the model's vocabulary has ``word``."""

    @abc.abstractmethod
    def reset(self) -> None:
        """Drop the current utterance."""

    @abc.abstractmethod
    def _set_grammar(self, phrases: Sequence[str]) -> None:
        """Restrict recognition to ``phrases`` plus a garbage path (called right after :meth:`reset`)."""

    @abc.abstractmethod
    def accept(self, pcm: bytes) -> None:
        """Feed 16 kHz mono int16 audio."""

    @abc.abstractmethod
    def partial(self) -> str:
        """The best hypothesis so far."""

    @abc.abstractmethod
    def finish(self) -> str:
        """End the utterance and return its final text ("" when nothing was recognised)."""


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
    from voice_earl.listening.models import auto_recognizer_choice, discover_vosk_model

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
