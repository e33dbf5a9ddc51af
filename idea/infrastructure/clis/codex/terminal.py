"""Codex's TUI takes the agent's context, IdeA's MCP server, model and sandbox (its permission
mode) as ``-c`` overrides."""

from __future__ import annotations

from idea.application.session_ports import StructuredSpec
from idea.infrastructure.clis.adapter import TerminalInjection
from idea.infrastructure.clis.codex.declaration import mcp_server_config
from idea.infrastructure.clis.codex.toml_values import toml_value
from idea.infrastructure.clis.declaration import MCP_SERVER_NAME


def codex_terminal(spec: StructuredSpec) -> TerminalInjection:
    args: list[str] = []
    if spec.context:
        args += ["-c", f"developer_instructions={toml_value(spec.context)}"]
    if spec.mcp is not None:
        for key, value in mcp_server_config(spec.mcp, spec.tool_timeout_s).items():
            args += ["-c", f"mcp_servers.{MCP_SERVER_NAME}.{key}={toml_value(value)}"]
    if spec.model:
        args += ["-c", f"model={toml_value(spec.model)}"]
    if spec.permission_mode:
        args += ["-c", f"sandbox_mode={toml_value(spec.permission_mode)}"]
    return TerminalInjection(tuple(args))
