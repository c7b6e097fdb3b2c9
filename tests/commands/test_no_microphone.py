"""`play`, `practice` and `drill` at a real terminal (a pty) when no microphone can start: each offers
to go on without one, and a player who declines (with "n", or the end of input) gets one line and a
non-zero exit status, never a traceback and never the status of a game played.

``--device 9999`` names a microphone no machine has, so the microphone fails wherever this runs.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import pytest
from support.patience import WAIT_S

NO_MIC = ["--device", "9999", "--no-judge"]
COMMANDS = {
    "play": ["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--no-voice", *NO_MIC],
    "practice": ["practice", "--no-voice", *NO_MIC],
    "drill": ["drill", *NO_MIC],
}
QUESTIONS = {
    "play": b"Play Silent Earl instead",
    "practice": b"Play Silent Earl instead",
    "drill": b"Type the lines instead",
}


def at_a_terminal(argv: list[str], question: bytes, answer: bytes) -> tuple[int, str]:
    """Run ``voice-earl ARGV`` on a pty, answer ``question`` with ``answer``; its status and all it wrote."""
    main, side = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "voice_earl", *argv], stdin=side, stdout=side, stderr=side, close_fds=True
    )
    os.close(side)
    seen = b""
    answered = False
    deadline = time.monotonic() + WAIT_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    piece = os.read(main, 4096)
                except OSError:  # the other side has closed: the command is over
                    break
                if not piece:
                    break
                seen += piece
            if not answered and question in seen:
                os.write(main, answer)
                answered = True
            if process.poll() is not None and not ready:
                break
        status = process.wait(timeout=WAIT_S)
    finally:
        process.kill()
        os.close(main)
    assert answered, seen.decode(errors="replace")
    return status, seen.decode(errors="replace")


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("answer", [b"n\r", b"\x04"], ids=["no", "end of input"])
def test_declining_to_go_on_without_a_microphone_stops_with_a_failure(command: str, answer: bytes) -> None:
    status, seen = at_a_terminal(COMMANDS[command], QUESTIONS[command], answer)
    assert status == 1, seen
    assert "stopped: without a microphone" in seen
    assert "Traceback" not in seen and "EOFError" not in seen
    if command == "drill":  # the way on is the drill's own, not Silent Earl's
        assert "voice-earl drill --typed" in seen and "play --silent" not in seen
