"""``agent.spawn``: create the agent if needed and start it, in a cell (visible) or in the
background."""

from __future__ import annotations

from idea.application.caller import Caller
from idea.application.create_agent import DEFAULT_PROFILE, NewAgent, ensure_agent
from idea.application.event_bus import EventPublisher
from idea.application.launch_agent import AgentLauncher, LaunchRequest
from idea.application.ports import AgentStore, IdGenerator, ProfileStore
from idea.domain import commands as c
from idea.domain.outcome import OrchestratorOutcome


async def spawn_agent(
    command: c.SpawnAgent,
    _caller: Caller,
    *,
    agents: AgentStore,
    profiles: ProfileStore,
    ids: IdGenerator,
    events: EventPublisher,
    launcher: AgentLauncher,
) -> OrchestratorOutcome:
    new = NewAgent(
        name=command.name, profile=command.profile or DEFAULT_PROFILE, context=command.context or ""
    )
    created = ensure_agent(agents, profiles, ids, events, new)
    node = command.node_id if command.visible else None
    result = await launcher(LaunchRequest(command.name, node_id=node))
    where = f"in cell {node}" if node else "in the background"
    verb = "created and started" if created else ("started" if result.started else "shown")
    if not result.started and not created and node is None:
        return OrchestratorOutcome(f"agent {command.name} is already running")
    return OrchestratorOutcome(f"{verb} agent {command.name} {where}")
