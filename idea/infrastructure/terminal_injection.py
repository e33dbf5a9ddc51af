"""How the known CLIs' interactive TUIs get an agent's context and IdeA's MCP server.

The same facts as the structured adapters (which own them), applied to a terminal launch: Claude
takes flags, Codex takes ``-c`` config overrides, Gemini reads the run dir's workspace settings
(so it runs from the run dir, with the project as an included directory).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from idea.application.session_ports import StructuredSpec
from idea.domain.profile import AdapterKind
from idea.infrastructure import gemini_session
from idea.infrastructure.claude_session import MCP_SERVER_NAME, injection_flags, write_mcp_config
from idea.infrastructure.codex_stream import mcp_server_config
from idea.infrastructure.toml_values import toml_value


@dataclass(frozen=True, slots=True)
class TerminalInjection:
    """Extra arguments, environment and (rarely) working folder for a TUI launch."""

    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None


def claude_terminal(spec: StructuredSpec) -> TerminalInjection:
    return TerminalInjection(tuple(injection_flags(spec, write_mcp_config(spec))))


def codex_terminal(spec: StructuredSpec) -> TerminalInjection:
    args: list[str] = []
    if spec.context:
        args += ["-c", f"developer_instructions={toml_value(spec.context)}"]
    if spec.mcp is not None:
        for key, value in mcp_server_config(spec.mcp, spec.tool_timeout_s).items():
            args += ["-c", f"mcp_servers.{MCP_SERVER_NAME}.{key}={toml_value(value)}"]
    if spec.model:
        args += ["-c", f"model={toml_value(spec.model)}"]
    return TerminalInjection(tuple(args))


def gemini_terminal(spec: StructuredSpec) -> TerminalInjection:
    gemini_session.prepare_run_dir(spec)
    args = (f"--model={spec.model}",) if spec.model else ()
    return TerminalInjection(args, {"GEMINI_CLI_TRUST_WORKSPACE": "true"}, cwd=spec.run_dir)


TERMINAL_INJECTORS = {
    AdapterKind.CLAUDE: claude_terminal,
    AdapterKind.CODEX: codex_terminal,
    AdapterKind.GEMINI: gemini_terminal,
}
