"""pocketsphinx 5 with its bundled US English model: the recognizer that needs no download.

Each turn gets a JSGF grammar of exactly the turn's phrases. Speech that fits none of them does
not reach the grammar's end state, and then the decoder's hypothesis is empty or a broken-off
line, which the verdicts treat as unclear (and the listener sets aside): that is the garbage
path. An explicit garbage loop inside the grammar (common words, or one word per phone) was
tried: on synthesized speech it swallowed most real lines and decoded some 80 times slower.

Filler models (silence and noise between words) keep noisy speech on track but sometimes eat
the last word of a clean line so that no phrase completes; such an utterance is decoded a
second time without fillers (about 10 points of accuracy on clean held-out voices, one more false
accept on noisy chatter in 72; see scripts/bench_listening.py).
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from voice_earl.listening.recognizer import Recognizer, RecognizerError

logger = logging.getLogger(__name__)


# Decoder settings over pocketsphinx's defaults, chosen on the tune split of scripts/bench_listening.py.
DECODER_OPTIONS: dict[str, str | float | bool] = {}
# Turn grammars kept ready; older ones are removed (a lead's grammar differs with the ranks held).
MAX_GRAMMARS = 16
# Words the table listens for that the model's dictionary lacks, in its phones: the Italian rules' pass word.
ADDED_WORDS: dict[str, str] = {"passo": "P AA S OW"}


def jsgf_grammar(phrases: Sequence[str]) -> str:
    """A JSGF grammar whose sentences are exactly ``phrases``.

    >>> print(jsgf_grammar(["pass", "there is a king"]))
    #JSGF V1.0;
    grammar turn;
    public <turn> = ( pass ) | ( there is a king );
    <BLANKLINE>
    """
    alternatives = " | ".join(f"( {phrase} )" for phrase in phrases)
    return f"#JSGF V1.0;\ngrammar turn;\npublic <turn> = {alternatives};\n"


class SphinxRecognizer(Recognizer):
    name = "pocketsphinx"

    def __init__(self, options: Mapping[str, str | float | bool] | None = None, *, second_pass: bool = True) -> None:
        """``options``: decoder settings over :data:`DECODER_OPTIONS`, for tuning.

        ``second_pass``: when the live pass ends without completing any phrase, decode the
        utterance again without filler words (silence/noise models between words). Fillers help
        in noise but can also swallow a clean line's last word; the second pass recovers those.
        """
        super().__init__()
        try:
            import pocketsphinx
        except ImportError as error:
            raise RecognizerError(f"pocketsphinx is not installed ({error}); pip install pocketsphinx") from None
        self._pocketsphinx: Any = pocketsphinx
        self._settings = {**DECODER_OPTIONS, **(options or {})}
        self._decoder: Any = self._new_decoder(self._settings)
        self._second_pass = second_pass
        self._second: Any = None  # made when first needed: it costs about 54 MB and 115 ms
        self._second_searches: set[str] = set()
        self._searches: OrderedDict[str, tuple[str, str]] = OrderedDict()  # grammar key -> (search name, JSGF)
        self._made = 0
        self._search = ""
        self._audio: list[bytes] = []
        self._in_utterance = False
        self._dither = np.random.default_rng(0)  # fixed seed: the same audio decodes the same way

    def _new_decoder(self, settings: Mapping[str, str | float | bool]) -> Any:
        model = self._pocketsphinx.get_model_path()
        config = self._pocketsphinx.Config(
            hmm=f"{model}/en-us/en-us", dict=f"{model}/en-us/cmudict-en-us.dict", lm=None, loglevel="FATAL"
        )
        try:
            for key, value in settings.items():
                config[key] = value
            decoder = self._pocketsphinx.Decoder(config)
            for word, phones in ADDED_WORDS.items():
                decoder.add_word(word, phones, True)
            return decoder
        except (RuntimeError, ValueError, KeyError) as error:
            raise RecognizerError(
                f"cannot load pocketsphinx's English model ({error}); reinstall pocketsphinx"
            ) from None

    def knows(self, word: str) -> bool:
        return self._decoder.lookup_word(word) is not None

    def reset(self) -> None:
        if self._in_utterance:
            self._decoder.end_utt()
            self._in_utterance = False
        self._audio.clear()
        self._dither = np.random.default_rng(0)  # each utterance alike, whatever came before

    def _set_grammar(self, phrases: Sequence[str]) -> None:
        grammar = jsgf_grammar(phrases)
        key = hashlib.sha1(grammar.encode()).hexdigest()[:16]
        known = self._searches.get(key)
        if known is None:
            name = f"turn_{self._made}"
            self._made += 1
            self._decoder.add_jsgf_string(name, grammar)
            self._searches[key] = (name, grammar)
            self._forget_old_grammars()
        else:
            name = known[0]
            self._searches.move_to_end(key)
        self._search = name

    def _forget_old_grammars(self) -> None:
        """Keep the newest :data:`MAX_GRAMMARS`: each costs about 2.5 MB, and a long evening has hundreds of leads."""
        while len(self._searches) > MAX_GRAMMARS:
            _key, (name, _grammar) = self._searches.popitem(last=False)
            self._decoder.remove_search(name)
            if name in self._second_searches:
                self._second.remove_search(name)
                self._second_searches.discard(name)

    def accept(self, pcm: bytes) -> None:
        if not self._search:
            raise RecognizerError("pocketsphinx needs a grammar: call begin(phrases) first")
        if not self._in_utterance:
            self._decoder.activate_search(self._search)
            self._decoder.start_utt()
            self._in_utterance = True
        pcm = self._dithered(pcm)
        self._decoder.process_raw(pcm, False, False)
        if self._second_pass:
            self._audio.append(pcm)

    def _dithered(self, pcm: bytes) -> bytes:
        """Add noise of +-8 steps (-72 dBFS, inaudible): digital silence (exact zeros, as some sound
        cards and files start with) makes pocketsphinx's log energies and running mean collapse,
        and the line after it is then not heard at all."""
        samples = np.frombuffer(pcm, dtype=np.int16).astype(np.int32)
        noise = self._dither.integers(-8, 9, size=samples.shape, dtype=np.int32)
        dithered: bytes = np.clip(samples + noise, -32768, 32767).astype(np.int16).tobytes()
        return dithered

    def partial(self) -> str:
        if not self._in_utterance:
            return ""
        return _text(self._decoder.hyp())

    def finish(self) -> str:
        if not self._in_utterance:
            return ""
        self._decoder.end_utt()
        self._in_utterance = False
        text = _text(self._decoder.hyp())
        if not text and self._second_pass and self._audio:
            text = self._decode_again(b"".join(self._audio))
            logger.debug("second pass without fillers: %r", text)
        self._audio.clear()
        return text

    def _decode_again(self, pcm: bytes) -> str:
        if self._second is None:
            self._second = self._new_decoder({**self._settings, "fsgusefiller": False})
        if self._search not in self._second_searches:
            grammar = next(g for name, g in self._searches.values() if name == self._search)
            self._second.add_jsgf_string(self._search, grammar)
            self._second_searches.add(self._search)
        self._second.activate_search(self._search)
        self._second.start_utt()
        self._second.process_raw(pcm, False, True)
        self._second.end_utt()
        return _text(self._second.hyp())


def _text(hypothesis: Any) -> str:
    return str(hypothesis.hypstr) if hypothesis is not None else ""
