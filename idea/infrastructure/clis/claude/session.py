"""Claude Code as a structured session: ONE long-lived ``claude -p`` process per agent.

Invariant: the session runs at most one CLI process at a time and its turns strictly one after
the other; a turn is one ``user`` line on stdin and ends at the first ``result`` line that answers
it (protocols/AGENT_CLI_PROTOCOLS.md §A). Everything IdeA injects reaches the CLI by flag or by a
file in ``spec.run_dir`` (``mcp.json``); nothing is written into the project.

Decisions:

* ``--system-prompt-snapshot=off``: with the default (``on``) the CLI records the system prompt,
  ``--append-system-prompt`` included, on a conversation's first request and replays that record
  on every resume, ignoring the text a later launch passes (§A.6, observed). The agent's context
  is edited by the user in IdeA and must take effect at the next session start, resumed ones
  included, so the record is switched off. The cost is a system prompt rendered per request.
* A start sends the optional ``initialize`` control request and waits for its answer: it proves
  the CLI parsed its flags, found the conversation to resume and reads stdin, so a bad launch
  fails ``start`` with the CLI's own message instead of the first turn.
* The CLI dying mid-turn fails the turn with ``AgentFailed`` (exit code, stderr tail) and ends
  the session. Dying between turns (killed from outside, crashed while idle) does not: the next
  ``send`` restarts it with ``--resume=<session id>``, which keeps the conversation id.
* An interrupt that does not settle (``_recover``) kills the process and restarts it at once
  with ``--resume``; if that restart fails the session ends.
* Without ``spec.mcp`` no MCP flag at all is passed (no ``--strict-mcp-config`` either): IdeA
  then declares nothing and imposes nothing on the user's own servers.
* The environment is ``spec.env`` as given: the protocol doc suggests no variable of our own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from idea.application.session_ports import AgentSession, StructuredSpec
from idea.domain.errors import Invalid, Unavailable
from idea.domain.json_types import JsonObject
from idea.domain.profile import AdapterKind
from idea.infrastructure.clis.adapter import PROBE_TOOL
from idea.infrastructure.clis.declaration import MCP_SERVER_NAME, write_run_dir_file
from idea.infrastructure.clis.stream_json_session import StreamJsonSession
from idea.infrastructure.processes.run_dir import DECLARATION_FILE


def mcp_config(spec: StructuredSpec) -> JsonObject | None:
    """The ``--mcp-config`` document declaring IdeA's bridge, or None without ``spec.mcp``."""
    if spec.mcp is None:
        return None
    entry: JsonObject = {
        "type": "stdio",
        "command": spec.mcp.command,
        "args": list(spec.mcp.args),
        "env": dict(spec.mcp.env),
        # Else the CLI may defer the tools behind ToolSearch instead of offering them (§A.7).
        "alwaysLoad": True,
        "timeout": round(spec.tool_timeout_s * 1000),
    }
    return {"mcpServers": {MCP_SERVER_NAME: entry}}


def write_mcp_config(spec: StructuredSpec) -> Path | None:
    """Write the ``--mcp-config`` file into the run dir; None when nothing is declared.

    Raises ``Internal`` if the run dir cannot be written.
    """
    config = mcp_config(spec)
    return None if config is None else write_run_dir_file(spec.run_dir, DECLARATION_FILE, config)


def injection_flags(spec: StructuredSpec, mcp_file: Path | None) -> list[str]:
    """The MCP, context, model and permission flags, the same for a headless and a TUI launch."""
    flags: list[str] = []
    if mcp_file is not None:
        flags += [
            f"--mcp-config={mcp_file}",
            "--strict-mcp-config",
            f"--allowedTools=mcp__{MCP_SERVER_NAME}",
        ]
    if spec.context:
        flags.append(f"--append-system-prompt={spec.context}")
    if spec.model:
        flags.append(f"--model={spec.model}")
    if spec.permission_mode:
        flags.append(f"--permission-mode={spec.permission_mode}")
    return flags


def claude_argv(
    spec: StructuredSpec, command: Sequence[str], resume: str | None, mcp_file: Path | None
) -> list[str]:
    """The command line; every value flag in ``--flag=value`` form (some are variadic)."""
    argv = [
        *command,
        *spec.args,
        "-p",
        "--input-format=stream-json",
        "--output-format=stream-json",
        "--verbose",
        *injection_flags(spec, mcp_file),
        "--system-prompt-snapshot=off",
    ]
    if resume:
        argv.append(f"--resume={resume}")
    return argv


class ClaudeSession(StreamJsonSession):
    cli_name = "claude"

    def _write_declaration(self) -> Path | None:
        return write_mcp_config(self.spec)

    def _argv(self, resume: str | None) -> list[str]:
        return claude_argv(self.spec, self._command, resume, self._mcp_file)

    async def call_mcp_tool(self, tool: str, timeout: float = 30.0) -> str:
        """Call ``tool`` of IdeA's MCP server as the CLI loaded it, with no model turn (the
        control protocol's ``mcp_call``): its text. Raises ``Unavailable`` naming why not."""
        cli = self._cli
        if cli is None or not cli.ready:
            raise Unavailable(f"{self.name}: claude is not running")
        name = f"mcp__{MCP_SERVER_NAME}__{tool}"
        response = await self._request(cli, "mcp_call", timeout, {"tool": name, "arguments": {}})
        if not response.ok:
            raise Unavailable(f"claude could not call {name}: {response.error}")
        content = response.response.get("content")
        blocks = content if isinstance(content, list) else []
        return "".join(str(block.get("text", "")) for block in blocks if isinstance(block, dict))


async def start_claude_session(
    spec: StructuredSpec, *, command: Sequence[str] | None = None
) -> ClaudeSession:
    """Start Claude Code for ``spec``; ``command`` is the argv prefix that runs the CLI
    (default ``spec.program``; tests run a script with ``[python, script]``).

    Raises ``Invalid`` for a spec of another kind, ``Unavailable`` if the CLI cannot be started
    or refuses its command line (message with its stderr), ``Internal`` if the run dir cannot be
    written.
    """
    if spec.kind is not AdapterKind.CLAUDE:
        raise Invalid(f"a {spec.kind} spec cannot start Claude Code")
    return await ClaudeSession.open(spec, command)


async def probe_claude_mcp(session: AgentSession) -> str:
    """``CliAdapter.probe_mcp`` for claude."""
    if not isinstance(session, ClaudeSession):
        raise Invalid("not a claude session")
    return await session.call_mcp_tool(PROBE_TOOL)
