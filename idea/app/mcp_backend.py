"""The MCP server's view of a project runtime: every tool call is an orchestrator dispatch."""

from __future__ import annotations

from idea.application.ask_agent import ProgressListener
from idea.application.live_sessions import LiveSessions
from idea.application.orchestrator_service import OrchestratorService
from idea.application.ports import AgentStore, LiveStateStore, ProfileStore
from idea.domain.commands import Command, Source
from idea.domain.errors import NotFound
from idea.domain.json_types import JsonObject
from idea.domain.outcome import OrchestratorOutcome


class RuntimeMcpBackend:
    def __init__(
        self,
        orchestrator: OrchestratorService,
        agents: AgentStore,
        profiles: ProfileStore,
        live_state: LiveStateStore,
        sessions: LiveSessions,
    ) -> None:
        self._orchestrator = orchestrator
        self._agents = agents
        self._profiles = profiles
        self._live_state = live_state
        self._sessions = sessions

    async def dispatch(
        self, command: Command, requester_id: str, progress: ProgressListener | None
    ) -> OrchestratorOutcome:
        return await self._orchestrator.dispatch(command, Source.MCP, requester_id, progress)

    def list_agents(self) -> list[JsonObject]:
        rows = self._live_state.load().rows
        profiles = self._profiles.all()
        live = {a.agent_id: a for a in self._sessions.live_agents()}
        out: list[JsonObject] = []
        for agent in self._agents.all():
            profile = profiles.get(agent.profile)
            running = live.get(agent.id)
            mode = (
                running.mode
                if running
                else agent.mode or (profile.default_mode if profile else None)
            )
            row = rows.get(agent.id)
            out.append(
                {
                    "name": agent.name,
                    "id": agent.id,
                    "profile": agent.profile,
                    "mode": mode.value if mode else None,
                    "description": agent.description,
                    "live": running is not None,
                    "status": row.status.value if row else "idle",
                }
            )
        return out

    def is_agent(self, agent_id: str) -> bool:
        try:
            self._agents.get_by_id(agent_id)
        except NotFound:
            return False
        return True
