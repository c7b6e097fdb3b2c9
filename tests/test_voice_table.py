"""The voice at the table: the real listener behind the session's input, and the demo."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest

from voice_earl.cards import Rank
from voice_earl.cli import main
from voice_earl.listening.audio import AudioChunk
from voice_earl.listening.context import ListenContext
from voice_earl.listening.verdicts import Verdict
from voice_earl.rules import HOYLE, DeckMode
from voice_earl.session import Seat, TableSession, TableSettings
from voice_earl.turns import Heard, Silence
from voice_earl.voice_input import Clock, VoiceInput, open_listener, synthesized_recital


class FakeClock(Clock):
    """Advances by each chunk's duration, so a 20 s silence takes no real time."""

    def __init__(self) -> None:
        self.t = 1000.0

    def now(self) -> float:
        return self.t


def silent_chunks(clock: FakeClock, seconds: float) -> Iterator[AudioChunk]:
    for _ in range(int(seconds / 0.04)):
        clock.t += 0.04
        yield AudioChunk(np.zeros(640, dtype=np.int16).tobytes(), captured_at=None)


@pytest.fixture(scope="module")
def listener():  # type: ignore[no-untyped-def]
    found, _ = open_listener("pocketsphinx", None)
    return found


@pytest.mark.slow
def test_silence_times_out_to_a_silence_input(listener) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    source = VoiceInput(listener, chunks=lambda: silent_chunks(clock, 60.0), silence_timeout_s=20.0, clock=clock)
    session = TableSession(TableSettings(tuple(Seat(n) for n in "ABC"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1), {})
    given = source.next_input(session.request())
    assert isinstance(given, Silence) and 19.9 <= given.seconds <= 21.0


@pytest.mark.slow
def test_a_spoken_lead_is_heard_and_judged(listener) -> None:  # type: ignore[no-untyped-def]
    recite = synthesized_recital(listener, "en+m3")
    context = ListenContext(1, (Rank.SEVEN, Rank.KING))
    heard = recite(context, "There's as good as Seven can be")
    assert isinstance(heard, Heard)
    assert heard.judgement.verdict is Verdict.CORRECT and heard.judgement.rank is Rank.SEVEN
    assert heard.latency_ms is not None and heard.latency_ms >= 0


@pytest.mark.slow
def test_demo_plays_a_deal_through_the_listener(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--players", "3", "--seed", "2", "--jsonl", "--recognizer", "pocketsphinx"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = [r["event"] for r in records]
    assert kinds[0] == "deal" and "win" in kinds and kinds[-1] == "series"
    spoken = [r for r in records if r["event"] in ("lead", "play", "pass")]
    assert spoken and all({"heard", "verdict", "score", "latency_ms"} <= set(r) for r in spoken)
    correct = sum(r["verdict"] in ("correct", "pass") for r in spoken)
    assert correct >= len(spoken) // 2, "most synthesized formulas are recognised"
