"""AgentStopper: end an agent's session and kill its whole process tree."""

from __future__ import annotations

from idea.application.caller import Caller
from idea.application.event_bus import EventPublisher
from idea.application.live_sessions import LiveSessions
from idea.application.ports import AgentStore
from idea.domain import commands as c
from idea.domain.events import AgentStopped
from idea.domain.outcome import OrchestratorOutcome


class AgentStopper:
    def __init__(self, agents: AgentStore, sessions: LiveSessions, events: EventPublisher) -> None:
        self._agents = agents
        self._sessions = sessions
        self._events = events

    async def __call__(self, name: str, reason: str = "stopped") -> bool:
        """True if a session was stopped, False if the agent was not running.

        Raises ``NotFound`` for an unknown agent.
        """
        agent = self._agents.get(name)
        return await self.stop_id(agent.id, agent.name, reason)

    async def stop_id(self, agent_id: str, agent_name: str, reason: str) -> bool:
        while (pending := self._sessions.launching(agent_id)) is not None:
            await pending[1]
        terminal = self._sessions.terminal_session(agent_id)
        structured = self._sessions.structured_session(agent_id)
        self._sessions.remove(agent_id)
        if terminal is None and structured is None:
            return False
        if terminal is not None:
            await terminal.stop()
        if structured is not None:
            await structured.shutdown()
        self._events.publish(AgentStopped(agent_id, agent_name, reason))
        return True

    async def stop_all(self, reason: str) -> int:
        """Stop every live session (project close); returns how many were stopped."""
        stopped = 0
        for live in self._sessions.live_agents():
            stopped += await self.stop_id(live.agent_id, live.agent_name, reason)
        return stopped


async def stop_agent(
    command: c.StopAgent, _caller: Caller, *, stopper: AgentStopper
) -> OrchestratorOutcome:
    stopped = await stopper(command.name, reason="stopped by request")
    return OrchestratorOutcome(
        f"agent {command.name} {'stopped' if stopped else 'was not running'}"
    )
