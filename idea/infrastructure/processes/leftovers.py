"""Processes a previous run left behind (DESIGN.md §7 step 3): found by their pid records.

A record names a process by pid AND creation time, so a pid reused by an unrelated process is
never touched. Records are removed once handled.
"""

from __future__ import annotations

import contextlib
import logging

from idea.infrastructure.processes.run_dir import PIDS_FILE, read_pid_records
from idea.infrastructure.processes.tree import ProcessRecord, is_alive, kill_tree
from idea.infrastructure.stores.paths import ProjectPaths

log = logging.getLogger(__name__)


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
    return killed
