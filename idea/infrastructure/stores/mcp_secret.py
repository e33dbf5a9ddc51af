"""The project secret ``.ideai/run/mcp.key``: 32 random bytes, ``0600``, made once at first open.

Only the app reads it: each agent's bridge gets a key of its own derived from it
(``write_agent_key``), so a bridge names the agent that started it and a confused agent cannot
pass for another (DESIGN.md §9.3). It is no proof against a hostile one: every agent runs as the
user and can read this file, so none is logged as proven (DESIGN.md §18).
"""

from __future__ import annotations

import secrets
from pathlib import Path

from idea.endpoint.loopback import agent_key
from idea.infrastructure.files.atomic import make_folder, read_bytes, write_atomic

KEY_BYTES = 32


def ensure_project_key(path: Path) -> bytes:
    """Return the key, creating it (and its folder) if absent or not the right size."""
    key = read_bytes(path)
    if key is not None and len(key) == KEY_BYTES:
        return key
    make_folder(path.parent)
    key = secrets.token_bytes(KEY_BYTES)
    write_atomic(path, key, mode=0o600)
    return key


AGENT_KEY_FILE = "mcp.key"


def write_agent_key(project_key: Path, run_dir: Path, agent_id: str) -> Path:
    """Write the agent's own key (``0600``) into its run dir; the path its declaration names."""
    path = run_dir / AGENT_KEY_FILE
    make_folder(run_dir)
    write_atomic(path, agent_key(ensure_project_key(project_key), agent_id), mode=0o600)
    return path
