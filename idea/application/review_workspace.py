"""``agent.changes``, ``agent.merge``, ``agent.discard``: review what an agent did in its own
worktree, bring it into the project, or drop it (DESIGN.md §14).

A merge or a discard is a git write: the repository's hooks run, so a restricted project refuses
it with ``UNTRUSTED`` as it refuses a launch (DESIGN.md §18); reading the changes runs none of the
repository's code and is answered in any project.

The merge commit names the agent and the ask that produced its work (the last task it was given,
from the delegation log), so the project's history says who did what and why.
"""

from __future__ import annotations

import asyncio

from idea.application.caller import Caller
from idea.application.event_bus import EventPublisher
from idea.application.ports import AgentStore, DelegationLog, ProjectTrust, Workspaces
from idea.domain import commands as c
from idea.domain.events import AgentsChanged
from idea.domain.json_types import JsonObject
from idea.domain.outcome import OrchestratorOutcome

# How far back the delegation log is searched for the ask behind an agent's work.
ASK_LOOKBACK = 500
ASK_IN_MESSAGE_MAX = 200


async def agent_changes(
    command: c.AgentChanges, _caller: Caller, *, agents: AgentStore, workspaces: Workspaces
) -> OrchestratorOutcome:
    agent = agents.get(command.name)
    changes = await asyncio.to_thread(workspaces.changes, agent)
    files = len(changes.files)
    return OrchestratorOutcome(
        f"agent {agent.name} changed {files} file(s) on {changes.branch}, "
        f"{changes.ahead} commit(s) ahead",
        data=changes.to_json(),
    )


async def merge_agent(
    command: c.MergeAgent,
    _caller: Caller,
    *,
    agents: AgentStore,
    workspaces: Workspaces,
    delegations: DelegationLog,
    events: EventPublisher,
    trust: ProjectTrust,
) -> OrchestratorOutcome:
    agent = agents.get(command.name)
    trust.require(f"merge {agent.name}'s work")
    records = await asyncio.to_thread(delegations.recent, ASK_LOOKBACK)
    message = merge_message(agent.name, last_ask(records, agent.name))
    result = await asyncio.to_thread(workspaces.merge, agent, message)
    events.publish(AgentsChanged())
    return OrchestratorOutcome(
        f"merged {result.branch} into {result.into}: {result.files} file(s)", data=result.to_json()
    )


async def discard_agent_changes(
    command: c.DiscardAgentChanges,
    _caller: Caller,
    *,
    agents: AgentStore,
    workspaces: Workspaces,
    events: EventPublisher,
    trust: ProjectTrust,
) -> OrchestratorOutcome:
    agent = agents.get(command.name)
    trust.require(f"discard {agent.name}'s work")
    base = await asyncio.to_thread(workspaces.discard, agent)
    events.publish(AgentsChanged())
    return OrchestratorOutcome(
        f"agent {agent.name}'s worktree is back at {base[:12]}", data={"base": base}
    )


def last_ask(records: list[JsonObject], agent_name: str) -> str | None:
    """The last task given to ``agent_name`` that it answered, newest first."""
    for record in reversed(records):
        prompt = record.get("prompt")
        if (
            record.get("action") == c.AskAgent.ACTION
            and record.get("target") == agent_name
            and record.get("ok") is True
            and isinstance(prompt, str)
        ):
            return prompt
    return None


def merge_message(agent_name: str, ask: str | None) -> str:
    if not ask:
        return f"{agent_name}: work done in IdeA"
    line = " ".join(ask.split())
    if len(line) > ASK_IN_MESSAGE_MAX:
        line = line[: ASK_IN_MESSAGE_MAX - 1] + "…"
    return f"{agent_name}: {line}\n\nWork of agent {agent_name}, asked: {ask}"
