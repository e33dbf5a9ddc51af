"""Processes a previous run left behind (DESIGN.md §7 step 3): found by their pid records, and
by the project root every agent process carries in its environment (``IDEA_PROJECT_ROOT``), which
finds the ones that left their tree (a double fork, ``setsid``) before the crash.

A record names a process by pid AND creation time, so a pid reused by an unrelated process is
never touched. Records are removed once handled. Called at open, before any agent of this
checkout runs (the project lock is held), so every process so tagged is a leftover.
"""

from __future__ import annotations

import contextlib
import logging

from idea.infrastructure.processes.run_dir import PIDS_FILE, read_pid_records
from idea.infrastructure.processes.tree import ProcessRecord, is_alive, kill_tagged, kill_tree
from idea.infrastructure.stores.paths import ProjectPaths

log = logging.getLogger(__name__)

PROJECT_ROOT_VAR = "IDEA_PROJECT_ROOT"  # set by clis/starter.py for every agent process


def kill_leftover_processes(paths: ProjectPaths) -> list[ProcessRecord]:
    """Kill (whole trees) the still-running processes recorded in every agent's run dir."""
    killed: list[ProcessRecord] = []
    if not paths.run.is_dir():
        return killed
    for run_dir in sorted(p for p in paths.run.iterdir() if p.is_dir()):
        for record in read_pid_records(run_dir):
            if is_alive(record):
                log.warning("killing leftover process %s of %s", record.pid, run_dir.name)
                kill_tree(record.pid)
                killed.append(record)
        with contextlib.suppress(FileNotFoundError):
            (run_dir / PIDS_FILE).unlink()
    for pid in kill_tagged(PROJECT_ROOT_VAR, str(paths.root)):
        log.warning("killed leftover process %s that had left its agent's tree", pid)
        killed.append(ProcessRecord(pid, 0.0))
    return killed
