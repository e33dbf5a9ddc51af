"""The MCP server's view of a project runtime: every tool call is an orchestrator dispatch."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass

from idea.application.caller import ProgressListener
from idea.application.live_sessions import LiveSessions
from idea.application.orchestrator_service import OrchestratorService
from idea.application.ports import AgentStore, ProfileStore, WorkStateStore
from idea.domain.agent import Agent
from idea.domain.commands import Command, Source
from idea.domain.errors import NotFound
from idea.domain.json_types import JsonObject
from idea.domain.outcome import OrchestratorOutcome
from idea.domain.profile import Mode, Profile
from idea.domain.work_state import WorkRow


@dataclass(frozen=True, slots=True)
class _Listed:
    """What the last agent list was made of, and the list."""

    rows: Mapping[str, WorkRow]
    live: dict[str, Mode]
    agents: list[Agent]
    profiles: list[Profile | None]
    listed: list[JsonObject]


def _same(a: list[Agent] | list[Profile | None], b: list[Agent] | list[Profile | None]) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))


class RuntimeMcpBackend:
    def __init__(
        self,
        orchestrator: OrchestratorService,
        agents: AgentStore,
        profiles: ProfileStore,
        work_state: WorkStateStore,
        sessions: LiveSessions,
    ) -> None:
        self._orchestrator = orchestrator
        self._agents = agents
        self._profiles = profiles
        self._work_state = work_state
        self._sessions = sessions
        self._last: _Listed | None = None

    async def dispatch(
        self, command: Command, requester_id: str, progress: ProgressListener | None
    ) -> OrchestratorOutcome:
        return await self._orchestrator.dispatch(command, Source.MCP, requester_id, progress)

    def list_agents(self) -> list[JsonObject]:
        """The same list object again while nothing it shows changed: the stores hand out the
        same immutable objects until their files change, so identity says it all."""
        rows = self._work_state.load().rows
        profiles = self._profiles.all()
        live = {a.agent_id: a.mode for a in self._sessions.live_agents()}
        agents = self._agents.all()
        used = [profiles.get(agent.profile) for agent in agents]
        last = self._last
        if (
            last is not None
            and (last.rows is rows or last.rows == rows)
            and last.live == live
            and _same(last.agents, agents)
            and _same(last.profiles, used)
        ):
            return last.listed
        out: list[JsonObject] = []
        for agent, profile in zip(agents, used, strict=True):
            mode = live.get(agent.id) or agent.mode or (profile.default_mode if profile else None)
            row = rows.get(agent.id)
            out.append(
                {
                    "name": agent.name,
                    "id": agent.id,
                    "profile": agent.profile,
                    "mode": mode.value if mode else None,
                    "description": agent.description,
                    "live": agent.id in live,
                    "status": row.status.value if row else "idle",
                }
            )
        self._last = _Listed(rows, live, agents, used, out)
        return out

    def is_agent(self, agent_id: str) -> bool:
        try:
            self._agents.get_by_id(agent_id)
        except NotFound:
            return False
        return True
