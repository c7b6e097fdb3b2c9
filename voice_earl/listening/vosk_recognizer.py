"""vosk (Kaldi) with a model from disk: one Model, one KaldiRecognizer for the stream.

Grammars need a model built with a runtime graph (graph/HCLr.fst + graph/Gr.fst, as the small
models are). A model with only a static HCLG.fst ignores grammars; that is reported once as a
notice and recognition runs free, instead of a grammar that silently does nothing.

Kaldi dithers the audio (the models' ``mfcc.conf`` leave ``--dither`` at 1) with the C library's
``rand()``, shared by the whole process: the same words decoded after other audio, in another
order or another number of tests, drew other noise, and a word the model hears only just (espeak-ng's
"바나나" at 140 words a minute) came out as nothing now and then. Each utterance now starts the
C library's generator from the same seed, so the same audio always decodes the same way.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from voice_earl.listening.recognizer import UNKNOWN_WORD, Recognizer, RecognizerError
from voice_earl.listening.stream.audio import SAMPLE_RATE

logger = logging.getLogger(__name__)

DITHER_SEED = 1  # glibc's own start: the first utterance of a process decodes as it always did


@functools.cache
def _c_library() -> ctypes.CDLL | None:
    """The C library whose ``rand()`` Kaldi's dither draws from (None where it cannot be found)."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


def seed_dither() -> None:
    """Start Kaldi's dither from :data:`DITHER_SEED`: the same audio then decodes the same way,
    whatever was decoded before it in this process."""
    library = _c_library()
    if library is not None:
        library.srand(DITHER_SEED)


def supports_grammar(model_path: Path) -> bool:
    """Whether the model has the runtime graph that vosk needs to honour a grammar."""
    graph = model_path / "graph"
    return (graph / "HCLr.fst").is_file() and (graph / "Gr.fst").is_file()


def grammar_json(phrases: Sequence[str], with_unknown: bool) -> str:
    """The phrase list vosk takes as a grammar; ``[unk]`` is the garbage path for other speech.

    >>> grammar_json(["pass"], with_unknown=True)
    '["pass", "[unk]"]'
    """
    return json.dumps([*phrases, UNKNOWN_WORD] if with_unknown else list(phrases), ensure_ascii=False)


class VoskRecognizer(Recognizer):
    name = "vosk"

    def __init__(self, model_path: Path) -> None:
        super().__init__()
        try:
            import vosk
        except ImportError as error:
            raise RecognizerError(f"vosk is not installed ({error}); pip install vosk") from None
        self._vosk: Any = vosk
        vosk.SetLogLevel(-1)  # before loading: Kaldi otherwise writes its log over the screen
        if not model_path.is_dir():
            raise RecognizerError(f"{model_path}: no such vosk model directory; see voice-earl models")
        try:
            self._model: Any = vosk.Model(str(model_path))
        except Exception as error:  # vosk raises a bare Exception("Failed to create a model")
            raise RecognizerError(
                f"{model_path}: cannot load this vosk model ({error}); it may be damaged or incomplete, "
                "fetch it again with voice-earl models"
            ) from None
        self.model_path = model_path
        self.grammar_supported = supports_grammar(model_path)
        self._has_unknown = self.knows(UNKNOWN_WORD)
        self._recognizer: Any = None
        self._last_partial = ""
        if not self.grammar_supported:
            self._notice(
                f"the vosk model {model_path.name} has a static graph (HCLG.fst) and ignores grammars, so "
                "recognition is free and less accurate; a small model (vosk-model-small-*) takes grammars"
            )

    def knows(self, word: str) -> bool:
        find = getattr(self._model, "find_word", None) or self._model.vosk_model_find_word
        return int(find(word)) >= 0

    def reset(self) -> None:
        self._last_partial = ""
        if self._recognizer is not None:
            self._recognizer.Reset()
        seed_dither()

    def _set_grammar(self, phrases: Sequence[str]) -> None:
        if not self.grammar_supported:
            if self._recognizer is None:
                self._recognizer = self._new_recognizer(None)
            return
        grammar = grammar_json(phrases, self._has_unknown)
        if self._recognizer is None:
            self._recognizer = self._new_recognizer(grammar)
        else:
            self._recognizer.SetGrammar(grammar)  # reset() ran just before: never mid-utterance

    def _new_recognizer(self, grammar: str | None) -> Any:
        args = (self._model, float(SAMPLE_RATE)) + ((grammar,) if grammar is not None else ())
        recognizer = self._vosk.KaldiRecognizer(*args)
        recognizer.SetWords(True)
        return recognizer

    def accept(self, pcm: bytes) -> None:
        if self._recognizer is None:
            raise RecognizerError("vosk needs a grammar: call begin(phrases) first")
        if self._recognizer.AcceptWaveform(pcm):
            # vosk found its own endpoint: keep the segment's text as the utterance so far.
            text = str(json.loads(self._recognizer.Result()).get("text", ""))
            self._last_partial = f"{self._last_partial} {text}".strip()

    def partial(self) -> str:
        if self._recognizer is None:
            return ""
        current = str(json.loads(self._recognizer.PartialResult()).get("partial", ""))
        return f"{self._last_partial} {current}".strip()

    def finish(self) -> str:
        if self._recognizer is None:
            return ""
        text = str(json.loads(self._recognizer.FinalResult()).get("text", ""))
        result = f"{self._last_partial} {text}".strip()
        self._last_partial = ""
        return result
