"""The project secret ``.ideai/run/mcp.key``: 32 random bytes, ``0600``, made once at first open.

The MCP bridge proves with it that it was started by an agent of this project (DESIGN.md §9.3).
"""

from __future__ import annotations

import secrets
from pathlib import Path

from idea.infrastructure.files.atomic import read_bytes, write_atomic

KEY_BYTES = 32


def ensure_project_key(path: Path) -> bytes:
    """Return the key, creating it (and its folder) if absent or not the right size."""
    key = read_bytes(path)
    if key is not None and len(key) == KEY_BYTES:
        return key
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(KEY_BYTES)
    write_atomic(path, key, mode=0o600)
    return key
