"""What IdeA must know of one agent CLI: how to drive it structured and how to inject a TUI."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from idea.application.session_ports import AgentSession, StructuredSpec

StartStructured = Callable[[StructuredSpec], Awaitable[AgentSession]]


@dataclass(frozen=True, slots=True)
class TerminalInjection:
    """Extra arguments, environment and (rarely) working folder for a TUI launch."""

    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None


TerminalInjector = Callable[[StructuredSpec], TerminalInjection]

# Does the CLI of this live session see IdeA's MCP server, without a model turn? Its evidence
# (a tool's answer, a status line); raises ``Unavailable`` naming why not (``idea doctor``).
McpProbe = Callable[[AgentSession], Awaitable[str]]

# The tool a probe calls: it answers without side effects.
PROBE_TOOL = "idea_list_agents"


@dataclass(frozen=True, slots=True)
class CliAdapter:
    """One row of the CLI registry (``idea.infrastructure.clis.CLIS``)."""

    start_session: StartStructured
    terminal_injection: TerminalInjector
    probe_mcp: McpProbe
