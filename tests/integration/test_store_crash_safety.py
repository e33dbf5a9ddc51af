"""SIGKILL a process writing a JSON store at random moments: the file stays old or new, whole."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from tests.fakes.store_writer import run_kill_loop

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(120),
    pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL semantics are POSIX"),
]

KILLS = 200


def test_sigkill_during_writes_leaves_old_or_new_content(tmp_path: Path) -> None:
    seed = random.SystemRandom().randrange(2**32)
    report = run_kill_loop(
        tmp_path / "store" / "state.json", KILLS, rng=random.Random(seed), stop_on_problem=True
    )

    summary = f"seed {seed}\n" + "\n".join(report.lines())
    assert report.problems == [], summary
    assert report.kills >= KILLS, summary
    # Proof some kills landed inside a write (between temp creation and rename), not only between.
    assert report.leftover_temps > 0, summary
