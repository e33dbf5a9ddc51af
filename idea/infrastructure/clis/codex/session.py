"""Codex CLI in structured mode: one long-lived ``codex app-server`` per agent, one thread.

Invariant: the session's conversation id is the Codex thread id from its first ``thread/start``;
every later process of the session (after a crash, or after a turn that would not stop) re-opens
that same thread with ``thread/resume``, and so does a session started with
``resume_conversation_id``. Nothing is written to disk by this adapter: the context travels as
``developerInstructions`` and IdeA's MCP bridge as the thread's ``config`` (JSON, so Windows paths
need no escaping), both in the ``thread/start`` / ``thread/resume`` request. Known limit (codex
0.171.0, observed): on ``thread/resume`` Codex replays the thread's FIRST developer message and
ignores the new ``developerInstructions``, so an edited agent context reaches a Codex agent only
in a new conversation. The process and its JSON-RPC are ``app_server.py``'s; this module maps
the thread's turns (start, output, end, interrupt, usage, limits) onto the session.

Why ``app-server`` and not one ``codex exec --json`` per turn (protocols/AGENT_CLI_PROTOCOLS.md
§B.1-B.5, re-checked on codex 0.171.0):
- start-up is paid once: exec re-spawns Codex AND IdeA's MCP bridge on every turn, and its MCP
  start-up is non-blocking (§B.3: a server that is not ready ~1 s in is missing from the turn)
  unless ``required`` makes every turn wait for the bridge handshake. Here ``required`` makes the
  thread wait once, and a broken bridge fails the launch with Codex's own message;
- interrupting is a protocol request (``turn/interrupt`` → ``turn/completed`` ``interrupted``,
  observed) instead of killing a process mid-write; the process and its bridge survive it;
- usage comes as ``thread/tokenUsage/updated`` with the thread ``total``: per-turn usage is a
  difference of two totals either way (exec's ``turn.completed.usage`` is cumulative too); the
  totals before a turn are the session's, kept across its processes;
- the open issue "0.148.0 breaks MCP servers added via -c option via app-server mode"
  (openai/codex#39537) concerns ``-c`` on the app-server command line: we pass no ``-c`` at all,
  the servers go in ``thread/start``'s ``config``, which was observed to work, on resume too;
- crash isolation: exec confines a crash to one turn; here a dead app-server fails only the
  running turn (``AgentFailed`` with its stderr tail) and the next turn starts a new process on
  the same thread, so the session survives the same way;
- exec itself runs on the app-server internally (§B.5), so the protocol is the primary one.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Coroutine, Sequence
from typing import Any

from idea import __version__
from idea.application.session_ports import AgentSession, StructuredSpec
from idea.application.tasks import TaskSet
from idea.domain.errors import AgentFailed, IdeaError, Invalid, Unavailable
from idea.domain.json_types import JsonObject
from idea.domain.session_events import TurnFinished
from idea.domain.usage import Usage
from idea.infrastructure.clis.adapter import PROBE_TOOL
from idea.infrastructure.clis.codex.app_server import AppServer, RpcRefused
from idea.infrastructure.clis.codex.stream import (
    CodexMessage,
    McpStartup,
    RateLimitsUpdated,
    ServerRequest,
    TurnEnded,
    TurnOutput,
    TurnStarted,
    UsageUpdated,
    answer_server_request,
    thread_params,
    turn_params,
)
from idea.infrastructure.clis.codex.usage import codex_rate_limit, codex_turn_usage
from idea.infrastructure.clis.declaration import MCP_SERVER_NAME
from idea.infrastructure.clis.ndjson import OverlongLine
from idea.infrastructure.clis.turn_session import TurnSession
from idea.infrastructure.processes.system import SystemClock

log = logging.getLogger(__name__)

# initialize + thread/start, which waits for the required MCP bridge (Codex allows it 30 s).
START_TIMEOUT_S = 90.0
REQUEST_TIMEOUT_S = 15.0
_CLIENT_INFO: JsonObject = {
    "clientInfo": {"name": "idea", "title": "IdeA", "version": __version__},
    "capabilities": None,
}


async def start_codex_session(
    spec: StructuredSpec, *, program: Sequence[str] | None = None
) -> CodexSession:
    """Start ``codex app-server`` and open (or resume) the agent's thread.

    ``program`` is the argv that runs Codex in place of ``spec.program`` (tests run a fake CLI
    under the current interpreter). Raises ``Unavailable`` naming the cause (with Codex's
    stderr) if the process cannot start or the thread cannot be opened.
    """
    argv = [*(program or spec.program), "app-server", *spec.args, "--listen=stdio://"]
    session = CodexSession(spec, argv)
    await session._open(spec.resume_conversation_id)
    return session


class CodexSession(TurnSession):
    def __init__(self, spec: StructuredSpec, argv: Sequence[str]) -> None:
        super().__init__(
            os.path.basename(os.path.normpath(spec.run_dir)) or "codex", spec.replies_dir
        )
        self._spec = spec
        self._argv = list(argv)
        self._server: AppServer | None = None
        self._turn_id: str | None = None
        # Set at turn/started (or at the turn's end): Codex refuses turn/interrupt before it
        # ("no active turn to interrupt", observed on 0.171.0 right after turn/start answered).
        self._turn_started = asyncio.Event()
        self._last_started: str | None = None
        self._orphan: str | None = None  # a turn whose caller gave up before it was named
        # Answers to the server's requests and interrupts sent on their own; ended at close.
        self._tasks = TaskSet(f"codex session {self.name}")
        self._usage_before: JsonObject = {}
        self._usage_after: JsonObject = {}  # the thread's totals as this turn reported them
        self._limits: JsonObject = {}  # the account's limit windows as this turn reported them
        self._clock = SystemClock()
        self.thread_usage: JsonObject = {}
        """Cumulative token counts of the thread, as Codex last reported them."""
        self.turn_usage: Usage | None = None
        """What the last finished turn cost (None: Codex reported nothing)."""
        self.mcp_status: dict[str, McpStartup] = {}
        """Each MCP server's start-up status, as Codex last reported it."""

    def pids(self) -> list[int]:
        return self._server.pids() if self._server is not None else []

    # --- process ----------------------------------------------------------------------------

    async def _open(self, thread_id: str | None) -> None:
        """Spawn the app-server and open the thread; raises ``Unavailable``."""
        server = self._server = await AppServer.start(
            self._argv,
            name=self.name,
            cwd=self._spec.cwd,
            env=self._spec.env,
            on_message=self._handle,
            on_exit=self._on_exit,
        )
        verb = f"resume conversation {thread_id}" if thread_id else "start a conversation"
        try:
            async with asyncio.timeout(START_TIMEOUT_S):
                await self._request("initialize", _CLIENT_INFO)
                await server.notify("initialized")
                method = "thread/resume" if thread_id else "thread/start"
                result = await self._request(method, thread_params(self._spec, thread_id))
        except (RpcRefused, IdeaError, TimeoutError) as exc:
            await self._abandon(server)
            reason = str(exc) or f"no answer within {START_TIMEOUT_S:g} s"
            if "stderr:" not in reason:
                reason += server.stderr_tail()
            raise Unavailable(f"codex could not {verb}: {reason}") from exc
        except BaseException:
            await self._abandon(server)
            raise
        thread = result.get("thread")
        new_id = thread.get("id") if isinstance(thread, dict) else None
        if not isinstance(new_id, str) or not new_id:
            await self._abandon(server)
            raise Unavailable(f"codex could not {verb}: its answer names no thread")
        self._set_conversation_id(new_id)

    async def _abandon(self, server: AppServer) -> None:
        server.forget()  # its exit is no news: the caller reports the failure
        await server.kill()

    async def call_mcp_tool(self, tool: str, timeout: float = 30.0) -> str:
        """Call ``tool`` of IdeA's MCP server as Codex loaded it for this thread, with no model
        turn (``mcpServer/tool/call``): its text. Raises ``Unavailable`` naming why not."""
        try:
            async with asyncio.timeout(timeout):
                while (status := self.mcp_status.get(MCP_SERVER_NAME)) is None or status.status in (
                    "starting",
                    "pending",
                ):
                    await asyncio.sleep(0.05)
        except TimeoutError:
            raise Unavailable(
                f"codex did not start the MCP server {MCP_SERVER_NAME!r} within {timeout:g} s"
            ) from None
        if status.status != "ready":
            raise Unavailable(
                f"codex could not start the MCP server {MCP_SERVER_NAME!r}: "
                f"{status.status} {status.error or ''}".strip()
            )
        params: JsonObject = {
            "server": MCP_SERVER_NAME,
            "threadId": self.conversation_id or "",
            "tool": tool,
            "arguments": {},
        }
        try:
            async with asyncio.timeout(timeout):
                result = await self._request("mcpServer/tool/call", params)
        except (TimeoutError, RpcRefused, AgentFailed) as exc:
            raise Unavailable(f"codex could not call {tool}: {exc}") from None
        content = result.get("content")
        blocks = content if isinstance(content, list) else []
        return "".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))

    async def _request(self, method: str, params: JsonObject) -> JsonObject:
        """Send a request and wait for its result; raises ``RpcRefused`` or ``AgentFailed``."""
        server = self._server
        if server is None or not server.running:
            raise AgentFailed(f"{self.name}: codex is not running")
        return await server.request(method, params)

    def _on_exit(self, error: AgentFailed) -> None:
        log.warning("%s: %s", self.name, error.message)
        self._fail_turn(error)

    # --- what Codex says ---------------------------------------------------------------------

    def _handle(self, message: CodexMessage) -> None:
        """What the app-server says besides the answers to our requests."""
        if isinstance(message, ServerRequest):
            log.info("%s: codex asked %s of a headless session", self.name, message.method)
            self._spawn(self._write(answer_server_request(message)))
        elif isinstance(message, TurnStarted):
            self._last_started = message.turn_id
            if message.turn_id is not None and message.turn_id == self._orphan:
                self._orphan = None
                self._spawn(self._send_interrupt(message.turn_id))
            elif self._current(message.turn_id):
                self._turn_started.set()
        elif isinstance(message, TurnOutput):
            if self._current(message.turn_id):
                self._emit(message.event)
        elif isinstance(message, TurnEnded):
            if self._current(message.turn_id):
                self._finish(message)
        elif isinstance(message, OverlongLine):
            # Before turn/started the line is the rest of an earlier turn.
            if self.busy and self._turn_started.is_set():
                self._line_too_long(message, "codex")
            else:
                log.warning("%s: ignored a line of %s bytes", self.name, message.seen_bytes)
        elif isinstance(message, UsageUpdated):
            self._usage_updated(message)
        elif isinstance(message, RateLimitsUpdated):
            # A sparse update: a window it leaves out keeps its last value.
            fresh = {k: v for k, v in message.snapshot.items() if v is not None}
            self._limits = {**self._limits, **fresh}
        elif isinstance(message, McpStartup):
            self.mcp_status[message.server] = message
            if message.status == "failed":
                log.warning(
                    "%s: MCP server %s failed: %s", self.name, message.server, message.error
                )
        else:
            # An `error` notification is not terminal (retry notices): a failed turn still ends
            # with turn/completed, which carries the error.
            log.debug("%s: codex: %s", self.name, message)

    def _usage_updated(self, message: UsageUpdated) -> None:
        self.thread_usage = message.total
        if not self.busy:
            return
        if self._turn_id is not None and message.turn_id in (None, self._turn_id):
            self._usage_after = message.total
        else:
            # Not counted in this turn: a resumed thread's totals (observed on 0.171.0, naming
            # the thread's last turn, right after thread/resume). They are where this turn starts.
            self._usage_before = dict(message.total)

    def _current(self, turn_id: str | None) -> bool:
        """True if an event of ``turn_id`` belongs to the running turn (adopting its id)."""
        if not self.busy:
            return False
        if self._turn_id is None and turn_id:
            self._turn_id = turn_id
        return turn_id is None or turn_id == self._turn_id

    def _finish(self, ended: TurnEnded) -> None:
        self.turn_usage = codex_turn_usage(self._usage_before, self._usage_after)
        failed = ended.status != "completed"
        limit = (
            codex_rate_limit(ended.detail, self._limits, self._clock.now_ms()) if failed else None
        )
        self._turn_id = None
        self._turn_started.set()  # nothing left to interrupt: wake a waiting interrupt
        self._emit(
            TurnFinished(
                text=self._bounded(ended.text),
                is_error=failed,
                error=ended.error if failed else None,
                conversation_id=self.conversation_id,
                usage=self.turn_usage,
                rate_limit=limit,
            )
        )

    # --- turns ------------------------------------------------------------------------------------

    async def _start_turn(self, prompt: str) -> None:
        if self._server is None or not self._server.running:
            await self._reopen()
        self._turn_id = None
        self._turn_started.clear()
        self._usage_before, self._usage_after = dict(self.thread_usage), {}
        self._limits = {}
        params = turn_params(self.conversation_id or "", prompt)
        request = asyncio.ensure_future(self._request("turn/start", params))
        request.add_done_callback(_retrieve)
        try:
            result = await asyncio.wait_for(asyncio.shield(request), REQUEST_TIMEOUT_S)
        except RpcRefused as exc:
            raise AgentFailed(f"codex refused the turn: {exc}") from exc
        except TimeoutError:
            await self._recover()
            raise AgentFailed(
                f"codex did not take the turn within {REQUEST_TIMEOUT_S:g} s"
            ) from None
        except asyncio.CancelledError:
            # The caller gave up before Codex named the turn: stop that turn once it is named.
            request.add_done_callback(self._interrupt_orphan)
            raise
        turn = result.get("turn")
        turn_id = turn.get("id") if isinstance(turn, dict) else None
        if isinstance(turn_id, str) and self._turn_id is None and self.busy:
            self._turn_id = turn_id

    async def _reopen(self) -> None:
        """A new app-server on the same thread, after the previous one died or was killed."""
        try:
            await self._open(self.conversation_id)
        except Unavailable:
            self._mark_dead()
            raise

    def _interrupt_orphan(self, request: asyncio.Future[JsonObject]) -> None:
        if request.cancelled() or request.exception() is not None:
            return
        turn = request.result().get("turn")
        turn_id = turn.get("id") if isinstance(turn, dict) else None
        if isinstance(turn_id, str) and turn_id == self._last_started:
            self._spawn(self._send_interrupt(turn_id))
        elif isinstance(turn_id, str):
            self._orphan = turn_id  # interrupted at its turn/started

    async def _interrupt_turn(self) -> None:
        async with asyncio.timeout(REQUEST_TIMEOUT_S):
            await self._turn_started.wait()
        if self.busy and self._turn_id is not None:
            await self._send_interrupt(self._turn_id)

    async def _send_interrupt(self, turn_id: str) -> None:
        params: JsonObject = {"threadId": self.conversation_id, "turnId": turn_id}
        try:
            await asyncio.wait_for(self._request("turn/interrupt", params), REQUEST_TIMEOUT_S)
        except RpcRefused as exc:
            log.debug("%s: nothing to interrupt: %s", self.name, exc)  # the turn already ended
        except (AgentFailed, Unavailable):
            pass  # the process is gone (its exit has failed the turn) or the session is ending

    async def _recover(self) -> None:
        """The turn would not stop: kill this app-server; the next turn resumes the thread."""
        log.warning("%s: codex did not stop a turn; restarting it on the next turn", self.name)
        server, self._server = self._server, None
        if server is not None:
            server.forget()
            server.fail_pending(AgentFailed(f"{self.name}: codex was restarted"))
            await server.kill()

    async def _close(self) -> None:
        server = self._server
        if server is not None:
            server.forget()  # what it says from now on is no news: the session is ending
            server.fail_pending(Unavailable(f"the session of {self.name} was shut down"))
            await server.close()
        await self._tasks.close()

    async def _write(self, data: bytes) -> None:
        if self._server is not None:
            await self._server.write(data)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        self._tasks.spawn(coro)


def _retrieve(future: asyncio.Future[JsonObject]) -> None:
    """Mark an outcome nobody awaits any more as seen (no "never retrieved" noise)."""
    if not future.cancelled():
        future.exception()


async def probe_codex_mcp(session: AgentSession) -> str:
    """``CliAdapter.probe_mcp`` for codex."""
    if not isinstance(session, CodexSession):
        raise Invalid("not a codex session")
    return await session.call_mcp_tool(PROBE_TOOL)
