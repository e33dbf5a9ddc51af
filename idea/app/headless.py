"""``idea serve``: open a project with no window, report what was opened, run until signalled.

Today the headless core opens the stores and reconciles what a previous run left behind (DESIGN.md
§7 steps 1-2); sessions, the orchestrator, the file door and the UI server join it as they land.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from idea.app.bootstrap import open_project

Printer = Callable[[str], None]


def serve_until_signalled(root: Path, out: Printer, err: Printer) -> int:
    opened = open_project(root)
    services = opened.services
    info = services.info
    out(f"IdeA project {info.name} ({info.id}) opened at {services.paths.root}")
    agents = services.agents.all()
    profiles = services.profiles.all()
    out(f"profiles: {', '.join(sorted(profiles))}")
    names = ", ".join(f"{a.name} ({a.profile})" for a in agents) or "none yet"
    out(f"agents: {names}")
    out(
        f"reconciled: {opened.duplicate_cells_cleared} duplicate cell(s) cleared, "
        f"{len(opened.orphan_rows_set_idle)} orphan work-state row(s) set idle"
    )
    for problem in services.problems:
        err(f"warning: {problem.message}")
    stop = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stop.set()

    # Handlers go in before the "running" line: whoever waits for it may signal at once.
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    out("headless core running (no UI server yet); stop with Ctrl+C or SIGTERM")
    try:
        # A bounded wait keeps the main thread responsive to signals on every platform.
        while not stop.wait(0.5):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    out("closed")
    return 0
