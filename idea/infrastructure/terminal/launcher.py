"""Picks the terminal adapter of the running OS.

Invariant: only the chosen adapter module is imported, so ``ptyprocess`` is never imported on
Windows and ``winpty`` never on POSIX.
"""

from __future__ import annotations

import sys

from idea.application.session_ports import TerminalLauncher

__all__ = ["default_terminal_launcher"]


def default_terminal_launcher(grace_s: float = 1.0) -> TerminalLauncher:
    """The PTY launcher of this OS; ``grace_s`` is each step of the kill escalation."""
    # Imports inside: each adapter imports a package that exists on its own OS only.
    if sys.platform == "win32":
        from idea.infrastructure.terminal.windows import WindowsPtyLauncher  # noqa: PLC0415

        return WindowsPtyLauncher(grace_s)
    else:  # the branch mypy checks on each platform
        from idea.infrastructure.terminal.posix import PosixPtyLauncher  # noqa: PLC0415

        return PosixPtyLauncher(grace_s)
