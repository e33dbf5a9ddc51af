"""How ``idea`` was started, for the window without a PATH and for the Windows build's console.

DESIGN.md §3: ``idea`` / ``idea open`` without PATH opens "the current folder or a chooser". From
a terminal the current folder is what the user means. From a desktop launcher (a start-menu
shortcut, an AppImage's menu entry) the current folder is an accident (the install folder, ``/``,
home), so: the current folder if it is already a project, else the newest recent project that still
exists, else a scratch project in the user's config folder (never the home folder: it would get a
``.ideai``); the window's open-project dialog is the chooser from there.
Stdlib only: this runs before the window's heavy imports.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

PROJECT_MARKER = ".ideai"


def started_from_terminal() -> bool:
    """True when a user typed the command: stdin is a terminal (on Windows: the console is
    shared with the shell that started us, not one made for this process alone)."""
    if sys.platform == "win32":
        return _console_process_count() > 1
    try:
        return os.isatty(0)
    except OSError:
        return False


def default_project_folder(cwd: Path, recent: Iterable[str], scratch: Path) -> Path:
    """The project to open when none was named and no terminal is there to mean the cwd."""
    if (cwd / PROJECT_MARKER).is_dir():
        return cwd
    for root in recent:
        if (Path(root) / PROJECT_MARKER).is_dir():
            return Path(root)
    scratch.mkdir(parents=True, exist_ok=True)
    return scratch


def hide_own_console() -> None:
    """Windows: hide the console window made for this process alone (the build is a console
    program so that ``idea mcp-server`` has stdio; the window must not come with a black box).
    A console shared with a shell stays; elsewhere this does nothing."""
    if sys.platform != "win32" or _console_process_count() != 1:
        return
    import ctypes  # noqa: PLC0415

    window = ctypes.WinDLL("kernel32").GetConsoleWindow()
    if window:
        ctypes.WinDLL("user32").ShowWindow(window, 0)  # SW_HIDE; handles stay valid for print


def _console_process_count() -> int:
    if sys.platform != "win32":
        return 0
    import ctypes  # noqa: PLC0415

    ids = (ctypes.c_uint32 * 4)()
    return int(ctypes.WinDLL("kernel32").GetConsoleProcessList(ids, 4))
