"""Where things are in the repository, for tests at any depth of the tree."""

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FAKE_CLIS = TESTS / "fakes" / "clis"  # fake agent CLI programs that speak the real protocols
REAL_CLI = TESTS / "real_cli"


def fake_claude_program(path: Path) -> Path:
    """A program at ``path`` that runs the fake Claude CLI with this Python (POSIX ``sh``), as
    a profile's ``command`` names an installed CLI."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_CLIS / "claude.py"}" "$@"\n', encoding="utf-8"
    )
    path.chmod(0o755)
    return path
