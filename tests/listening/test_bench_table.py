"""The listening benchmark's table (voice_earl/bench/outcomes.py, printed by scripts/bench_listening.py): what its
latency is taken over."""

from __future__ import annotations

import pytest

from voice_earl.bench.corpus import Expect, Trial, commands_context
from voice_earl.bench.outcomes import Outcome, row, show_errors
from voice_earl.game.cards import RANKS
from voice_earl.words.verdicts import Verdict

CONTEXT = commands_context(2, (RANKS[0],))


def outcome(expect: str, verdict: Verdict, latency_ms: int) -> Outcome:
    return Outcome(Trial("said", CONTEXT, expect, None), verdict, "heard", latency_ms, 0, 0, 0)


def latencies(outcomes: list[Outcome]) -> tuple[str, str]:
    """The p50 and p90 cells of the row."""
    cells = row("judge", "clean", outcomes).split()
    return cells[-5], cells[-4]


def test_latency_is_taken_over_the_lines_and_passes_heard_as_said() -> None:
    heard = [outcome(Expect.CORRECT, Verdict.CORRECT, ms) for ms in (100, 200, 300)]
    # A line missed waits for the end of the recording, and a pass heard as a line is no pass: neither is timed.
    missed = [outcome(Expect.CORRECT, Verdict.UNCLEAR, 2000), outcome(Expect.PASS, Verdict.CORRECT, 3000)]
    assert latencies(heard + missed) == ("200", "300")
    assert latencies(heard) == ("200", "300")


def test_a_verdict_at_once_counts_as_no_wait() -> None:
    at_once = [outcome(Expect.PASS, Verdict.PASS, 0)] * 3
    assert latencies([*at_once, outcome(Expect.CORRECT, Verdict.CORRECT, 400)]) == ("0", "400")


def test_no_verdict_heard_leaves_the_latency_unknown() -> None:
    assert latencies([outcome(Expect.CORRECT, Verdict.UNCLEAR, 2000)]) == ("-", "-")


def test_the_mistakes_are_listed_grouped_by_the_reason_that_decided_them(capsys: pytest.CaptureFixture[str]) -> None:
    def said(expect: str, verdict: Verdict, why: str) -> Outcome:
        return Outcome(Trial("said", CONTEXT, expect, None), verdict, "heard", 300, 0, 0, 0, why)

    show_errors(
        [
            said(Expect.PASS, Verdict.UNCLEAR, "verifier: pass 0.21 < 0.40"),
            said(Expect.CORRECT, Verdict.CORRECT, "rule floor: line mean -0.80 >= -3.5"),  # no mistake
            said(Expect.CHATTER, Verdict.PASS, "rule floor: pass mean -1.20 >= -3.5"),
            said(Expect.PASS, Verdict.UNCLEAR, "verifier: pass 0.05 < 0.40"),
        ]
    )
    out = capsys.readouterr().out
    groups = [line.strip() for line in out.splitlines() if not line.startswith("    ")]
    assert groups == ["2 x verifier: pass < 0.40", "1 x rule floor: pass mean >= -3.5"]
    assert "verifier: pass 0.21 < 0.40" in out and "line mean -0.80" not in out
