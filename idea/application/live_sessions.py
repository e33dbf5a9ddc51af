"""Who is running: the terminal and structured registries, and ``LiveSessions`` over both.

``LiveSessions`` is the only source of liveness. Invariant: at most one live session per agent
across BOTH registries; an agent whose launch is in progress already counts as taken, so two
concurrent launches can never both start a process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from idea.application.session_ports import AgentSession, TerminalSession
from idea.domain.errors import Conflict
from idea.domain.profile import Mode

S = TypeVar("S", TerminalSession, AgentSession)


@dataclass(frozen=True, slots=True)
class SessionEntry(Generic[S]):
    agent_id: str
    agent_name: str
    session: S
    node_id: str | None  # the host cell; None = running in the background
    started_at_ms: int


TerminalEntry = SessionEntry[TerminalSession]
StructuredEntry = SessionEntry[AgentSession]
LiveEntry = TerminalEntry | StructuredEntry


@dataclass(frozen=True, slots=True)
class LiveAgent:
    agent_id: str
    agent_name: str
    mode: Mode
    node_id: str | None


class _Registry(Generic[S]):
    def __init__(self) -> None:
        self._entries: dict[str, SessionEntry[S]] = {}

    def running(self, entry: SessionEntry[S]) -> bool:
        raise NotImplementedError

    def get(self, agent_id: str) -> SessionEntry[S] | None:
        """The agent's entry if its session is still running."""
        entry = self._entries.get(agent_id)
        return entry if entry is not None and self.running(entry) else None

    def entries(self) -> list[SessionEntry[S]]:
        return [e for e in self._entries.values() if self.running(e)]

    def _put(self, entry: SessionEntry[S]) -> None:
        self._entries[entry.agent_id] = entry

    def _pop(self, agent_id: str) -> SessionEntry[S] | None:
        return self._entries.pop(agent_id, None)


class TerminalSessions(_Registry[TerminalSession]):
    """Agents running in a pseudo-terminal; an exited process is not running."""

    def running(self, entry: TerminalEntry) -> bool:
        return entry.session.exit_code is None

    def registered(self, agent_id: str) -> TerminalSession | None:
        """The agent's terminal, running or ended on its own (a stop unregisters it first)."""
        entry = self._entries.get(agent_id)
        return entry.session if entry is not None else None


class StructuredSessions(_Registry[AgentSession]):
    """Agents driven through their JSON protocol; a shut-down session is not running."""

    def running(self, entry: StructuredEntry) -> bool:
        return entry.session.alive


class LiveSessions:
    def __init__(
        self,
        terminals: TerminalSessions | None = None,
        structured: StructuredSessions | None = None,
    ) -> None:
        self.terminals = terminals or TerminalSessions()
        self.structured = structured or StructuredSessions()
        self._launching: dict[str, tuple[str | None, asyncio.Future[None]]] = {}

    # --- queries ---------------------------------------------------------------------------------

    def entry(self, agent_id: str) -> LiveEntry | None:
        """The agent's running session, if any (an ended one is not returned)."""
        return self.terminals.get(agent_id) or self.structured.get(agent_id)

    def is_agent_live(self, agent_id: str) -> bool:
        return self.entry(agent_id) is not None

    def host_node(self, agent_id: str) -> str | None:
        entry = self.entry(agent_id)
        return entry.node_id if entry else None

    def structured_session(self, agent_id: str) -> AgentSession | None:
        entry = self.structured.get(agent_id)
        return entry.session if entry is not None else None

    def terminal_session(self, agent_id: str) -> TerminalSession | None:
        entry = self.terminals.get(agent_id)
        return entry.session if entry is not None else None

    def live_agents(self) -> list[LiveAgent]:
        return sorted(self._live(), key=lambda a: a.agent_name)

    def _live(self) -> Iterator[LiveAgent]:
        for t in self.terminals.entries():
            yield LiveAgent(t.agent_id, t.agent_name, Mode.TERMINAL, t.node_id)
        for s in self.structured.entries():
            yield LiveAgent(s.agent_id, s.agent_name, Mode.STRUCTURED, s.node_id)

    def launching(self, agent_id: str) -> tuple[str | None, asyncio.Future[None]] | None:
        """The node and completion of a launch in progress for the agent, if any."""
        return self._launching.get(agent_id)

    # --- changes ---------------------------------------------------------------------------------

    def begin_launch(self, agent_id: str, node_id: str | None) -> asyncio.Future[None]:
        """Reserve the agent for a launch; raises ``Conflict`` if it is live or being launched."""
        if self.is_agent_live(agent_id) or agent_id in self._launching:
            raise Conflict(f"agent {agent_id} is already running or starting")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._launching[agent_id] = (node_id, done)
        return done

    def end_launch(self, agent_id: str) -> None:
        pending = self._launching.pop(agent_id, None)
        if pending is not None and not pending[1].done():
            pending[1].set_result(None)

    def add_terminal(self, entry: TerminalEntry) -> None:
        self._check_free(entry.agent_id)
        self.terminals._put(entry)

    def add_structured(self, entry: StructuredEntry) -> None:
        self._check_free(entry.agent_id)
        self.structured._put(entry)

    def remove(self, agent_id: str) -> LiveEntry | None:
        """Forget the agent's session (running or not); returns what was registered."""
        terminal = self.terminals._pop(agent_id)
        structured = self.structured._pop(agent_id)
        return terminal or structured

    def rebind(self, agent_id: str, node_id: str | None) -> LiveEntry:
        """Show the running session in another cell (or none). Raises ``Conflict`` if not live."""
        if (t := self.terminals.get(agent_id)) is not None:
            moved_t = replace(t, node_id=node_id)
            self.terminals._put(moved_t)
            return moved_t
        if (s := self.structured.get(agent_id)) is not None:
            moved_s = replace(s, node_id=node_id)
            self.structured._put(moved_s)
            return moved_s
        raise Conflict(f"agent {agent_id} is not running")

    def _check_free(self, agent_id: str) -> None:
        if self.is_agent_live(agent_id):
            raise Conflict(f"agent {agent_id} already has a live session")
        # An ended session may still be registered: the new one replaces it.
        self.remove(agent_id)
