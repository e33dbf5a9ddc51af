"""The host's side of a remote agent (DESIGN.md §16): ``idea host``'s daemon.

It starts agents' CLIs on this machine (PTY or structured, with the very starter IdeA uses
locally), carries their output and events to the IdeA that attached, and keeps them alive when
the link drops: answers are kept until acknowledged and sent again on re-attach; with nobody
attached for the grace period, every agent is stopped and the daemon ends. One IdeA is attached
at a time: a new one (a reconnect) replaces the old.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from idea import __version__
from idea.application.session_ports import AgentSession, SessionStarter, TerminalSession
from idea.application.tasks import TaskSet
from idea.domain.agent import Agent
from idea.domain.errors import Conflict, IdeaError, Invalid, NotFound, Unavailable
from idea.domain.profile import profile_from_json
from idea.domain.session_events import SessionEvent, TurnFinished
from idea.infrastructure.remote import wire
from idea.infrastructure.remote.reliable import Inbox, Outbox
from idea.infrastructure.remote.wire import Message, optional
from idea.infrastructure.remote.wire import field as need

log = logging.getLogger(__name__)

DEFAULT_GRACE_S = 300.0
OUT_HIGH_WATER = 1024 * 1024  # bytes waiting for the link beyond which terminal output waits
GRACE_MAX_S = 24 * 3600.0

# What the daemon needs per project to start agents: a starter whose MCP declarations name
# ``mcp_socket`` (forwarded by SSH to the project's endpoint) and give each agent's bridge the
# key IdeA sent for it: (project id, mcp socket, key of an agent id, the MCP tool timeout to
# declare) -> starter.
StarterFactory = Callable[[str, str, Callable[[str], bytes], float], SessionStarter]


@dataclass
class _Hosted:
    kind: str  # "terminal" | "structured"
    terminal: TerminalSession | None = None
    agent: AgentSession | None = None
    exit_code: int | None = None
    printed: int = 0  # characters the terminal printed so far: where each output piece ends
    unsubscribe: list[Callable[[], None]] = field(default_factory=list)

    def state(self) -> Message:
        if self.agent is not None:
            return {
                "kind": self.kind,
                "alive": self.agent.alive,
                "busy": self.agent.busy,
                "conversation_id": self.agent.conversation_id,
            }
        assert self.terminal is not None
        return {"kind": self.kind, "exit_code": self.terminal.exit_code}


class HostServer:
    def __init__(
        self,
        starter_for: StarterFactory,
        mcp_socket_for: Callable[[str], str],
        grace_s: float = DEFAULT_GRACE_S,
    ) -> None:
        self._starter_for = starter_for
        self._mcp_socket_for = mcp_socket_for
        self._grace_s = grace_s
        self.instance = uuid.uuid4().hex  # a restarted daemon is another host: IdeA must know
        self._sessions: dict[str, _Hosted] = {}
        self._agent_keys: dict[str, bytes] = {}
        self._outbox = Outbox()
        self._inbox = Inbox()
        self._writer: wire.ByteWriter | None = None
        self._attached: asyncio.Task[None] | None = None
        self._starter: SessionStarter | None = None
        self._project: str | None = None
        self._tasks = TaskSet("host server")  # message handlers and the close, owned here
        self._grace: asyncio.TimerHandle | None = None
        self.done = asyncio.Event()  # set once every agent is stopped and nobody will attach

    # -- links ----------------------------------------------------------------------------

    async def attach(self, reader: wire.ByteReader, writer: wire.ByteWriter) -> None:
        """Serve one IdeA until its link ends; a later attach replaces this one."""
        hello = await asyncio.wait_for(wire.read_message(reader), 30)
        if hello.get("t") != "hello" or hello.get("v") != wire.VERSION:
            await wire.send(writer, {"t": "refused", "message": "not an IdeA link of version 1"})
            return
        version = hello.get("version")
        if version != __version__:
            text = f"IdeA {version} cannot drive this host's idea {__version__}: install the same"
            await wire.send(writer, {"t": "refused", "message": text})
            return
        project = need(hello, "project", str)
        if self._project is not None and project != self._project:
            await wire.send(writer, {"t": "refused", "message": "another project is attached"})
            return
        if self._project is None:
            self._project = project
            timeout = optional(hello, "tool_timeout_s", (int, float))
            self._starter = self._starter_for(
                project,
                self._mcp_socket_for(project),
                self._agent_key,
                float(timeout) if timeout is not None and timeout > 0 else 600.0,
            )
        grace = optional(hello, "grace_s", (int, float))
        if grace is not None:
            self._grace_s = min(max(float(grace), 0.0), GRACE_MAX_S)
        if self._attached is not None and self._attached is not asyncio.current_task():
            self._attached.cancel()
        self._attached = asyncio.current_task()
        self._cancel_grace()
        self._writer = writer
        try:
            await wire.send(
                writer,
                {
                    "t": "welcome",
                    "v": wire.VERSION,
                    "version": __version__,
                    "instance": self.instance,
                    "seen": self._inbox.seen,
                    "mcp_socket": self._mcp_socket_for(project),
                    "sessions": {sid: s.state() for sid, s in self._sessions.items()},
                },
            )
            seen = optional(hello, "seen", int) or 0
            for message in self._outbox.resend_after(seen):
                await wire.send(writer, message)
            await self._serve(reader)
        finally:
            if self._writer is writer:
                self._writer = None
                self.start_grace()

    async def _serve(self, reader: wire.ByteReader) -> None:
        while True:
            try:
                message = await wire.read_message(reader)
            except Exception as exc:
                if not wire.is_end_of_stream(exc):
                    log.warning("host link ended: %s", exc)
                return
            if message.get("t") == "ack":
                self._outbox.acknowledged(optional(message, "seen", int) or 0)
                continue
            if not self._inbox.fresh(message):
                continue
            self._push({"t": "ack", "seen": self._inbox.seen})
            self._spawn(self._handle(message))

    def _push(self, message: Message) -> None:
        """Send if attached, else drop (unnumbered messages only). A terminal's output is
        dropped too while the link is behind (``OUT_HIGH_WATER`` bytes not yet sent): it carries
        its position, so IdeA sees the gap and fills it from the scrollback."""
        writer = self._writer
        if writer is None:
            return
        if message.get("t") == "out" and _backlog(writer) > OUT_HIGH_WATER:
            return
        try:
            writer.write(wire.encode(message))
        except Exception as exc:  # a closing transport: the link's reader will see it end
            log.debug("dropped %s: %s", message.get("t"), exc)

    def _deliver(self, message: Message) -> None:
        """Send a message that must arrive: kept until IdeA acknowledges it."""
        self._push(self._outbox.number(message))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        self._tasks.spawn(work)

    # -- grace ------------------------------------------------------------------------------

    def start_grace(self) -> None:
        """Nobody attached: stop everything unless someone does within the grace period."""
        self._cancel_grace()
        loop = asyncio.get_running_loop()
        self._grace = loop.call_later(self._grace_s, self.close_soon)

    def _cancel_grace(self) -> None:
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None

    def close_soon(self) -> None:
        """``close`` in a task of its own (a timer's or a signal's callback)."""
        self._spawn(self.close())

    async def close(self) -> None:
        """Stop every agent; the daemon may end."""
        self._cancel_grace()
        for sid in list(self._sessions):
            await self._stop(sid)
        self.done.set()

    # -- requests ---------------------------------------------------------------------------

    async def _handle(self, message: Message) -> None:
        kind = message.get("t")
        rid = message.get("rid")
        try:
            handler = _HANDLERS.get(kind if isinstance(kind, str) else "")
            if handler is None:
                raise Invalid(f"unknown link message {str(kind)[:40]!r}", "t")
            value = await handler(self, message)
        except Exception as exc:
            if not isinstance(exc, IdeaError):
                log.exception("host request %s failed", kind)
            if rid is not None:
                self._deliver({"t": "r", "rid": rid, "ok": False, "error": wire.error_to_wire(exc)})
            return
        if rid is not None:
            self._deliver({"t": "r", "rid": rid, "ok": True, "value": value})

    def _session(self, message: Message) -> _Hosted:
        sid = need(message, "sid", str)
        hosted = self._sessions.get(sid)
        if hosted is None:
            raise NotFound(f"no session {sid[:40]} on this host")
        return hosted

    def _agent_of(self, message: Message) -> AgentSession:
        agent = self._session(message).agent
        if agent is None:
            raise Invalid("that session is a terminal", "sid")
        return agent

    def _terminal_of(self, message: Message) -> TerminalSession:
        terminal = self._session(message).terminal
        if terminal is None:
            raise Invalid("that session is not a terminal", "sid")
        return terminal

    def _agent_key(self, agent_id: str) -> bytes:
        key = self._agent_keys.get(agent_id)
        if key is None:
            raise Unavailable(f"IdeA sent no key for agent {agent_id[:40]}")
        return key

    def _definition(self, message: Message) -> tuple[Agent, Any]:
        agent = Agent.from_markdown(need(message, "agent_name", str), need(message, "agent", str))
        key = optional(message, "agent_key", bytes)
        if key is not None:
            if not 16 <= len(key) <= 64:
                raise Invalid("an agent key is 16 to 64 bytes", "agent_key")
            self._agent_keys[agent.id] = key
        profile = profile_from_json(
            need(message, "profile_name", str), need(message, "profile", dict)
        )
        return agent, profile

    def _new_sid(self, message: Message) -> str:
        sid = need(message, "sid", str)
        if sid in self._sessions or len(sid) > 64:
            raise Conflict(f"session {sid[:40]} exists on this host")
        return str(sid)

    def _starter_now(self) -> SessionStarter:
        if self._starter is None:
            raise Unavailable("no project is attached")
        return self._starter

    async def _start_terminal(self, message: Message) -> Message:
        sid = self._new_sid(message)
        agent, profile = self._definition(message)
        terminal = await self._starter_now().start_terminal(
            agent, profile, need(message, "rows", int), need(message, "cols", int)
        )
        hosted = _Hosted("terminal", terminal=terminal)
        self._sessions[sid] = hosted

        def printed(data: str) -> None:
            hosted.printed += len(data)
            self._push({"t": "out", "sid": sid, "data": data, "end": hosted.printed})

        hosted.unsubscribe.append(terminal.subscribe(printed))
        hosted.unsubscribe.append(terminal.on_exit(lambda code: self._exited(sid, code)))
        return {"pid": terminal.pid}

    def _exited(self, sid: str, code: int) -> None:
        hosted = self._sessions.get(sid)
        if hosted is not None:
            hosted.exit_code = code
        self._deliver({"t": "exit", "sid": sid, "code": code})

    async def _start_structured(self, message: Message) -> Message:
        sid = self._new_sid(message)
        agent, profile = self._definition(message)
        session = await self._starter_now().start_structured(
            agent, profile, optional(message, "resume", str)
        )
        hosted = _Hosted("structured", agent=session)
        self._sessions[sid] = hosted

        def on_event(event: SessionEvent) -> None:
            if not isinstance(event, TurnFinished):  # the turn's answer carries it, surely
                self._push({"t": "event", "sid": sid, "event": event.to_json()})

        hosted.unsubscribe.append(session.subscribe(on_event))
        return hosted.state()

    async def _write(self, message: Message) -> None:
        self._terminal_of(message).write(need(message, "data", str))

    async def _resize(self, message: Message) -> None:
        self._terminal_of(message).resize(need(message, "rows", int), need(message, "cols", int))

    async def _scrollback(self, message: Message) -> Message:
        terminal = self._terminal_of(message)
        end = self._session(message).printed
        return {"data": terminal.scrollback(), "end": end, "exit_code": terminal.exit_code}

    async def _turn(self, message: Message) -> Message:
        session = self._agent_of(message)
        prompt = need(message, "prompt", str)
        timeout = optional(message, "timeout_s", (int, float))
        if timeout is not None:
            finished = await session.send_blocking(prompt, float(timeout))
        else:
            finished = None
            async for event in session.send(prompt):
                if isinstance(event, TurnFinished):
                    finished = event
        if finished is None:
            raise Unavailable("the turn ended without its answer")
        return {"final": finished.to_json(), **self._session(message).state()}

    async def _interrupt(self, message: Message) -> None:
        await self._agent_of(message).interrupt()

    async def _stop_request(self, message: Message) -> None:
        await self._stop(need(message, "sid", str))

    async def _stop(self, sid: str) -> None:
        hosted = self._sessions.pop(sid, None)
        if hosted is None:
            return
        for unsubscribe in hosted.unsubscribe:
            unsubscribe()
        with contextlib.suppress(Exception):
            if hosted.agent is not None:
                await hosted.agent.shutdown()
            if hosted.terminal is not None:
                await hosted.terminal.stop()

    async def _state(self, message: Message) -> Message:
        return self._session(message).state()

    async def _close(self, _message: Message) -> None:
        await self.close()


def _backlog(writer: wire.ByteWriter) -> int:
    """What the link has not taken yet (0 when the writer cannot tell)."""
    transport = getattr(writer, "transport", None)
    size = getattr(transport, "get_write_buffer_size", None)
    try:
        return int(size()) if callable(size) else 0
    except Exception:
        return 0


_Handler = Callable[[HostServer, Message], Awaitable[Any]]
_HANDLERS: dict[str, _Handler] = {
    "start_terminal": HostServer._start_terminal,
    "start_structured": HostServer._start_structured,
    "write": HostServer._write,
    "resize": HostServer._resize,
    "scrollback": HostServer._scrollback,
    "turn": HostServer._turn,
    "interrupt": HostServer._interrupt,
    "stop": HostServer._stop_request,
    "state": HostServer._state,
    "close": HostServer._close,
}
