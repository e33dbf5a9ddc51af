"""``mcp_endpoint(project_id)``: THE name of a project's MCP endpoint (DESIGN.md §9.1).

One function, used both by the listener that serves the endpoint and by the declaration written
for the agents' CLIs, so the two can never disagree. Deterministic; one per project and user.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import sys
import tempfile

# AF_UNIX paths are limited to 108 bytes on Linux (104 on macOS); keep a margin.
MAX_SOCKET_PATH = 100


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in a bare container
        return str(os.getuid()) if hasattr(os, "getuid") else "user"


def endpoint_dir() -> str:
    """``<runtime dir>/idea-<uid>``: ``$XDG_RUNTIME_DIR`` else the temp dir (POSIX only)."""
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(base, f"idea-{uid}")


def mcp_endpoint(project_id: str) -> str:
    """The Unix socket path (POSIX) or named pipe name (Windows) of a project's MCP endpoint."""
    if sys.platform == "win32":
        return rf"\\.\pipe\idea-{_digest(_user() + project_id)}"
    path = os.path.join(endpoint_dir(), f"{_digest(project_id)}.sock")
    if len(path.encode("utf-8")) > MAX_SOCKET_PATH:
        # A deep $XDG_RUNTIME_DIR/TMPDIR: fall back to /tmp, which is always short.
        uid = os.getuid() if hasattr(os, "getuid") else 0
        path = os.path.join("/tmp", f"idea-{uid}", f"{_digest(project_id)}.sock")
    return path


def ensure_endpoint_dir(endpoint: str) -> None:
    """Create the socket's folder ``0700`` (POSIX; a no-op for a Windows pipe name)."""
    if sys.platform == "win32":
        return
    folder = os.path.dirname(endpoint)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
