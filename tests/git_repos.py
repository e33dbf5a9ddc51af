"""git as the tests run it: an identity of their own, checked, bounded, its output returned."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(cwd: Path, *args: str) -> str:
    """``git <args>`` in ``cwd``; its stdout. Raises ``CalledProcessError`` on failure."""
    return subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
