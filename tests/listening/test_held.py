"""A held utterance (a phone's Hold to speak) judged whole, on speech synthesized by espeak-ng: by
the whisper judge, and by the first pass alone when there is no judge; the narrator's mute, which
is the laptop's, does not reach it."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest
from support.listening_audio import needs_espeak, padded, speak, with_noise

from voice_earl.game.cards import Rank
from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
from voice_earl.listening.stream.held import hear_held
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.utterance import grade_utterance
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import Verdict

pytestmark = [pytest.mark.slow, needs_espeak]

QUEENS_SECOND = ListenContext(2, (Rank.QUEEN,), commands=("undo", "repeat"))


def held(text: str, folder: Path) -> np.ndarray:
    """As a phone sends it: the button a moment before the voice and a moment after it."""
    return with_noise(padded(speak(text, folder / "said.wav"), 0.3, 0.25), 30.0)


@pytest.mark.parametrize(
    ("said", "verdict"),
    [
        ("There's a Queen as good as he", Verdict.CORRECT),
        ("There's a King as good as he", Verdict.WRONG_RANK),
        ("pass", Verdict.PASS),
        ("could you pass the salt please", Verdict.UNCLEAR),
    ],
)
def test_the_judge_hears_the_whole_hold_at_once(
    listener: Listener, tmp_path: Path, said: str, verdict: Verdict
) -> None:
    samples = held(said, tmp_path)
    utterance = hear_held(listener, samples, QUEENS_SECOND)
    assert grade_utterance(utterance, QUEENS_SECOND).verdict is verdict
    assert utterance.judge_result is not None and utterance.audio_s == len(samples) / 16000
    assert utterance.speech_start is not None and 0.2 < utterance.speech_start < 0.5


def test_a_button_held_in_silence_is_nothing_heard_without_asking_the_judge(listener: Listener) -> None:
    utterance = hear_held(listener, np.zeros(16000, dtype=np.int16), QUEENS_SECOND)
    assert (utterance.text, utterance.speech_start, utterance.judge_result) == ("", None, None)
    assert grade_utterance(utterance, QUEENS_SECOND).verdict is Verdict.SILENT


def test_without_a_judge_the_first_pass_hears_it_even_while_the_narrator_speaks(tmp_path: Path) -> None:
    first_pass = Listener(SphinxRecognizer())
    with first_pass.muted():  # the laptop's microphone is muted: the phone's is not
        utterance = hear_held(first_pass, held("There's a Queen as good as he", tmp_path), QUEENS_SECOND)
    assert grade_utterance(utterance, QUEENS_SECOND).verdict is Verdict.CORRECT
    assert utterance.why == "first pass alone"


def test_a_hold_heard_at_the_table_says_what_decided_and_the_log_file_says_it_too(
    listener: Listener, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from voice_earl.table.phones.mic_gate import HeldHearing

    hearing = HeldHearing(listener)
    with caplog.at_level(logging.INFO, logger="voice_earl.listening.stream.listener"):
        passed = hearing(held("pass", tmp_path).astype("<i2").tobytes(), QUEENS_SECOND)
    assert any(passed.why in record.getMessage() and "'pass'" in record.getMessage() for record in caplog.records)
    talk = hearing(held("could you pass the salt please", tmp_path).astype("<i2").tobytes(), QUEENS_SECOND)
    assert passed.grade.verdict is Verdict.PASS and passed.why.startswith("rule ")
    assert talk.grade.verdict is Verdict.UNCLEAR and talk.why.startswith(("veto ", "rules: nothing heard"))
