"""Agents whose CLI runs on another host, behind the same ports as local ones (§16).

``RemoteTerminalSession`` and ``RemoteAgentSession`` speak to ``idea host`` through a
``HostLink``; ``RemoteStarter`` starts them; ``HostRoutingStarter`` sends each agent to its
host (``Agent.host``) or to the local starter.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from idea.application.session_ports import AgentSession, SessionStarter, TerminalSession
from idea.application.tasks import TaskSet
from idea.domain.agent import Agent, Workspace
from idea.domain.errors import Conflict, Invalid, Unavailable
from idea.domain.profile import Profile
from idea.domain.session_events import SessionEvent, TurnFinished, session_event_from_json
from idea.endpoint.loopback import agent_key
from idea.infrastructure.remote.link import HostLink
from idea.infrastructure.remote.wire import Message
from idea.infrastructure.stores.mcp_secret import ensure_project_key
from idea.infrastructure.terminal.scrollback import Scrollback

Unsubscribe = Callable[[], None]
SCROLLBACK_BYTES = 2 * 1024 * 1024


class RemoteTerminalSession:
    def __init__(self, link: HostLink, sid: str, pid: int) -> None:
        self._link, self._sid, self._pid = link, sid, pid
        self._exit_code: int | None = None
        self._exited = asyncio.Event()
        self._output: list[Callable[[str], None]] = []
        self._exits: list[Callable[[int], None]] = []
        self._shown = Scrollback(SCROLLBACK_BYTES)
        # The host counts the characters its terminal printed: ``_upto`` were shown here; what
        # comes after a gap is held until the host's scrollback fills it.
        self._upto = 0
        self._held: list[tuple[str, int]] = []
        # At most one resync at a time, owned here: stop() ends it, and none starts after.
        self._tasks = TaskSet(f"terminal {sid} on host {link.name}")
        self._resyncing: asyncio.Task[None] | None = None
        self._stopped = False
        self._unroute = link.route(sid, self._take)
        link.on_welcome(self._reattached)

    @property
    def pid(self) -> int:
        return self._pid  # on the host

    @property
    def exit_code(self) -> int | None:
        return self._exit_code

    def write(self, data: str) -> None:
        if self._exit_code is not None:
            raise Unavailable("the terminal's process has exited")
        self._link.post({"t": "write", "sid": self._sid, "data": data})

    def resize(self, rows: int, cols: int) -> None:
        if rows < 1 or cols < 1:
            raise Invalid(f"terminal size {rows}x{cols} is too small")
        if self._exit_code is None:
            with contextlib.suppress(Unavailable):
                self._link.post({"t": "resize", "sid": self._sid, "rows": rows, "cols": cols})

    def subscribe(self, listener: Callable[[str], None]) -> Unsubscribe:
        self._output.append(listener)
        return lambda: self._output.remove(listener) if listener in self._output else None

    def on_exit(self, listener: Callable[[int], None]) -> Unsubscribe:
        if self._exit_code is not None:
            listener(self._exit_code)
            return lambda: None
        self._exits.append(listener)
        return lambda: self._exits.remove(listener) if listener in self._exits else None

    def scrollback(self) -> str:
        return self._shown.snapshot().decode("utf-8", errors="replace")

    async def wait(self) -> int:
        await self._exited.wait()
        assert self._exit_code is not None
        return self._exit_code

    async def stop(self) -> None:
        if self._exit_code is None:
            with contextlib.suppress(Unavailable):
                await self._link.request({"t": "stop", "sid": self._sid})
            self._exit(-1 if self._exit_code is None else self._exit_code)
        self._unroute()
        self._stopped = True
        await self._tasks.close()

    def _take(self, message: Message) -> None:
        kind = message.get("t")
        if kind == "out":
            data, end = message.get("data"), message.get("end")
            if isinstance(data, str) and isinstance(end, int):
                self._output_until(data, end)
        elif kind == "exit":
            code = message.get("code")
            self._exit(code if isinstance(code, int) else -1)
        elif kind == "lost":
            self._show(f"\r\n[the link to host {self._link.name} is lost]\r\n")
            self._exit(-1)

    def _output_until(self, data: str, end: int) -> None:
        """Show what of ``data`` (the host's output up to character ``end``) is new here; what
        comes after a gap waits for the host's scrollback (``_resync``) to fill it."""
        start = end - len(data)
        if start > self._upto:
            self._held.append((data, end))
            self._start_resync()
            return
        if end > self._upto:
            self._show(data[self._upto - start :])
            self._upto = end

    def _show(self, data: str) -> None:
        self._shown.append(data.encode("utf-8"))
        for listener in list(self._output):
            listener(data)

    def _exit(self, code: int) -> None:
        if self._exit_code is not None:
            return
        self._exit_code = code
        self._exited.set()
        for listener in list(self._exits):
            listener(code)
        self._exits.clear()

    def _reattached(self, welcome: Message) -> None:
        sessions = welcome.get("sessions")
        if not isinstance(sessions, dict) or self._sid not in sessions:
            self._exit(-1)
            return
        self._start_resync()  # what was printed while the link was down

    def _start_resync(self) -> None:
        if self._resyncing is None and not self._stopped:
            self._resyncing = self._tasks.spawn(self._resync(), name=f"resync-{self._sid}")

    async def _resync(self) -> None:
        """Fill the gap from the host's scrollback, then what came after it."""
        answer: object = None
        try:
            with contextlib.suppress(Unavailable):
                answer = await self._link.request({"t": "scrollback", "sid": self._sid})
        finally:
            self._resyncing = None
        if isinstance(answer, dict):
            data, end = answer.get("data"), answer.get("end")
            if isinstance(data, str) and isinstance(end, int):
                if end - len(data) > self._upto:  # more was missed than the host keeps
                    self._show("\x1bc")
                    self._upto = end - len(data)
                self._output_until(data, end)
            code = answer.get("exit_code")
            if isinstance(code, int):
                self._exit(code)
        held, self._held = self._held, []
        for data, end in held:
            self._output_until(data, end)


class RemoteAgentSession:
    def __init__(self, link: HostLink, sid: str, state: Message) -> None:
        self._link, self._sid = link, sid
        self._alive = True
        self._busy = False
        self._conversation_id: str | None = None
        self._listeners: list[Callable[[SessionEvent], None]] = []
        self._turn_events: asyncio.Queue[SessionEvent] | None = None
        self._update(state)
        self._unroute = link.route(sid, self._take)
        link.on_welcome(self._reattached)

    @property
    def conversation_id(self) -> str | None:
        return self._conversation_id

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def alive(self) -> bool:
        return self._alive

    def pids(self) -> list[int]:
        return []  # its processes are the host's

    async def send(self, prompt: str) -> AsyncIterator[SessionEvent]:
        queue: asyncio.Queue[SessionEvent] = asyncio.Queue()
        answer = self._begin(prompt, None, queue)
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, answer}, return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    yield getter.result()
                    continue
                getter.cancel()
                while not queue.empty():
                    yield queue.get_nowait()
                yield self._finish(answer.result())
                return
        finally:
            await self._end(answer)

    async def send_blocking(self, prompt: str, timeout: float) -> TurnFinished:
        answer = self._begin(prompt, timeout, None)
        try:
            return self._finish(await asyncio.shield(answer))
        finally:
            await self._end(answer)

    async def interrupt(self) -> None:
        if self._busy:
            with contextlib.suppress(Unavailable):
                await self._link.request({"t": "interrupt", "sid": self._sid})

    async def shutdown(self) -> None:
        if self._alive:
            self._alive = False
            with contextlib.suppress(Unavailable):
                await self._link.request({"t": "stop", "sid": self._sid})
        self._unroute()

    def subscribe(self, listener: Callable[[SessionEvent], None]) -> Unsubscribe:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _begin(
        self, prompt: str, timeout: float | None, queue: asyncio.Queue[SessionEvent] | None
    ) -> asyncio.Future[Any]:
        if not self._alive:
            raise Unavailable("the agent's session on its host has ended")
        if self._busy:
            raise Conflict("a turn is already running")
        self._busy = True
        self._turn_events = queue
        request: Message = {"t": "turn", "sid": self._sid, "prompt": prompt}
        if timeout is not None:
            request["timeout_s"] = timeout
        return asyncio.ensure_future(self._link.request(request))

    async def _end(self, answer: asyncio.Future[Any]) -> None:
        self._turn_events = None
        if not answer.done():  # the caller gave up (cancelled): the host's turn stops too
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._link.request({"t": "interrupt", "sid": self._sid}), 10)
            answer.cancel()
        self._busy = False

    def _finish(self, value: object) -> TurnFinished:
        if not isinstance(value, dict):
            raise Unavailable("the host's answer to a turn was not one")
        self._update(value)
        final = session_event_from_json(value.get("final"))
        if not isinstance(final, TurnFinished):
            raise Unavailable("the host's answer to a turn had no end")
        if final.conversation_id:
            self._conversation_id = final.conversation_id
        self._emit(final)
        return final

    def _update(self, state: object) -> None:
        if not isinstance(state, dict):
            return
        if isinstance(state.get("alive"), bool):
            self._alive = state["alive"]
        conversation = state.get("conversation_id")
        if isinstance(conversation, str) and conversation:
            self._conversation_id = conversation

    def _take(self, message: Message) -> None:
        kind = message.get("t")
        if kind == "event":
            try:
                event = session_event_from_json(message.get("event"))
            except Invalid:
                return
            if self._turn_events is not None:
                self._turn_events.put_nowait(event)
            self._emit(event)
        elif kind == "lost":
            self._alive = False

    def _emit(self, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def _reattached(self, welcome: Message) -> None:
        sessions = welcome.get("sessions")
        state = sessions.get(self._sid) if isinstance(sessions, dict) else None
        if state is None:
            self._alive = False
        else:
            self._update(state)


LinkFor = Callable[[str], Awaitable[HostLink]]


class RemoteStarter:
    """Starts agents on their host through its link (``link_for(host name)``, connected once)."""

    def __init__(self, link_for: LinkFor, agent_key: Callable[[str], bytes]) -> None:
        self._link_for = link_for
        self._agent_key = agent_key

    async def start_terminal(
        self, agent: Agent, profile: Profile, rows: int, cols: int
    ) -> TerminalSession:
        link, sid = await self._link(agent), uuid.uuid4().hex
        answer = await link.request(
            {"t": "start_terminal", "sid": sid, **self._definition(agent, profile)}
            | {"rows": rows, "cols": cols}
        )
        pid = answer.get("pid") if isinstance(answer, dict) else None
        return RemoteTerminalSession(link, sid, pid if isinstance(pid, int) else 0)

    async def start_structured(
        self, agent: Agent, profile: Profile, resume_conversation_id: str | None
    ) -> AgentSession:
        link, sid = await self._link(agent), uuid.uuid4().hex
        answer = await link.request(
            {"t": "start_structured", "sid": sid, **self._definition(agent, profile)}
            | {"resume": resume_conversation_id}
        )
        return RemoteAgentSession(link, sid, answer if isinstance(answer, dict) else {})

    async def _link(self, agent: Agent) -> HostLink:
        if agent.host is None:
            raise Invalid(f"agent {agent.name} has no host", "host")
        if agent.workspace is Workspace.WORKTREE:
            raise Invalid(
                f"agent {agent.name}: an agent on another host works in its checkout there; "
                "its own worktree is not supported on a remote host",
                "workspace",
            )
        return await self._link_for(agent.host)

    def _definition(self, agent: Agent, profile: Profile) -> Message:
        return {
            "agent_name": agent.name,
            "agent": agent.to_markdown(),
            "profile_name": profile.name,
            "profile": profile.to_json(),
            "agent_key": self._agent_key(agent.id),
        }


class HostRoutingStarter:
    """Each agent to its host: ``Agent.host`` set → ``remote``, else ``local``."""

    def __init__(self, local: SessionStarter, remote: SessionStarter) -> None:
        self._local, self._remote = local, remote

    def _for(self, agent: Agent) -> SessionStarter:
        return self._local if agent.host is None else self._remote

    async def start_terminal(
        self, agent: Agent, profile: Profile, rows: int, cols: int
    ) -> TerminalSession:
        return await self._for(agent).start_terminal(agent, profile, rows, cols)

    async def start_structured(
        self, agent: Agent, profile: Profile, resume_conversation_id: str | None
    ) -> AgentSession:
        return await self._for(agent).start_structured(agent, profile, resume_conversation_id)


def project_agent_key(project_key: Path) -> Callable[[str], bytes]:
    """Each agent's own key, derived from the project secret as local bridges get it."""
    return lambda agent_id: agent_key(ensure_project_key(project_key), agent_id)
