"""``idea serve``: a project open with no window until SIGINT/SIGTERM, then closed cleanly.

The core loop runs the project runtime (reconciliation at open, sessions resumed, the file door
watching ``.ideai/orchestrator/``) and its UI server, whose URL with the token is printed as one
line ``IdeA UI: <url>``. Closing stops the UI server first (no client acts on a closing runtime),
then snapshots the running cells and stops every session.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from idea.app.bootstrap import agent_processes_contained, doctor, open_host, terminal_screens
from idea.app.project_host import ProjectHost
from idea.app.runtime import ProjectRuntime
from idea.app.ui.server import UiServer
from idea.domain.trust import TrustState

Printer = Callable[[str], None]


def serve_until_signalled(root: Path, out: Printer, err: Printer, port: int = 0) -> int:
    return asyncio.run(_serve(root, out, err, port))


async def _serve(root: Path, out: Printer, err: Printer, port: int) -> int:
    stop = asyncio.Event()
    install_signal_handlers(stop)
    await serve_project(
        root,
        out,
        err,
        port,
        stop,
        lambda _runtime, _url: out(
            "headless core running (file door and UI server open); stop with Ctrl+C or SIGTERM"
        ),
    )
    return 0


async def serve_project(
    root: Path,
    out: Printer,
    err: Printer,
    port: int,
    stop: asyncio.Event,
    started: Callable[[ProjectHost, str], None],
) -> None:
    """Open the project and its UI server, call ``started`` with the UI URL, close once ``stop``.

    Shared by ``idea serve`` and the window mode (whose core thread runs it on its own loop).
    """
    async with agent_processes_contained():
        host = await open_host(root)
        try:
            _print_opened(host.current, out, err)
            host.on_switch(lambda runtime: _print_opened(runtime, out, err))
            ui = UiServer(host, port=port, doctor=doctor, screens=terminal_screens())
            try:
                url = await ui.start()
                out(f"IdeA UI: {url}")
                started(host, url)
                await stop.wait()
            finally:
                await ui.close()
        finally:
            await host.close()
    out("closed")


def install_signal_handlers(stop: asyncio.Event) -> None:
    """SIGINT and SIGTERM set ``stop`` (shared with the window mode, ``window/linked.py``)."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        if sys.platform == "win32":
            # No loop signal handlers on Windows: a plain handler hands the stop to the loop.
            signal.signal(sig, lambda *_: loop.call_soon_threadsafe(stop.set))
        else:
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
            # asyncio learns of a signal from one byte on its wakeup socket; when that socket
            # is full (a burst of wakeups from threads) the byte, and the signal, is lost. A
            # Python handler still runs on this thread and hands the stop to the loop.
            signal.signal(sig, lambda *_: loop.call_soon_threadsafe(stop.set))


def _print_opened(runtime: ProjectRuntime, out: Printer, err: Printer) -> None:
    services = runtime.services
    info = services.info
    report = runtime.report
    out(f"IdeA project {info.name} ({info.id}) opened at {services.paths.root}")
    out(f"profiles: {', '.join(sorted(services.profiles.all()))}")
    agents = services.agents.all()
    out("agents: " + (", ".join(f"{a.name} ({a.profile})" for a in agents) or "none yet"))
    out(
        f"reconciled: {report.duplicate_cells_cleared} duplicate cell(s) cleared, "
        f"{len(report.orphan_rows_set_idle)} orphan work-state row(s) set idle, "
        f"{len(report.leftover_processes_killed)} leftover process(es) killed"
    )
    state = services.trust.state()
    if state is TrustState.RESTRICTED:
        out(
            f"restricted: this project came from elsewhere; nothing it defines runs (no resume, "
            f"no file door, launches refused) until you trust it: idea trust {services.paths.root}"
        )
        for name, profile in sorted(services.profiles.project_entries().items()):
            out(f"  it would run profile {name}: {' '.join(profile.command)}")
        if (services.paths.ideai / "worktree-setup").is_file():
            out("  it would run .ideai/worktree-setup in each new agent worktree")
    elif state is TrustState.PROFILES_CHANGED:
        err(
            "warning: profiles.json changed since you trusted this project: its own profiles "
            "are ignored (the built-ins work) until you trust it again: "
            f"idea trust {services.paths.root}"
        )
    if report.resumed is not None:
        names = ", ".join(r.agent.name for r in report.resumed.resumed) or "none"
        out(f"resumed: {names}")
        for failure in report.resumed.failed:
            err(f"warning: could not resume agent {failure.agent_id}: {failure.error.message}")
    for problem in services.problems:
        err(f"warning: {problem.message}")
    for notice in services.reassigned:
        err(f"warning: {notice.message}")
    for action in report.worktrees:
        out(f"worktrees: {action}")
    for lost in report.lost_asks:
        err(
            f"warning: an ask to {lost.get('target')} ({lost.get('source')} door) was in flight "
            "when IdeA last ended: logged LOST"
        )
    out(f"file door: {services.paths.orchestrator}")
