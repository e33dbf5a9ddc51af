"""A CLI speaking Claude Code's stream-json protocol as ONE long-lived process per agent.

Invariant: the session runs at most one CLI process at a time and its turns strictly one after
the other; a turn is one ``user`` line on stdin and ends at the first ``result`` line that answers
it (protocols/AGENT_CLI_PROTOCOLS.md §A). Claude Code and Qwen Code (which took the protocol over)
differ only in their flags and in how IdeA's MCP server is declared: the subclasses say that.

* A start sends the ``initialize`` control request and waits for its answer: it proves the CLI
  parsed its flags, found the conversation to resume and reads stdin, so a bad launch fails
  ``start`` with the CLI's own message instead of the first turn.
* The CLI dying mid-turn fails the turn with ``AgentFailed`` (exit code, stderr tail) and ends
  the session. Dying between turns (killed from outside, crashed while idle) does not: the next
  ``send`` restarts it resuming the conversation, which keeps the conversation id.
* An interrupt that does not settle (``_recover``) kills the process and restarts it at once,
  resumed; if that restart fails the session ends. Shutdown closes stdin, then kills the tree.
* A line too long to read fails the running turn with ``LineTooLong`` once the turn's
  ``system/init`` was seen (before it, the line is the rest of an earlier turn); the turn then
  settles as an abandoned one. The turn's answer is cut at the cap (``TurnSession._bounded``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import uuid
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import ClassVar, Self

from idea.application.session_ports import StructuredSpec
from idea.domain.errors import AgentFailed, IdeaError, Unavailable
from idea.domain.json_types import JsonObject
from idea.infrastructure.clis.ndjson import OverlongLine
from idea.infrastructure.clis.stream_json import (
    ClaudeInit,
    ClaudeItem,
    ClaudeResult,
    ClaudeStreamParser,
    ControlResponse,
    McpServerStatus,
    control_request_line,
    user_line,
)
from idea.infrastructure.clis.stream_json_usage import ClaudeUsage, TurnUsageMeter
from idea.infrastructure.clis.turn_session import TurnSession
from idea.infrastructure.processes.cli_process import CliProcess

log = logging.getLogger(__name__)

# ``initialize`` is answered before MCP servers connect (observed: well under a second).
INITIALIZE_TIMEOUT_S = 60.0
INTERRUPT_ACK_TIMEOUT_S = 5.0
# At stdin EOF the CLI finishes and exits by itself; past this grace its tree is killed.
SHUTDOWN_GRACE_S = 3.0


class _Cli:
    """One CLI process and the state that dies with it."""

    def __init__(self, meter: TurnUsageMeter) -> None:
        self.parser = ClaudeStreamParser(meter)
        self.proc: CliProcess | None = None
        self.pending: dict[str, asyncio.Future[ControlResponse]] = {}
        self.ready = False  # answered ``initialize``; exits before that belong to the start

    def reject_pending(self, error: IdeaError) -> None:
        for future in self.pending.values():
            if not future.done():
                future.set_exception(error)
        self.pending.clear()


class StreamJsonSession(TurnSession):
    """The long-lived session; subclasses say how to write the declaration and build argv."""

    cli_name = "cli"  # the CLI's name in messages (subclasses set it)
    # How the CLI's numbers read (``stream_json_usage``); one meter outlives the processes, as
    # a resumed CLI carries its counters over.
    usage_meter: ClassVar[type[TurnUsageMeter]] = ClaudeUsage

    def __init__(self, spec: StructuredSpec, command: Sequence[str] | None = None) -> None:
        super().__init__(Path(spec.run_dir).name or self.cli_name, spec.replies_dir)
        self.spec = spec
        self._command = tuple(command) if command else spec.program
        self._mcp_file: Path | None = None
        self._cli: _Cli | None = None
        self._turn_uuid: str | None = None
        # Set by the ``system/init`` that opens the running turn (the CLI is working on it).
        self._turn_began = asyncio.Event()
        self._request_ids = itertools.count(1)
        self._mcp_servers: tuple[McpServerStatus, ...] = ()
        self._meter = self.usage_meter()

    @property
    def mcp_servers(self) -> tuple[McpServerStatus, ...]:
        """MCP servers and their status as the last ``system/init`` reported them."""
        return self._mcp_servers

    def pids(self) -> list[int]:
        cli = self._cli
        if cli is None or cli.proc is None or cli.proc.exit_code is not None:
            return []
        return [cli.proc.pid]

    @classmethod
    async def open(cls, spec: StructuredSpec, command: Sequence[str] | None = None) -> Self:
        """A started session (the half-started one is shut down if ``start`` fails)."""
        session = cls(spec, command)
        try:
            await session.start()
        except BaseException:
            await session.shutdown()
            raise
        return session

    async def start(self) -> None:
        """Write the MCP declaration and start the CLI. Raises ``Unavailable``/``Internal``."""
        self._mcp_file = self._write_declaration()
        await self._spawn(self.spec.resume_conversation_id)

    @abstractmethod
    def _write_declaration(self) -> Path | None:
        """Write IdeA's MCP declaration into the run dir (None: nothing declared)."""

    @abstractmethod
    def _argv(self, resume: str | None) -> list[str]:
        """The command line of a start; ``resume``: the conversation to continue."""

    # --- TurnSession ----------------------------------------------------------------------------

    async def _start_turn(self, prompt: str) -> None:
        if self._cli is None:
            # The CLI died between turns: continue the same conversation in a new process.
            try:
                await self._spawn(self._resume_id())
            except IdeaError as exc:
                self._mark_dead()
                raise AgentFailed(
                    f"{self.name}: {self.cli_name} could not be restarted: {exc}"
                ) from exc
        cli = self._cli
        assert cli is not None and cli.proc is not None
        self._turn_uuid = str(uuid.uuid4())
        self._turn_began.clear()
        # An interrupt asked before the prompt is written reached no turn (or, while the CLI was
        # being started again, no CLI): it is sent again once the CLI has the prompt. One asked
        # from here on is written after the prompt, so it reaches the turn by itself.
        asked_before = self._interrupt_asked
        try:
            await cli.proc.write(user_line(prompt, self._turn_uuid))
        except Unavailable as exc:
            raise AgentFailed(f"{self.name}: {self.cli_name} {exc.message}{_stderr(cli)}") from exc
        if asked_before:
            await self._interrupt_turn()

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
            log.error("%s: %s could not be restarted: %s", self.name, self.cli_name, exc)
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
        cli = _Cli(self._meter)
        argv = self._argv(resume)
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
                raise Unavailable(f"{self.cli_name} refused to initialize: {response.error}")
        except BaseException:
            if self._cli is cli:
                self._cli = None
            await cli.proc.kill()
            raise
        cli.ready = True

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
            raise Unavailable(
                f"{self.cli_name} did not answer {subtype} within {timeout:g} s"
            ) from None
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
        cli.reject_pending(Unavailable(f"{self.cli_name} exited with code {code}{_stderr(cli)}"))
        if cli is not self._cli or not cli.ready:
            return  # shut down, replaced, or failed its start (which reports it)
        self._cli = None
        if self.busy:
            self._mark_dead()
            self._fail_turn(
                AgentFailed(
                    f"{self.name}: {self.cli_name} exited with code {code} during the turn"
                    + _stderr(cli)
                )
            )
        else:
            log.warning(
                "%s: %s exited with code %s between turns; the next send resumes "
                "the conversation%s",
                self.name,
                self.cli_name,
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
        if isinstance(item, OverlongLine):
            if self.busy and self._turn_began.is_set():
                self._line_too_long(item, self.cli_name)
            else:
                log.warning(
                    "%s: ignored a line of %s bytes between turns", self.name, item.seen_bytes
                )
        elif isinstance(item, ClaudeInit):
            if self.busy:
                self._turn_began.set()
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
        finished = result.finished
        self._set_conversation_id(finished.conversation_id)
        self._emit(replace(finished, text=self._bounded(finished.text)))


def _stderr(cli: _Cli) -> str:
    tail = cli.proc.stderr_tail() if cli.proc is not None else ""
    return f": {tail[-2000:]}" if tail else ""
