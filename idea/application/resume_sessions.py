"""ResumeSessions: at open, after reconciliation, start again the agents that were running.

One launch per agent (the plan guarantees it); a failure is reported for that agent and never
stops the others or the opening of the project.
"""

from __future__ import annotations

from dataclasses import dataclass

from idea.application.launch_agent import AgentLauncher, LaunchRequest, LaunchResult
from idea.application.ports import AgentStore
from idea.application.snapshot_running_agents import plan_resume
from idea.domain.errors import IdeaError
from idea.domain.layout import Layouts
from idea.domain.profile import Mode


@dataclass(frozen=True, slots=True)
class ResumeFailure:
    agent_id: str
    node_id: str
    error: IdeaError


@dataclass(frozen=True, slots=True)
class ResumeReport:
    resumed: list[LaunchResult]
    failed: list[ResumeFailure]


async def resume_sessions(
    layouts: Layouts, agents: AgentStore, launch: AgentLauncher
) -> ResumeReport:
    resumed: list[LaunchResult] = []
    failed: list[ResumeFailure] = []
    for item in plan_resume(layouts):
        try:
            agent = agents.get_by_id(item.agent_id)
            result = await launch(
                LaunchRequest(
                    name=agent.name,
                    node_id=item.node_id,
                    mode=Mode.STRUCTURED if item.structured else Mode.TERMINAL,
                    reattach=True,
                    resume_conversation_id=item.conversation_id if item.structured else None,
                )
            )
        except IdeaError as exc:
            failed.append(ResumeFailure(item.agent_id, item.node_id, exc))
            continue
        resumed.append(result)
    return ResumeReport(resumed, failed)
