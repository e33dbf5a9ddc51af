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

import asyncio
import contextlib
import itertools
import json
import logging
import uuid
from collections.abc import Sequence
from pathlib import Path

from idea.application.session_ports import AgentSession, StructuredSpec
from idea.domain.errors import AgentFailed, IdeaError, Invalid, Unavailable
from idea.domain.json_types import JsonObject
from idea.domain.profile import AdapterKind
from idea.infrastructure.clis.adapter import PROBE_TOOL
from idea.infrastructure.clis.claude.stream import (
    ClaudeInit,
    ClaudeItem,
    ClaudeResult,
    ClaudeStreamParser,
    ControlResponse,
    McpServerStatus,
    control_request_line,
    user_line,
)
from idea.infrastructure.clis.declaration import MCP_SERVER_NAME
from idea.infrastructure.clis.turn_session import TurnSession
from idea.infrastructure.files.atomic import write_atomic
from idea.infrastructure.files.os_errors import os_errors
from idea.infrastructure.processes.cli_process import CliProcess

log = logging.getLogger(__name__)

MCP_CONFIG_FILE = "mcp.json"
# ``initialize`` is answered before MCP servers connect (observed: well under a second).
INITIALIZE_TIMEOUT_S = 60.0
INTERRUPT_ACK_TIMEOUT_S = 5.0
# At stdin EOF the CLI finishes and exits by itself; past this grace its tree is killed.
SHUTDOWN_GRACE_S = 3.0


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
    if config is None:
        return None
    run_dir = Path(spec.run_dir)
    with os_errors("create", run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / MCP_CONFIG_FILE
    write_atomic(path, json.dumps(config, indent=2) + "\n")
    return path


def injection_flags(spec: StructuredSpec, mcp_file: Path | None) -> list[str]:
    """The MCP, context and model flags, the same for a headless and a TUI launch."""
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


class _Cli:
    """One CLI process and the state that dies with it."""

    def __init__(self) -> None:
        self.parser = ClaudeStreamParser()
        self.proc: CliProcess | None = None
        self.pending: dict[str, asyncio.Future[ControlResponse]] = {}
        self.ready = False  # answered ``initialize``; exits before that belong to the start

    def reject_pending(self, error: IdeaError) -> None:
        for future in self.pending.values():
            if not future.done():
                future.set_exception(error)
        self.pending.clear()


class ClaudeSession(TurnSession):
    def __init__(self, spec: StructuredSpec, command: Sequence[str] | None = None) -> None:
        super().__init__(Path(spec.run_dir).name or "claude")
        self.spec = spec
        self._command = tuple(command) if command else spec.program
        self._mcp_file: Path | None = None
        self._cli: _Cli | None = None
        self._turn_uuid: str | None = None
        self._request_ids = itertools.count(1)
        self._mcp_servers: tuple[McpServerStatus, ...] = ()

    @property
    def mcp_servers(self) -> tuple[McpServerStatus, ...]:
        """MCP servers and their status as the last ``system/init`` reported them."""
        return self._mcp_servers

    def pids(self) -> list[int]:
        cli = self._cli
        if cli is None or cli.proc is None or cli.proc.exit_code is not None:
            return []
        return [cli.proc.pid]

    async def start(self) -> None:
        """Write the MCP declaration and start the CLI. Raises ``Unavailable``/``Internal``."""
        self._mcp_file = write_mcp_config(self.spec)
        await self._spawn(self.spec.resume_conversation_id)

    # --- TurnSession ----------------------------------------------------------------------------

    async def _start_turn(self, prompt: str) -> None:
        if self._cli is None:
            # The CLI died between turns: continue the same conversation in a new process.
            try:
                await self._spawn(self._resume_id())
            except IdeaError as exc:
                self._mark_dead()
                raise AgentFailed(f"{self.name}: claude could not be restarted: {exc}") from exc
        cli = self._cli
        assert cli is not None and cli.proc is not None
        self._turn_uuid = str(uuid.uuid4())
        try:
            await cli.proc.write(user_line(prompt, self._turn_uuid))
        except Unavailable as exc:
            raise AgentFailed(f"{self.name}: claude {exc.message}{_stderr(cli)}") from exc

    async def _interrupt_turn(self) -> None:
        cli = self._cli
        if cli is None or not cli.ready:
            return
        try:
            # The turn then ends with an error ``result``; the ack only shows the CLI took it.
            response = await self._request(cli, "interrupt", INTERRUPT_ACK_TIMEOUT_S)
        except IdeaError as exc:
            log.warning("%s: interrupt not acknowledged: %s", self.name, exc)
            return
        if not response.ok:
            log.warning("%s: interrupt refused: %s", self.name, response.error)

    async def _recover(self) -> None:
        cli, self._cli = self._cli, None
        if cli is not None and cli.proc is not None:
            await cli.proc.kill()
        if self._closed:
            return
        try:
            await self._spawn(self._resume_id())
        except IdeaError as exc:
            log.error("%s: claude could not be restarted: %s", self.name, exc)
            self._mark_dead()

    async def _close(self) -> None:
        cli, self._cli = self._cli, None
        if cli is None or cli.proc is None:
            return
        if self.busy and cli.ready:
            # At EOF the CLI first finishes the running turn: stop it so that it can exit now.
            with contextlib.suppress(Unavailable):
                await cli.proc.write(control_request_line("shutdown-interrupt", "interrupt"))
        cli.proc.close_stdin()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(SHUTDOWN_GRACE_S):
                await cli.proc.wait()
        await cli.proc.kill()  # the tree: MCP servers a crashed CLI left behind included

    # --- process --------------------------------------------------------------------------------

    def _resume_id(self) -> str | None:
        return self.conversation_id or self.spec.resume_conversation_id

    async def _spawn(self, resume: str | None) -> None:
        """Start the CLI and wait until it answers ``initialize``. Raises ``Unavailable``."""
        cli = _Cli()
        argv = claude_argv(self.spec, self._command, resume, self._mcp_file)
        cli.proc = await CliProcess.start(
            argv,
            cwd=self.spec.cwd,
            env=self.spec.env,
            on_stdout=lambda chunk: self._on_stdout(cli, chunk),
            on_exit=lambda code: self._on_exit(cli, code),
        )
        self._cli = cli
        try:
            response = await self._request(cli, "initialize", INITIALIZE_TIMEOUT_S)
            if not response.ok:
                raise Unavailable(f"claude refused to initialize: {response.error}")
        except BaseException:
            if self._cli is cli:
                self._cli = None
            await cli.proc.kill()
            raise
        cli.ready = True

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

    async def _request(
        self, cli: _Cli, subtype: str, timeout: float, fields: JsonObject | None = None
    ) -> ControlResponse:
        """Send a control request and wait for its answer. Raises ``Unavailable``."""
        assert cli.proc is not None
        request_id = f"{subtype}-{next(self._request_ids)}"
        future: asyncio.Future[ControlResponse] = asyncio.get_running_loop().create_future()
        cli.pending[request_id] = future
        try:
            with contextlib.suppress(Unavailable):
                # A CLI that no longer reads is exiting: its exit rejects the future with the
                # exit code and stderr, a better message than the broken pipe.
                await cli.proc.write(control_request_line(request_id, subtype, fields))
            async with asyncio.timeout(timeout):
                return await future
        except TimeoutError:
            raise Unavailable(f"claude did not answer {subtype} within {timeout:g} s") from None
        finally:
            cli.pending.pop(request_id, None)

    def _on_stdout(self, cli: _Cli, chunk: bytes) -> None:
        for item in cli.parser.feed(chunk):
            self._handle(cli, item)

    def _on_exit(self, cli: _Cli, code: int) -> None:
        for item in cli.parser.flush():
            self._handle(cli, item)
        assert cli.proc is not None
        cli.proc.close_stdin()
        cli.reject_pending(Unavailable(f"claude exited with code {code}{_stderr(cli)}"))
        if cli is not self._cli or not cli.ready:
            return  # shut down, replaced, or failed its start (which reports it)
        self._cli = None
        if self.busy:
            self._mark_dead()
            self._fail_turn(
                AgentFailed(
                    f"{self.name}: claude exited with code {code} during the turn{_stderr(cli)}"
                )
            )
        else:
            log.warning(
                "%s: claude exited with code %s between turns; the next send resumes "
                "the conversation%s",
                self.name,
                code,
                _stderr(cli),
            )

    def _handle(self, cli: _Cli, item: ClaudeItem) -> None:
        if isinstance(item, ControlResponse):
            future = cli.pending.get(item.request_id)
            if future is not None and not future.done():
                future.set_result(item)
            return
        if cli is not self._cli:
            return  # the last words of a process being replaced or shut down
        if isinstance(item, ClaudeInit):
            self._set_conversation_id(item.session_id)
            self._mcp_servers = item.mcp_servers
        elif isinstance(item, ClaudeResult):
            self._finish(item)
        else:
            self._emit(item)

    def _finish(self, result: ClaudeResult) -> None:
        # A result outside a turn (a start that failed, say) has nobody to tell; one that names
        # other user lines is stale: it must not end the current turn.
        if not self.busy:
            return
        if result.user_message_uuids and self._turn_uuid not in result.user_message_uuids:
            log.warning("%s: ignored a result for another prompt", self.name)
            return
        self._set_conversation_id(result.finished.conversation_id)
        self._emit(result.finished)


def _stderr(cli: _Cli) -> str:
    tail = cli.proc.stderr_tail() if cli.proc is not None else ""
    return f": {tail[-2000:]}" if tail else ""


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
    session = ClaudeSession(spec, command)
    try:
        await session.start()
    except BaseException:
        await session.shutdown()
        raise
    return session


async def probe_claude_mcp(session: AgentSession) -> str:
    """``CliAdapter.probe_mcp`` for claude."""
    if not isinstance(session, ClaudeSession):
        raise Invalid("not a claude session")
    return await session.call_mcp_tool(PROBE_TOOL)
