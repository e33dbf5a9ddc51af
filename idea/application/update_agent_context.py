"""``agent.context.update``: replace an agent's context; a live session keeps the old one."""

from __future__ import annotations

from idea.application.caller import Caller
from idea.application.event_bus import EventPublisher
from idea.application.live_sessions import LiveSessions
from idea.application.ports import AgentStore
from idea.domain import commands as c
from idea.domain.events import AgentsChanged
from idea.domain.outcome import OrchestratorOutcome


async def update_agent_context(
    command: c.UpdateAgentContext,
    _caller: Caller,
    *,
    agents: AgentStore,
    sessions: LiveSessions,
    events: EventPublisher,
) -> OrchestratorOutcome:
    agent = agents.get(command.name)
    agents.save(agent.with_context(command.context))
    events.publish(AgentsChanged())
    note = (
        "; it is running now: the new context applies when its session restarts"
        if sessions.is_agent_live(agent.id)
        else "; it applies at its next session start"
    )
    return OrchestratorOutcome(f"context of {command.name} updated{note}")
