"""Several voice-earls starting at once on a new database: one builds the tables, the others wait."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.patience import WAIT_S

from voice_earl.keep.storage import Store
from voice_earl.keep.storage_schema import SCHEMA_VERSION
from voice_earl.paths import REPO_ROOT

# Each process imports first, then waits for the same moment, so that they open the new file together.
OPENER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from voice_earl.errors import VoiceEarlError
    from voice_earl.keep.storage import Store

    time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
    try:
        with Store.open(Path(sys.argv[1]), exclusive=False) as store:
            store.list_series()
    except VoiceEarlError as error:
        print(error)
        sys.exit(1)
    """
)

ROUNDS = 8
AT_ONCE = 6


@pytest.mark.slow
def test_commands_starting_together_on_a_new_database_all_open_it(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    failures: list[str] = []
    for round_number in range(ROUNDS):
        path = tmp_path / f"round-{round_number}" / "voice-earl.sqlite3"
        path.parent.mkdir()
        start = time.time() + 1.0
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", OPENER, str(path), str(start)], env=env, stdout=subprocess.PIPE, text=True
            )
            for _ in range(AT_ONCE)
        ]
        for process in processes:
            out, _ = process.communicate(timeout=WAIT_S)
            if process.returncode != 0:
                failures.append(out.strip())
        with Store.open(path, exclusive=False) as store:
            assert store._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert failures == []
