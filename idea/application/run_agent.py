"""``agent.run``: create the agent if needed (its task as context), launch it in the background."""

from __future__ import annotations

from idea.application.caller import Caller
from idea.application.create_agent import NewAgent, ensure_agent
from idea.application.event_bus import EventPublisher
from idea.application.launch_agent import AgentLauncher, LaunchRequest
from idea.application.ports import AgentStore, IdGenerator, ProfileStore
from idea.domain import commands as c
from idea.domain.builtin_profiles import DEFAULT_PROFILE
from idea.domain.outcome import OrchestratorOutcome


async def run_agent(
    command: c.LaunchAgent,
    _caller: Caller,
    *,
    agents: AgentStore,
    profiles: ProfileStore,
    ids: IdGenerator,
    events: EventPublisher,
    launcher: AgentLauncher,
) -> OrchestratorOutcome:
    context = command.context or command.task or ""
    new = NewAgent(name=command.name, profile=DEFAULT_PROFILE, context=context)
    created = ensure_agent(agents, profiles, ids, events, new)
    result = await launcher(LaunchRequest(command.name))
    what = "created and launched" if created else "launched"
    if not result.started:
        return OrchestratorOutcome(f"agent {command.name} is already running")
    return OrchestratorOutcome(f"{what} agent {command.name} ({result.mode.value})")
