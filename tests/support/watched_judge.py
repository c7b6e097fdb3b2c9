"""The real judge, watched: what it heard at each look and what it answered when asked whether the
speaker stopped after a line (the listener tests read them)."""

from __future__ import annotations

from voice_earl.listening.judge.decision import JudgeResult
from voice_earl.listening.judge.whisper import WhisperJudge
from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16
from voice_earl.words.context import ListenContext


class WatchedJudge:
    """The real judge, keeping what it heard at each look ("" for nothing) with how much audio it was
    given, and each answer to whether the speaker stopped after a line."""

    def __init__(self, judge: WhisperJudge) -> None:
        self.inner = judge
        self.name = judge.name
        self.heard: list[tuple[str, float]] = []
        self.answers: list[tuple[str, bool]] = []

    def understands(self, context: ListenContext) -> bool:
        return self.inner.understands(context)

    def judge(self, samples: Pcm16, context: ListenContext, first_pass: str = "", held: bool = False) -> JudgeResult:
        result = self.inner.judge(samples, context, first_pass, held)
        self.heard.append((result.phrase, len(samples) / SAMPLE_RATE))
        return result

    def stopped_after(self, result: JudgeResult, samples: Pcm16) -> bool | None:
        answer = self.inner.stopped_after(result, samples)
        if answer is not None:
            self.answers.append((result.phrase, answer))
        return answer
