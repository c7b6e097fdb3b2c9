"""The room's talk alone as the listener looks at it (voice_earl/bench/room_alone.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.listening_audio import needs_espeak

from voice_earl.bench import room_alone
from voice_earl.bench.corpus import Expect
from voice_earl.bench.golden_file import TRAINED_JUDGE, read_corpus, write_corpus
from voice_earl.listening.judge.candidates import Candidate, Kind
from voice_earl.listening.judge.scores import JudgeResult, Scored, Transcript
from voice_earl.listening.stream.audio import Pcm16
from voice_earl.words.context import ListenContext

pytestmark = [needs_espeak, pytest.mark.slow]  # the cafe's five talkers are synthesized once


def test_the_stretches_are_the_cafes_talk_in_both_rooms_as_long_as_a_look_and_the_same_for_a_seed(
    tmp_path: Path,
) -> None:
    room = list(room_alone.stretches(20, 4e6, tmp_path))
    assert [s.condition for s in room[:4]] == ["cafe 12 dB", "cafe 6 dB"] * 2
    assert all(room_alone.SHORTEST_S <= s.seconds <= room_alone.LONGEST_S for s in room)
    assert all(np.abs(s.samples).max() > 1000 for s in room)  # talk, at a speaker's level less 12 or 6 dB
    loud = [float(np.mean(s.samples.astype(np.float64) ** 2)) for s in room]
    assert np.median(loud[1::2]) > np.median(loud[::2])  # 6 dB is the louder room
    again = list(room_alone.stretches(20, 4e6, tmp_path))
    pairs = zip(room, again, strict=True)
    assert all(np.array_equal(a.samples, b.samples) and a.context == b.context for a, b in pairs)
    other = list(room_alone.stretches(20, 4e6, tmp_path, seed=12))
    assert not all(np.array_equal(a.samples, b.samples) for a, b in zip(room, other, strict=True))
    assert {s.context.position for s in room} == {1, 2, 3, 4}


def test_only_what_a_judge_hears_is_counted_and_a_speakers_power_must_be_real(tmp_path: Path) -> None:
    class EveryOther:
        """Hears a pass in every other stretch it is given."""

        def __init__(self) -> None:
            self.asked = 0

        def judge(self, samples: Pcm16, context: ListenContext) -> JudgeResult:
            self.asked += 1
            phrase = "pass" if self.asked % 2 else ""
            best = Scored(Candidate(Kind.PASS, " Pass.", "pass"), -1.0, 2)
            return JudgeResult(phrase, best, 0.05, why="scripted", scored=(best,))

        def transcribe(self, samples: Pcm16) -> Transcript:
            return Transcript(" Pass the salt.", -0.5)

    room = list(room_alone.stretches(6, 4e6, tmp_path))
    heard = room_alone.heard_in(EveryOther(), room)
    assert [h.stretch for h in heard] == room[::2]
    assert str(heard[0]).startswith("cafe 12 dB, ") and "'pass' (scripted)" in str(heard[0])
    # Every stretch is kept with its free transcript, as the golden corpus keeps the room alone: by room, in order.
    judged = room_alone.judged_in(EveryOther(), room)
    assert [one.result.heard for one in judged] == [True, False] * 3
    write_corpus(room_alone.as_corpus(judged), tmp_path / "room.npz", judge=TRAINED_JUDGE)
    cases = read_corpus(tmp_path / "room.npz")
    assert [(c.condition, c.text, c.expect) for c in cases] == sorted(
        ((s.condition, f"stretch {n}", Expect.ROOM) for n, s in enumerate(room, 1)), key=lambda c: c[0]
    )
    assert all(c.result.free == Transcript(" Pass the salt.", -0.5) for c in cases)
    assert [c.context for c in cases if c.condition == "cafe 6 dB"] == [s.context for s in room[1::2]]
    with pytest.raises(ValueError, match="must be positive"):
        next(room_alone.stretches(1, -3.0, tmp_path))
