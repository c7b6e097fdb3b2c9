"""The judge: Whisper scores the turn's candidates against the audio, and may answer none of them.

The streaming first pass (pocketsphinx or vosk) hears fast but forces table talk onto a line. The
judge runs once the utterance is likely over, on OpenAI's Whisper ``tiny.en`` through CTranslate2
(int8, one thread): the utterance is encoded once; one decoder pass fills each line's rank slot with
the ranks likeliest there; every candidate is scored in one batch (the log-probability of each of
its tokens given the audio, ``ctranslate2.models.Whisper.align``), and against a quiet room; in a loud
room, where the voice falls away after each is measured. :func:`~voice_earl.listening.judge.decision.decide`
then decides. What each rule does and why is in docs/listening.md.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from voice_earl.game.cards import Rank
from voice_earl.listening.judge.candidates import Candidate, Kind, Template, rank_spellings, sentence, turn_candidates
from voice_earl.listening.judge.decision import (
    JudgeResult,
    JudgeSettings,
    Scored,
    Slot,
    Transcript,
    decide,
    heard_where_voice_fell_away,
    sure_line,
    voice_stopped,
)
from voice_earl.listening.judge.logmel import FRAMES_PER_SECOND, log_mel
from voice_earl.listening.judge.rank_slots import RankTokens, articles, logsumexp, spelled_out
from voice_earl.listening.judge.settings import trained_judge_settings
from voice_earl.listening.judge.verifier import Verifier
from voice_earl.listening.models.judge_models import MODEL_FILES
from voice_earl.listening.models.trained_judge import is_trained_judge
from voice_earl.listening.recognizer import RecognizerError
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16
from voice_earl.listening.stream.speech_end import VOICE_SPAN_S, Levels, room_is_loud, speech_start_s, voice_fall
from voice_earl.paths import pip_install
from voice_earl.words.context import ListenContext
from voice_earl.words.text import normalise

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Scoring:
    """What Whisper found in one stretch of audio for a turn: every candidate's scores, each line's
    rank slot, and whether the room is loud."""

    scored: tuple[Scored, ...]
    slots: dict[Candidate, Slot]
    loud: bool


class WhisperJudge:
    """Whisper forced scoring of a turn's candidates (CTranslate2, CPU, int8)."""

    name = "whisper judge"

    def __init__(self, model_dir: Path, settings: JudgeSettings | None = None, threads: int = 1) -> None:
        """``threads``: one was faster than two on a 2-core machine."""
        try:
            import ctranslate2
            import tokenizers
        except ImportError as error:
            raise RecognizerError(
                f"the whisper judge needs ctranslate2 and tokenizers ({error}); {pip_install('voice-earl[judge]')}"
            ) from None
        self.settings = settings or settings_for(model_dir)
        # With settings.verifier: the verifier that decides (None: the shipped one). One being chosen is given here.
        self.verifier: Verifier | None = None
        self.model_dir = model_dir
        missing = [name for name in MODEL_FILES if not (model_dir / name).is_file()]
        if missing:
            raise RecognizerError(f"{model_dir} is not a CTranslate2 Whisper model: {', '.join(missing)} missing")
        self._ct2: Any = ctranslate2
        try:
            self._model: Any = ctranslate2.models.Whisper(
                str(model_dir), device="cpu", compute_type="int8", inter_threads=1, intra_threads=threads
            )
            self._tokenizer: Any = tokenizers.Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        except (RuntimeError, ValueError, OSError) as error:
            raise RecognizerError(f"cannot load the whisper model in {model_dir} ({error}); fetch it again") from None
        self._start = [self._token("<|startoftranscript|>")]
        self._no_timestamps = self._token("<|notimestamps|>")
        self._rank_tokens = RankTokens(self.tokens)
        self._quiet: tuple[Any, int] | None = None  # a quiet room, encoded
        self._quiet_logprobs: dict[str, np.ndarray] = {}  # each wording's tokens' log-probabilities there

    def _token(self, text: str) -> int:
        token = self._tokenizer.token_to_id(text)
        if token is None:
            raise RecognizerError(f"{self.model_dir}: the tokenizer has no {text} (not an English Whisper model)")
        return int(token)

    def tokens(self, text: str) -> list[int]:
        return list(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def word(self, token: int) -> str:
        return str(self._tokenizer.decode([token]))

    # -- judging

    def understands(self, context: ListenContext) -> bool:
        """Whisper tiny.en hears English: a chant written in other letters is left to the first pass."""
        chant = context.chant
        return all(text.isascii() for text in (*chant.lines, *(a for group in chant.alternates for a in group)))

    def judge(self, samples: Pcm16, context: ListenContext, first_pass: str = "", held: bool = False) -> JudgeResult:
        """Which of the turn's candidates ``samples`` (16 kHz int16, one utterance) holds, if any.

        ``first_pass``: what the first pass heard; when it is one of the candidates, the judge
        accepts it on weaker evidence than a candidate the first pass did not hear.

        When nothing is heard in a loud room, but the voice fell away after a pass or a command
        (:func:`voice_stopped`), the audio up to there is weighed again: the talk that went on
        around the table after it no longer counts against it. Only that phrase is taken from the
        second look. A phrase heard on the judge's own evidence where the voice fell away
        (:func:`heard_where_voice_fell_away`) is marked ``voice_stopped``: the speaker has finished,
        whatever the room goes on saying.

        ``held``: the whole of a held utterance (a phone's Hold to speak): the speaker marked it as
        theirs, so a pass or a command need not be said alone (:func:`decide_by_rules`)."""
        started = time.perf_counter()
        skip = self._voice_start(samples)
        result = self._judge(samples, skip, context, first_pass, held)
        stopped = voice_stopped(result.scored, self.settings)
        ended = heard_where_voice_fell_away(result, self.settings)
        if not result.heard and stopped is not None:
            weighed = round((stopped.end_s + VOICE_SPAN_S) * SAMPLE_RATE)
            again = self._judge(samples[:weighed], skip, context, first_pass, held)
            if again.phrase == stopped.candidate.phrase:
                said = stopped.candidate.text.strip()
                why = f"second look, up to where the voice fell away after {said!r}: {again.why}"
                result, ended = replace(again, why=why, weighed_to_s=min(weighed, len(samples)) / SAMPLE_RATE), True
        result = replace(result, compute_s=time.perf_counter() - started, voice_stopped=ended)
        best = result.best
        logger.debug(
            "judge: %r (best %r, mean %.2f) in %.0f ms: %s",
            result.phrase,
            best.candidate.text,
            best.mean,
            result.compute_s * 1000,
            result.why,
        )
        return result

    def stopped_after(self, result: JudgeResult, samples: Pcm16) -> bool | None:
        """Whether the speaker stopped where the line ``result`` heard ends: ``samples`` are the
        audio it was judged on and what came after, and the voice fell away near where Whisper put
        the line's end, stayed away for ``stop_look_s`` and did not come back
        (:func:`heard_where_voice_fell_away`; asked in a loud room, where talk goes on). None while
        the audio after it is too short to tell either way.

        Only the line due with a rank due (:func:`sure_line`) is taken so: talk may start with a
        pass or a command ("undo your seat belt first"), and a wrong rank or a wrong line waits for
        the judge's word on the whole of the speech. See :func:`speaker_stopped`."""
        return speaker_stopped(result, samples, self.settings)

    def _voice_start(self, samples: Pcm16) -> int:
        """The first sample to weigh: in a loud room, ``VOICE_LEAD_S`` before the voice is first
        loud. The talk around the table before the speaker began is not the speaker's, and left in,
        Whisper writes it too, so a pass said after it looks like the end of a sentence."""
        start = speech_start_s(samples) if room_is_loud(samples) else None
        return 0 if start is None else max(0, round((start - VOICE_LEAD_S) * SAMPLE_RATE))

    def _judge(
        self, samples: Pcm16, skip: int, context: ListenContext, first_pass: str, held: bool = False
    ) -> JudgeResult:
        """The judge on ``samples`` from sample ``skip`` on (where a phrase ends is told from the
        start of ``samples``)."""
        started = time.perf_counter()
        heard = normalise(first_pass)
        scoring, transcribe = self._scoring(samples, skip, context, heard)
        free: list[Transcript] = []

        def transcript() -> Transcript:
            if not free:
                free.append(transcribe())
            return free[0]

        decision = decide(
            scoring.scored,
            scoring.slots,
            self.settings,
            transcript,
            heard,
            context.position,
            scoring.loud,
            self.verifier if self.settings.verifier else None,
            held=held,
        )
        return JudgeResult(
            decision.phrase,
            decision.best,
            time.perf_counter() - started,
            scoring.scored,
            scoring.slots,
            heard,
            context.position,
            free[0] if free else None,
            loud_room=scoring.loud,
            why=decision.why,
        )

    def _scoring(
        self, samples: Pcm16, skip: int, context: ListenContext, heard: str
    ) -> tuple[Scoring, Callable[[], Transcript]]:
        """What the model finds in ``samples`` from sample ``skip`` on for the turn's candidates (and
        ``heard``, the first pass's phrase), and a call for its free transcript there. The decision is
        no part of it, so that a decision can be tried again on the same scores."""
        encoded, frames = self._encode(samples[skip:])
        turn = turn_candidates(context)
        filled, slots = self._fill_slots(encoded, turn.templates, context.ranks)
        candidates = [*filled, *turn.fixed]
        if heard and all(c.phrase != heard for c in candidates):
            candidates += spelled_out(heard, turn.templates)[:1]
        loud = room_is_loud(samples)
        scored = self._score(encoded, frames, candidates, samples, skip, loud)
        return Scoring(tuple(scored), slots, loud), lambda: self._transcribe(encoded)

    def encoded(self, samples: Pcm16) -> tuple[Any, int]:
        """``samples`` encoded as the judge weighs them (in a loud room, from just before the voice), and
        how many of the window's frames hold audio: what the judge's decoder is trained on."""
        return self._encode(samples[self._voice_start(samples) :])

    def _encode(self, samples: Pcm16) -> tuple[Any, int]:
        seconds = len(samples) / SAMPLE_RATE
        window = max(MIN_WINDOW_S, float(np.ceil(seconds + 0.25)))
        frames = int(window * FRAMES_PER_SECOND)
        features = log_mel(samples.astype(np.float32) / 32768.0, frames)
        view = self._ct2.StorageView.from_array(features[None])
        encoded = np.array(self._model.encode(view, to_cpu=True))
        return encoded, min(frames, int(seconds * FRAMES_PER_SECOND) + 1)

    def transcribe(self, samples: Pcm16) -> Transcript:
        """What Whisper writes for ``samples`` when free to write anything (a few tokens), on the
        audio the judge weighs (in a loud room, from just before the voice)."""
        return self._transcribe(self._encode(samples[self._voice_start(samples) :])[0])

    def _transcribe(self, encoded: Any) -> Transcript:
        prompt = [*self._start, self._no_timestamps]
        # A penalty on repeats: left free on noise, Whisper loops ("past lead past lead ..."), and a
        # loop is likely enough to outscore the pass it began as.
        (result,) = self._model.generate(
            self._batch(encoded, 1),
            [prompt],
            beam_size=1,
            max_length=FREE_TOKENS,
            repetition_penalty=1.5,
            return_scores=True,
        )
        return Transcript(str(self._tokenizer.decode(result.sequences_ids[0])), float(result.scores[0]))

    def _batch(self, encoded: Any, size: int) -> Any:
        return self._ct2.StorageView.from_array(np.ascontiguousarray(np.repeat(encoded, size, axis=0)))

    def _fill_slots(
        self, encoded: Any, templates: Sequence[Template], due_ranks: tuple[Rank, ...] = ()
    ) -> tuple[list[Candidate], dict[Candidate, Slot]]:
        """Each template with the ranks likeliest in its slot (one decoder pass for all templates);
        the line due also with the rank due, when one is, wherever it stands in the slot, and in
        every spelling of it: the slot is read on a rank's first token alone, and the words after it
        may make the line likelier spelled otherwise (" There's a nine as good as he" than " ... a 9 ...").

        Before a rank that starts with a vowel, "a" is also tried as "an" ("There's an Eight")."""
        slotted = [t for t in templates if len(t.ranks) > 1]
        at_slot = self._slot_distributions(encoded, sorted({b for t in slotted for b in articles(t.before)}))
        filled: list[Candidate] = []
        slots: dict[Candidate, Slot] = {}
        for template in slotted:
            for slot in self._rank_tokens.ranked(at_slot, template, due_ranks):
                candidate = template.fill(slot.spelling, slot.before)
                rank_due = template.keep > 1 and due_ranks == (slot.rank,)
                if slot.place < template.keep or rank_due:
                    filled.append(candidate)
                if rank_due:
                    spelled = [template.fill(s, slot.before) for s in rank_spellings(slot.rank) if s != slot.spelling]
                    filled.extend(spelled)
                    slots.update(dict.fromkeys(spelled, slot))
                slots[candidate] = slot
                slots.setdefault(template.fill(rank_spellings(slot.rank)[0]), slot)  # as the first pass says it
        heard_rank = slots[filled[0]].spelling if filled else None
        for template in templates:
            if len(template.ranks) == 1:
                filled.append(template.fill(rank_spellings(template.ranks[0])[0]))
            elif not template.ranks and heard_rank is not None:
                filled.append(template.fill(heard_rank))
        return filled, slots

    def _slot_distributions(self, encoded: Any, befores: Sequence[str]) -> dict[str, Any]:
        """The log-probability of every token right after each of ``befores`` (one decoder pass)."""
        if not befores:
            return {}
        prompts = [[*self._start, self._no_timestamps, *self.tokens(before)] for before in befores]
        longest = max(len(p) for p in prompts) - 1
        results = self._model.generate(
            self._batch(encoded, len(prompts)),
            prompts,
            beam_size=1,
            max_length=2 * (longest + 1),
            return_logits_vocab=True,
            suppress_blank=False,
            suppress_tokens=[],
        )
        at_slot = {}
        for before, prompt, result in zip(befores, prompts, results, strict=True):
            logits = np.asarray(result.logits[0], dtype=np.float64)[len(prompt) - 2]
            at_slot[before] = logits - logsumexp(logits)
        return at_slot

    def _score(
        self, encoded: Any, frames: int, candidates: Sequence[Candidate], samples: Pcm16, skip: int, loud: bool
    ) -> list[Scored]:
        """Each candidate scored on the audio encoded (``samples`` from sample ``skip`` on; ``loud``: in a
        loud room)."""
        texts = [scored_text(c) for c in candidates]
        skip_s = skip / SAMPLE_RATE
        aligned = [
            (logprobs, end_s + skip_s, start_s + skip_s)
            for logprobs, end_s, start_s in self._align(encoded, frames, texts)
        ]
        quiet = self._quiet_scores(texts)
        # Only a loud room has talk that goes on after the speaker stops.
        levels = Levels(samples) if loud else None
        scored = []
        for c, text, (logprobs, end_s, start_s) in zip(candidates, texts, aligned, strict=True):
            drop = back = None
            if levels is not None and (fall := voice_fall(levels, end_s, FALL_SEARCH_S)) is not None:
                end_s, drop, back = fall.at_s, fall.drop_db, fall.back_db
            # A line's full stop is weighed apart from its words (talk around the table may follow it).
            words = logprobs[:-1] if text != c.text else logprobs
            quiet_words = quiet[text][:-1] if text != c.text else quiet[text]
            scored.append(
                Scored(
                    c,
                    float(words.sum()),
                    len(words),
                    float(quiet_words.sum()),
                    float(logprobs[-1]),
                    voice_drop_db=drop,
                    end_s=end_s,
                    voice_back_db=back,
                    start_s=start_s,
                )
            )
        return scored

    def _align(self, encoded: Any, frames: int, texts: Sequence[str]) -> list[tuple[np.ndarray, float, float]]:
        """Each text's tokens' log-probabilities given the audio (one batch), where in the audio its
        last word ends (from Whisper's cross-attention alignment; a full stop is no word) and where
        its first begins."""
        tokens = [self.tokens(text) for text in texts]
        results = self._model.align(self._batch(encoded, len(texts)), self._start, tokens, frames)
        aligned = []
        for text, text_tokens, result in zip(texts, tokens, results, strict=True):
            last_word = len(text_tokens) - (2 if text.endswith(".") and len(text_tokens) > 1 else 1)
            steps = [step for index, step in result.alignments if index == last_word]
            end_s = (max(steps) + 1) * SECONDS_PER_STEP if steps else 0.0
            first = [step for index, step in result.alignments if index == 0]
            start_s = min(first) * SECONDS_PER_STEP if first else 0.0
            logprobs = np.log(np.maximum(np.asarray(result.text_token_probs, dtype=np.float64), 1e-30))
            aligned.append((logprobs, end_s, start_s))
        return aligned

    def _quiet_scores(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Each wording's tokens' log-probabilities on a quiet room's audio, scored the first time it is met."""
        missing = sorted({t for t in texts if t not in self._quiet_logprobs})
        if missing:
            if self._quiet is None:
                room = np.random.default_rng(0).normal(0.0, QUIET_ROOM_LEVEL, 2 * SAMPLE_RATE)
                self._quiet = self._encode(room.astype(np.int16))
            aligned = self._align(*self._quiet, missing)
            self._quiet_logprobs.update(
                (text, logprobs) for text, (logprobs, _end, _start) in zip(missing, aligned, strict=True)
            )
        return {t: self._quiet_logprobs[t] for t in texts}


def settings_for(model_dir: Path) -> JudgeSettings:
    """The decision fitted on this model's scores: the trained judge's (built over tiny.en from the
    patch in models/) or tiny.en's own."""
    return trained_judge_settings() if is_trained_judge(model_dir) else JudgeSettings()


def scored_text(candidate: Candidate) -> str:
    """What is scored for a candidate: a line with its full stop after it (kept apart from its words'
    log-probability: :attr:`Scored.last_logprob`), a short phrase as it is (its stop is its own).

    >>> from voice_earl.listening.judge.candidates import Kind
    >>> scored_text(Candidate(Kind.LINE, " There's the best of all the three", "there is the best of all the three"))
    " There's the best of all the three."
    >>> scored_text(Candidate(Kind.PASS, " Pass.", "pass"))
    ' Pass.'
    """
    return sentence(candidate.text) if candidate.kind is Kind.LINE else candidate.text


def speaker_stopped(result: JudgeResult, samples: Pcm16, settings: JudgeSettings) -> bool | None:
    """:meth:`WhisperJudge.stopped_after`, asked of the line heard in its likeliest spelling: the line
    due is weighed in every spelling of the rank due ("a 9", "a nine", "a Nine"), and one of them is
    always less likely than the others."""
    said = [item for item in result.scored if item.candidate.phrase == result.phrase]
    heard = max(said, key=lambda item: item.mean, default=None)
    if heard is None or not sure_line(heard, result, settings):
        return False
    seconds, look = len(samples) / SAMPLE_RATE, VOICE_SPAN_S + settings.stop_look_s
    if seconds < heard.end_s + look:
        return None
    fall = voice_fall(Levels(samples), heard.end_s, FALL_SEARCH_S)
    if fall is not None and seconds >= fall.at_s + look:
        measured = replace(heard, voice_drop_db=fall.drop_db, end_s=fall.at_s, voice_back_db=fall.back_db)
        if heard_where_voice_fell_away(replace(result, scored=(measured,)), settings):
            return True
    # Whisper may put the end half a second early or late: a fall may still come there.
    return False if seconds >= heard.end_s + FALL_SEARCH_S + look else None


# Whisper's encoder gives one step of the alignment per 20 ms of audio.
SECONDS_PER_STEP = 0.02

# Whisper's alignment puts a phrase's end up to half a second early or late: where the voice falls away
# the most is looked for this far either side of it.
FALL_SEARCH_S = 0.5

# In a loud room, the audio is weighed from this long before the voice is first loud (the room's talk
# before the speaker began is not the speaker's).
VOICE_LEAD_S = 0.1

# Audio is encoded in a window of whole seconds, at least this long.
MIN_WINDOW_S = 3.0

# The free transcript: enough tokens to tell "Pass." from "Pass me the crisps".
FREE_TOKENS = 12

# A quiet room (noise at about -80 dBFS), against which each wording's gain is measured.
QUIET_ROOM_LEVEL = 3.0
