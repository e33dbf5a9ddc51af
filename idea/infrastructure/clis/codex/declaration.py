"""IdeA's MCP server as Codex's ``mcp_servers.idea`` table (thread config and ``-c`` overrides)."""

from __future__ import annotations

from idea.application.session_ports import McpServerEntry
from idea.domain.json_types import JsonObject


def mcp_server_config(mcp: McpServerEntry, tool_timeout_s: float) -> JsonObject:
    """The ``mcp_servers.idea`` table: tools run unprompted, asks may outlast Codex's 60 s, and
    the thread waits for the bridge (``required``) instead of starting without IdeA's tools."""
    return {
        "command": mcp.command,
        "args": list(mcp.args),
        "env": dict(mcp.env),
        "default_tools_approval_mode": "approve",
        "tool_timeout_sec": float(tool_timeout_s),
        "required": True,
    }
