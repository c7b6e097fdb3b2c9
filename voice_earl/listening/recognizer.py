"""One small interface in front of every offline recognizer, and the events a listener sends.

A recognizer turns 16 kHz mono int16 audio into text. Each turn it gets a grammar (the
phrases the turn allows); :meth:`Recognizer.begin` resets the stream and then sets the
grammar, so a grammar never changes in the middle of an utterance.

>>> Partial("there is a", at=0.4)
Partial(text='there is a', at=0.4)
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from voice_earl.errors import VoiceEarlError

logger = logging.getLogger(__name__)

# The garbage word: a grammar path for anything that is none of the phrases (table chatter).
UNKNOWN_WORD = "[unk]"


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
class SpeechSetAside:
    """Speech in which none of the turn's phrases was heard (talk, a cough, a line missed): it moves
    nothing, and the listening goes on."""

    at: float


@dataclass(frozen=True)
class Final:
    text: str
    at: float
    early: bool = False  # decided on a stable partial before the trailing silence ended


@dataclass(frozen=True)
class KnockHeard:
    """A knock on the table, heard as a pass (positions 2-4): ``at`` is where the rap began."""

    at: float
    probability: float


ListenEvent = SpeechStarted | Partial | SpeechStopped | SpeechSetAside | Final | KnockHeard


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
