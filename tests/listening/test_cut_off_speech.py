"""Speech cut short is never a pass: "There's a…" with the recording ending on it, or with quiet after.

Whisper, weighing "I pass." or "Pass, please." against the start of a line, finds them nearly as
likely as a pass said in a loud room, and a little likelier than a quiet room does. So the listener
takes no pass (nor a spoken command) from speech that the end of the audio cut off, with the voice
still loud, and the judge hears a pass that is very unlikely in itself only when the sound makes it
much likelier than a quiet room does. The voices are espeak-ng's; the judge's model is the one the
judge extra installs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.listening_audio import needs_espeak, padded, speak

from voice_earl.game.cards import Rank
from voice_earl.listening.judge.candidates import Candidate, Kind
from voice_earl.listening.judge.decision import JudgeSettings, Scored
from voice_earl.listening.judge.rules import choose
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16, pcm_chunks
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.utterance import grade_utterance
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import Verdict

PASS = Candidate(Kind.PASS, " Pass.", "pass")
COMMANDS = ("undo", "repeat")
# Lines cut off where the judge, before, heard a pass in them (whole seconds of espeak-ng's audio).
CUT_OFF = [
    ("en-us", "There's a Nine as good as he", 0.40),
    ("en-us", "There's a Nine as good as he", 0.65),
    ("en-us+f3", "There's a Queen as good as he", 0.50),
    ("en-gb", "There's a Nine as good as he", 0.60),
    ("en-gb+m3", "There's a Nine as good as he", 0.65),
]
# ... and the start of a lead, "There's a", with a very quiet room after it.
STOPPED = [
    ("en-gb", "There's as good as Nine can be", 0.35),
    ("en-gb", "There's as good as King can be", 0.35),
    ("en-gb+m3", "There's as good as Queen can be", 0.35),
    ("en-gb+m3", "There's as good as Ace can be", 0.35),
]


def test_a_pass_very_unlikely_in_itself_needs_a_clear_gain_over_a_quiet_room() -> None:
    settings = JudgeSettings()

    def pass_(mean: float, gain: float) -> str:
        said = Scored(PASS, mean * 2, 2, quiet_logprob=(mean - gain) * 2, last_logprob=-2.0)
        return choose([said], {}, settings).phrase

    assert pass_(-5.9, 0.94) == ""  # "There's a", then quiet (espeak-ng's en-gb)
    assert pass_(-5.9, 1.94) == "pass"  # a pass said in a loud room
    assert pass_(-3.8, 0.98) == "pass"  # likely enough in itself, at a pass's gain


def spoken(voice: str, text: str, seconds: float, folder: Path) -> Pcm16:
    """The first ``seconds`` of ``text`` as espeak-ng says it (speed 175, its default)."""
    speech = speak(text, folder / f"{voice}-{len(text)}-{text[10:14]}.wav", voice=voice, speed=175)
    return speech[: round(seconds * SAMPLE_RATE)]


def verdicts(listener: Listener, samples: Pcm16) -> set[Verdict]:
    heard = set()
    for position in (1, 2, 3):
        context = ListenContext(position, (Rank.QUEEN,), commands=COMMANDS)
        utterance = listener.listen(pcm_chunks(samples, chunk_ms=40), context)
        heard.add(grade_utterance(utterance, context).verdict)
        assert utterance.text not in COMMANDS
    return heard


@pytest.mark.slow
@needs_espeak
@pytest.mark.parametrize(("voice", "text", "seconds"), CUT_OFF)
def test_a_recording_cut_off_in_a_line_is_never_a_pass(
    listener: Listener, tmp_path: Path, voice: str, text: str, seconds: float
) -> None:
    assert Verdict.PASS not in verdicts(listener, spoken(voice, text, seconds, tmp_path))


@pytest.mark.slow
@needs_espeak
@pytest.mark.parametrize(("voice", "text", "seconds"), STOPPED)
def test_the_start_of_a_line_with_quiet_after_it_is_never_a_pass(
    listener: Listener, tmp_path: Path, voice: str, text: str, seconds: float
) -> None:
    framed = padded(spoken(voice, text, seconds, tmp_path), 0.4, 1.2).astype(np.float64)
    room = np.random.default_rng(0).normal(0.0, 3.0, len(framed))  # a very quiet room, not digital silence
    assert Verdict.PASS not in verdicts(listener, np.clip(framed + room, -32768, 32767).astype(np.int16))


@pytest.mark.slow
@needs_espeak
def test_the_tables_own_pass_word_cut_off_with_the_voice_still_loud_is_no_pass(
    listener: Listener, tmp_path: Path
) -> None:
    """At an Italian table "passo" passes, but not "Passo dopo" (I will come by later) cut off just after
    "passo": the judge hears "Passo." in it, and the listener takes no pass from speech cut off."""
    samples = spoken("it", "Passo dopo", 0.35, tmp_path)
    context = ListenContext(2, (Rank.QUEEN,), commands=COMMANDS, language="it")
    utterance = listener.listen(pcm_chunks(samples, chunk_ms=40), context)
    assert grade_utterance(utterance, context).verdict is not Verdict.PASS
    assert utterance.why.startswith("listener: 'passo' cut off")
