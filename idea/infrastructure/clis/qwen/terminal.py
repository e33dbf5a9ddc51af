"""Qwen Code's TUI gets the same flags as its structured session (context, MCP, model)."""

from __future__ import annotations

from idea.application.session_ports import StructuredSpec
from idea.infrastructure.clis.adapter import TerminalInjection
from idea.infrastructure.clis.qwen.session import injection_flags, write_mcp_config


def qwen_terminal(spec: StructuredSpec) -> TerminalInjection:
    return TerminalInjection(tuple(injection_flags(spec, write_mcp_config(spec))))
