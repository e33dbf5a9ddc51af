"""OpenCode driven turn by turn: one ``opencode run --format=json`` process per turn.

Invariant: everything IdeA injects lives in the agent's run dir, nothing is written into the
project and ``HOME`` is left alone. OpenCode merges the config file named by ``OPENCODE_CONFIG``
into the user's global and project configs (``instructions`` lists are joined), so the run dir's
``opencode.json`` declares the ``idea`` server (``type: local``, its request ``timeout`` above the
ask timeout: an ``idea_ask_agent`` call waits for another agent) and lists the run dir's
``CONTEXT.md`` (the agent's context) in ``instructions``. The CLI runs with cwd = the project.

A turn's prompt is written on stdin (a positional message would be re-quoted by the CLI when it
holds spaces); the first turn creates the OpenCode session, whose id every later turn passes with
``--session=<id>`` (also after a restart of IdeA: ``resume_conversation_id``). The turn ends when
the process exits; an interrupt kills the turn's process tree and the next turn continues the
same session. The session is busy from the moment a turn is asked for, before its process
exists: an interrupt (or a shutdown) that comes while the process is being spawned is kept, and
the process is killed as soon as it is known, so the turn still ends as interrupted.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from idea.application.session_ports import AgentSession, StructuredSpec
from idea.domain.errors import AgentFailed, Invalid, Unavailable
from idea.domain.json_types import JsonObject
from idea.domain.profile import AdapterKind
from idea.domain.session_events import SessionEvent
from idea.infrastructure.clis.console_text import strip_ansi
from idea.infrastructure.clis.declaration import (
    MCP_SERVER_NAME,
    mcp_request_timeout_ms,
    write_run_dir_file,
)
from idea.infrastructure.clis.mcp_list import run_mcp_list
from idea.infrastructure.clis.ndjson import OverlongLine
from idea.infrastructure.clis.opencode.stream import OpenCodeStreamParser
from idea.infrastructure.clis.turn_session import TurnSession
from idea.infrastructure.files.atomic import write_atomic
from idea.infrastructure.processes.cli_process import CliProcess
from idea.infrastructure.processes.run_dir import CONTEXT_FILE

log = logging.getLogger(__name__)

CONFIG_FILE = "opencode.json"
CONFIG_ENV = "OPENCODE_CONFIG"
_LISTED = re.compile(rf"(?P<mark>\S)\s+{re.escape(MCP_SERVER_NAME)}\s+(?P<status>\S.*)$")


def opencode_config(spec: StructuredSpec) -> JsonObject:
    """The run dir's ``opencode.json``: IdeA's server and the context file, as far as given."""
    config: JsonObject = {"$schema": "https://opencode.ai/config.json"}
    if spec.mcp is not None:
        server: JsonObject = {
            "type": "local",
            "command": [spec.mcp.command, *spec.mcp.args],
            "environment": dict(spec.mcp.env),
            "enabled": True,
            "timeout": mcp_request_timeout_ms(spec.tool_timeout_s),  # its default: 5 s
        }
        config["mcp"] = {MCP_SERVER_NAME: server}
    if spec.context.strip():
        config["instructions"] = [str(Path(spec.run_dir) / CONTEXT_FILE)]
    return config


def prepare_run_dir(spec: StructuredSpec) -> dict[str, str]:
    """Write ``opencode.json`` (and ``CONTEXT.md``) into the run dir; the environment that
    points the CLI at them. Raises ``Internal`` if the run dir cannot be written."""
    config = write_run_dir_file(spec.run_dir, CONFIG_FILE, opencode_config(spec))
    if spec.context.strip():
        write_atomic(Path(spec.run_dir) / CONTEXT_FILE, spec.context.strip() + "\n")
    return {CONFIG_ENV: str(config)}


class OpenCodeSession(TurnSession):
    def __init__(self, spec: StructuredSpec, program: Sequence[str]) -> None:
        super().__init__(
            os.path.basename(os.path.normpath(spec.run_dir)) or "opencode", spec.replies_dir
        )
        self._spec = spec
        self._program = tuple(program)
        self._env = {**spec.env, **prepare_run_dir(spec)}
        self._set_conversation_id(spec.resume_conversation_id)
        self._proc: CliProcess | None = None
        self._interrupted = False
        self._closing = False

    def pids(self) -> list[int]:
        proc = self._proc
        return [proc.pid] if proc is not None and proc.exit_code is None else []

    async def check_mcp_server(self, timeout: float = 60.0) -> str:
        """``opencode mcp list`` with the session's config: the line that says IdeA's server is
        connected (the CLI connects to it; no model turn). Raises ``Unavailable``."""
        argv = (*self._program, "mcp", "list")
        output = await run_mcp_list("opencode", argv, self._spec.cwd, self._env, timeout)
        return connected_line(output)

    async def _start_turn(self, prompt: str) -> None:
        if not prompt.strip():
            raise Invalid("an empty prompt cannot be sent to OpenCode")
        # The session is busy before this runs: an interrupt may already have been asked for.
        self._interrupted = self._interrupt_asked
        argv = [*self._program, *self._spec.args, "run", "--format=json"]
        if self.conversation_id:
            argv.append(f"--session={self.conversation_id}")
        if self._spec.model:
            argv.append(f"--model={self._spec.model}")
        parser = OpenCodeStreamParser(answer=self._answer_text())
        proc = await CliProcess.start(
            argv,
            cwd=self._spec.cwd,
            env=self._env,
            on_stdout=partial(self._on_stdout, parser),
            on_exit=partial(self._on_exit, parser),
        )
        self._proc = proc
        if self._stopped():
            # Interrupted or shut down while the process was being spawned: nobody else saw it.
            # Its exit reports the interrupted turn.
            proc.close_stdin()
            await proc.kill()
            if self._closing:
                raise Unavailable(f"the session of {self.name} was shut down")
            return
        try:
            await proc.write(prompt.encode("utf-8"))
        except Unavailable as exc:
            await proc.kill()
            if self._stopped():  # killed by the interrupt while it read the prompt
                return
            raise AgentFailed(f"{self.name}: opencode {exc.message}") from exc
        finally:
            proc.close_stdin()

    def _stopped(self) -> bool:
        return self._interrupted or self._closing

    async def _interrupt_turn(self) -> None:
        self._interrupted = True
        if self._proc is not None:
            await self._proc.kill()

    async def _close(self) -> None:
        self._closing = True
        if self._proc is not None:
            await self._proc.kill()

    def _on_stdout(self, parser: OpenCodeStreamParser, data: bytes) -> None:
        self._handle(parser, parser.feed(data))

    def _handle(
        self, parser: OpenCodeStreamParser, events: list[SessionEvent | OverlongLine]
    ) -> None:
        self._set_conversation_id(parser.session_id)
        for event in events:
            if isinstance(event, OverlongLine):
                self._line_too_long(event, "opencode")  # one run per turn: this turn's line
            else:
                self._emit(event)

    def _on_exit(self, parser: OpenCodeStreamParser, code: int) -> None:
        self._handle(parser, parser.flush())
        if self._closing:
            return  # shutdown reports the turn
        if self._interrupted:
            self._fail_turn(AgentFailed(f"{self.name}: the turn was interrupted"))
            return
        proc = self._proc
        stderr = strip_ansi(proc.stderr_tail() if proc is not None else "").strip()
        self._emit(parser.finish(code, stderr[-2000:]))


def connected_line(output: str) -> str:
    """The ``✓ idea connected`` line of ``opencode mcp list``. Raises ``Unavailable``."""
    lines = [strip_ansi(line).strip(" │●\t") for line in output.splitlines()]
    ours = [m for line in lines if (m := _LISTED.search(line))]
    if ours and ours[0]["status"].strip() == "connected":
        return ours[0][0]
    found = ours[0][0] if ours else f"the server {MCP_SERVER_NAME!r} is not listed"
    raise Unavailable(f"opencode does not reach IdeA's MCP server: {found}")


async def start_opencode_session(
    spec: StructuredSpec, *, program: Sequence[str] | None = None
) -> OpenCodeSession:
    """Write the run dir's config and return the session (no process runs until a turn).

    ``program`` replaces ``spec.program`` (a fake CLI in tests). Raises ``Invalid`` for a spec
    of another kind, ``Unavailable`` if the program is not an executable file, ``Internal`` if
    the run dir cannot be written.
    """
    if spec.kind is not AdapterKind.OPENCODE:
        raise Invalid(f"a {spec.kind} spec cannot start OpenCode")
    argv0 = tuple(program) if program else spec.program
    if not (os.path.isfile(argv0[0]) and os.access(argv0[0], os.X_OK)):
        raise Unavailable(f"OpenCode is not installed at {argv0[0]}")
    return OpenCodeSession(spec, argv0)


async def probe_opencode_mcp(session: AgentSession) -> str:
    """``CliAdapter.probe_mcp`` for opencode."""
    if not isinstance(session, OpenCodeSession):
        raise Invalid("not an opencode session")
    return await session.check_mcp_server()
