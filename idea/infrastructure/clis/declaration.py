"""The MCP server declaration written for an agent's CLI (DESIGN.md §9.5).

It points at exactly what the project's listener serves: the endpoint comes from the one
``mcp_endpoint`` function, the command is this same IdeA (the AppImage, the frozen executable, or
the interpreter running ``-m idea`` from source). Writing merges the ``idea`` entry into an
existing declaration file and never drops the user's other servers.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import idea
from idea.application.session_ports import McpServerEntry
from idea.domain.json_types import JsonObject
from idea.endpoint.naming import mcp_endpoint
from idea.infrastructure.files.atomic import make_folder, write_atomic
from idea.infrastructure.files.json_document import JsonDocument

# The one name of IdeA's MCP server, in every declaration and in ``serverInfo``.
MCP_SERVER_NAME = "idea"
# A CLI whose per-server ``timeout`` bounds each MCP request is given this much more than an
# ``idea_*`` call may legitimately wait for another agent (``tool_timeout_s``), so that it never
# gives up first.
MCP_TIMEOUT_MARGIN_S = 60.0


def mcp_request_timeout_ms(tool_timeout_s: float) -> int:
    """The per-server MCP request ``timeout`` (ms) declared to such a CLI."""
    return round((tool_timeout_s + MCP_TIMEOUT_MARGIN_S) * 1000)


def idea_invocation() -> tuple[str, tuple[str, ...]]:
    """The command and leading arguments that start this IdeA again."""
    if getattr(sys, "frozen", False):
        return frozen_command(sys.executable, os.environ, os.path.ismount), ()
    return sys.executable, ("-m", "idea")


def frozen_command(
    executable: str, environ: Mapping[str, str], is_mount: Callable[[str], bool]
) -> str:
    """The frozen build's command: its AppImage when it runs from that AppImage's FUSE mount
    (a mount that goes away with this process), else the executable itself.

    Unpacked instead (``APPIMAGE_EXTRACT_AND_RUN=1``, no FUSE), the executable is the one to
    declare: its folder lives as long as this IdeA runs, whereas each start of the AppImage would
    unpack 0.5 GB again, and its runtime deletes that shared folder when it exits. ``$APPIMAGE``
    set by some other AppImage this one was started from is not this executable's.
    """
    appimage = environ.get("APPIMAGE")
    appdir = environ.get("APPDIR")
    if not (appimage and appdir and sys.platform.startswith("linux")):
        return executable
    inside = os.path.realpath(executable).startswith(os.path.realpath(appdir) + os.sep)
    return appimage if inside and is_mount(appdir) else executable


def mcp_server_entry(
    project_id: str, root: Path, agent_id: str, key_file: Path, endpoint: str | None = None
) -> McpServerEntry:
    """How an agent's CLI starts the bridge to the project checked out in ``root`` (or to
    ``endpoint``: on a remote host, the socket SSH forwards to it)."""
    command, prefix = idea_invocation()
    env: dict[str, str] = {}
    if not getattr(sys, "frozen", False):
        # From source, `-m idea` must import this very package whatever the CLI's cwd.
        env["PYTHONPATH"] = str(Path(idea.__file__).resolve().parent.parent)
    if sys.platform == "win32":
        env["SystemRoot"] = os.environ.get("SYSTEMROOT", r"C:\Windows")
    args = (
        *prefix,
        "mcp-server",
        "--endpoint",
        endpoint or mcp_endpoint(project_id, str(root)),
        "--project",
        project_id,
        "--requester",
        agent_id,
        "--key-file",
        str(key_file.resolve()),
    )
    return McpServerEntry(command, args, env)


def server_json(entry: McpServerEntry, extra: JsonObject | None = None) -> JsonObject:
    """The ``idea`` server object of a ``{"mcpServers": {...}}`` declaration."""
    out: JsonObject = {"command": entry.command, "args": list(entry.args)}
    if entry.env:
        out["env"] = dict(entry.env)
    out.update(extra or {})
    return out


def write_run_dir_file(run_dir: str, name: str, document: JsonObject) -> Path:
    """Write ``document`` as the JSON file ``name`` of an agent's run dir (atomically), whole:
    the run dir is IdeA's, so nothing of the user's is replaced. Raises ``Internal``."""
    folder = Path(run_dir)
    path = make_folder(folder) / name
    write_atomic(path, json.dumps(document, indent=2) + "\n")
    return path


def write_declaration(path: Path, server: JsonObject) -> None:
    """Merge ``server`` as ``mcpServers.idea`` into the JSON file at ``path`` (atomically)."""
    make_folder(path.parent)
    doc = JsonDocument(path)

    def merge(current: JsonObject | None) -> JsonObject:
        base: JsonObject = dict(current or {})
        servers = base.get("mcpServers")
        merged: JsonObject = dict(servers) if isinstance(servers, dict) else {}
        merged[MCP_SERVER_NAME] = server
        base["mcpServers"] = merged
        return base

    doc.update(merge)
