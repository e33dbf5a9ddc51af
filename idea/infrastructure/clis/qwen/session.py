"""Qwen Code as a structured session: ONE long-lived ``qwen --input-format=stream-json`` process.

Qwen Code 0.24 speaks Claude Code's stream-json protocol (``initialize`` and ``interrupt``
control requests, ``system/init``, ``assistant``/``user`` lines, ``result``), so the session is
``StreamJsonSession`` with Qwen's flags. Invariant: everything IdeA injects lives in the agent's
run dir (``mcp.json``) or on the command line; nothing is written into the project, ``HOME`` is
left alone.

* IdeA's server is declared with ``--mcp-config=<run dir>/mcp.json``: servers from that flag are
  not gated by Qwen's per-project MCP approval (project and workspace servers are), ``trust``
  lets their tools run without a prompt, and ``alwaysLoadTools`` offers them to the model at
  once instead of behind ``tool_search``. The user's own servers still load.
* The agent's context goes in ``--append-system-prompt``; a resume is ``--resume=<uuid>``.
* Qwen ignores an ``interrupt`` sent before the turn's ``system/init``: an interrupt waits for it.
* Qwen's ``result.usage`` is the session's running total: a turn's usage is the sum of its
  ``assistant`` lines' (``QwenUsage``).
* Qwen has no ``mcp_call`` control request: ``probe_qwen_mcp`` runs ``qwen mcp list`` from the
  run dir with ``QWEN_CODE_SYSTEM_DEFAULTS_PATH`` naming that same ``mcp.json`` (a valid settings
  file: system defaults are not gated either), which connects to the server and says so.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path

from idea.application.session_ports import AgentSession, StructuredSpec
from idea.domain.errors import Invalid, Unavailable
from idea.domain.json_types import JsonObject
from idea.domain.profile import AdapterKind
from idea.infrastructure.clis.declaration import (
    MCP_SERVER_NAME,
    mcp_request_timeout_ms,
    write_run_dir_file,
)
from idea.infrastructure.clis.mcp_list import connected_line, run_mcp_list
from idea.infrastructure.clis.stream_json_session import StreamJsonSession
from idea.infrastructure.clis.stream_json_usage import QwenUsage
from idea.infrastructure.processes.run_dir import DECLARATION_FILE

DEFAULTS_ENV = "QWEN_CODE_SYSTEM_DEFAULTS_PATH"
# How long an interrupt waits for the CLI to begin the turn (it does so before any MCP wait).
TURN_BEGIN_TIMEOUT_S = 10.0


def mcp_config(spec: StructuredSpec) -> JsonObject | None:
    """The ``--mcp-config`` document declaring IdeA's bridge, or None without ``spec.mcp``."""
    if spec.mcp is None:
        return None
    entry: JsonObject = {
        "command": spec.mcp.command,
        "args": list(spec.mcp.args),
        "env": dict(spec.mcp.env),
        "trust": True,
        "alwaysLoadTools": True,
        "timeout": mcp_request_timeout_ms(spec.tool_timeout_s),
    }
    return {"mcpServers": {MCP_SERVER_NAME: entry}}


def write_mcp_config(spec: StructuredSpec) -> Path | None:
    """Write ``mcp.json`` into the run dir; None when nothing is declared. Raises ``Internal``."""
    config = mcp_config(spec)
    return None if config is None else write_run_dir_file(spec.run_dir, DECLARATION_FILE, config)


def injection_flags(spec: StructuredSpec, mcp_file: Path | None) -> list[str]:
    """The MCP, context and model flags, the same for a headless and a TUI launch."""
    flags: list[str] = []
    if mcp_file is not None:
        flags.append(f"--mcp-config={mcp_file}")
    if spec.context:
        flags.append(f"--append-system-prompt={spec.context}")
    if spec.model:
        flags.append(f"--model={spec.model}")
    return flags


class QwenSession(StreamJsonSession):
    cli_name = "qwen"
    usage_meter = QwenUsage

    def _write_declaration(self) -> Path | None:
        return write_mcp_config(self.spec)

    async def _interrupt_turn(self) -> None:
        # Qwen drops an interrupt that arrives before it has begun the turn (the turn then runs
        # on): wait, bounded, for the turn's ``system/init``.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(TURN_BEGIN_TIMEOUT_S):
                await self._turn_began.wait()
        await super()._interrupt_turn()

    def _argv(self, resume: str | None) -> list[str]:
        argv = [
            *self._command,
            *self.spec.args,
            "--input-format=stream-json",
            "--output-format=stream-json",
            *injection_flags(self.spec, self._mcp_file),
        ]
        if resume:
            argv.append(f"--resume={resume}")
        return argv

    async def check_mcp_server(self, timeout: float = 60.0) -> str:
        """``qwen mcp list`` over the session's declaration: the line saying IdeA's server is
        ``Connected`` (no model turn). Raises ``Unavailable`` naming why not."""
        if self._mcp_file is None:
            raise Unavailable(f"{self.name}: no MCP server is declared to qwen")
        env = {**self.spec.env, DEFAULTS_ENV: str(self._mcp_file)}
        argv = (*self._command, "mcp", "list")
        output = await run_mcp_list("qwen", argv, self.spec.run_dir, env, timeout)
        return connected_line("qwen", output)


async def start_qwen_session(
    spec: StructuredSpec, *, command: Sequence[str] | None = None
) -> QwenSession:
    """Start Qwen Code for ``spec``; ``command`` replaces ``spec.program`` (tests).

    Raises ``Invalid`` for a spec of another kind, ``Unavailable`` if the CLI cannot be started
    or refuses its command line, ``Internal`` if the run dir cannot be written.
    """
    if spec.kind is not AdapterKind.QWEN:
        raise Invalid(f"a {spec.kind} spec cannot start Qwen Code")
    return await QwenSession.open(spec, command)


async def probe_qwen_mcp(session: AgentSession) -> str:
    """``CliAdapter.probe_mcp`` for qwen."""
    if not isinstance(session, QwenSession):
        raise Invalid("not a qwen session")
    return await session.check_mcp_server()
