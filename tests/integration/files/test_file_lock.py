"""The user's files every IdeA process writes: two processes trusting projects at the same time
lose no entry (two `idea serve --trust` of two checkouts once lost one, and a checkout opened
restricted although the user had just trusted it)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from idea.infrastructure.stores.trusted_projects import TrustedProjects

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from idea.domain.trust import TrustEntry
    from idea.infrastructure.stores.trusted_projects import TrustedProjects

    store, who = TrustedProjects(Path(sys.argv[1])), sys.argv[2]
    for n in range(30):
        store.put(TrustEntry(f"/{who}/{n}", "pid", n, "fp"))
    """
)


@pytest.mark.timeout(60)
def test_two_processes_trusting_at_once_lose_no_entry(tmp_path):
    path = tmp_path / "trusted-projects.json"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), who]) for who in ("a", "b")
    ]
    try:
        assert [w.wait(timeout=50) for w in writers] == [0, 0]
    finally:
        for w in writers:
            if w.poll() is None:
                w.kill()
    roots = {f"/{who}/{n}" for who in ("a", "b") for n in range(30)}
    assert {root for root in roots if TrustedProjects(path).get(root) is not None} == roots
