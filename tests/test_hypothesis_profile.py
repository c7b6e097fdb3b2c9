"""The suite's Hypothesis settings: no @given test may fail because the machine is busy (tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.patience import WAIT_S

TESTS = Path(__file__).resolve().parent


def test_the_loaded_profile_has_no_deadline() -> None:
    assert settings.default is not None
    assert settings.default.deadline is None


@given(st.integers())
def test_a_given_test_runs_without_a_deadline(number: int) -> None:
    assert settings.default is not None  # inside a @given test: the settings it runs with
    assert settings.default.deadline is None


@pytest.mark.parametrize("ci", ["", "true"])
def test_no_deadline_with_or_without_ci(ci: str) -> None:
    """Under CI Hypothesis loads its "ci" profile when it is imported, before the suite's conftest runs."""
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    if ci:
        env["CI"] = ci
    code = (
        "import conftest; from hypothesis import settings;"
        " print(settings.get_current_profile_name(), settings.default.deadline)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code], cwd=TESTS, env=env, capture_output=True, text=True, timeout=WAIT_S, check=True
    ).stdout.split()
    assert shown == ["ci" if ci else "default", "None"]
