"""An agent's run dir ``.ideai/run/<agent>/``: what IdeA injects, and the pids it started.

The pid records (pid + create time) let a later open find and kill processes a crashed run left
behind without ever touching an unrelated process that reused the pid.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from idea.domain.errors import IdeaError
from idea.domain.json_types import JsonValue
from idea.infrastructure.files.atomic import make_folder, read_text, write_atomic
from idea.infrastructure.processes.tree import ProcessRecord

PIDS_FILE = "pids.json"
# What IdeA injects for the CLI (DESIGN.md §9.5): the MCP declaration (where the CLI reads it from
# a file that its profile does not name otherwise) and the agent's context.
DECLARATION_FILE = "mcp.json"
CONTEXT_FILE = "CONTEXT.md"


def prepare_run_dir(run_dir: Path) -> Path:
    return make_folder(run_dir)


def record_pids(run_dir: Path, pids: Iterable[int]) -> list[ProcessRecord]:
    """Write the records of the live processes among ``pids`` (vanished ones are skipped)."""
    records = []
    for pid in pids:
        try:
            records.append(ProcessRecord.of(pid))
        except IdeaError:
            continue  # already gone
    body = {"processes": [r.to_json() for r in records]}
    write_atomic(run_dir / PIDS_FILE, json.dumps(body, indent=2) + "\n")
    return records


def read_pid_records(run_dir: Path) -> list[ProcessRecord]:
    """The records written by a previous run; an unreadable file counts as none."""
    text = read_text(run_dir / PIDS_FILE)
    if text is None:
        return []
    try:
        body: JsonValue = json.loads(text)
    except json.JSONDecodeError:
        return []
    items = body.get("processes") if isinstance(body, dict) else None
    records = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        try:
            records.append(ProcessRecord.from_json(item))
        except IdeaError:
            continue
    return records
