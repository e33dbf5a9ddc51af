"""What a CLI prints for a terminal, read as plain text: its ANSI escape sequences (colours,
cursor moves) are dropped wherever a line is matched or quoted in an error."""

from __future__ import annotations

import re

# CSI sequences: ESC [, parameter bytes, intermediate bytes, one final byte.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def strip_ansi(text: str) -> str:
    """``text`` without its ANSI escape sequences."""
    return _ANSI.sub("", text)
