"""Where things are in the repository, for tests at any depth of the tree."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FAKE_CLIS = TESTS / "fakes" / "clis"  # fake agent CLI programs that speak the real protocols
REAL_CLI = TESTS / "real_cli"
