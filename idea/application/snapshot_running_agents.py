"""SnapshotRunningAgents (at close) and the resume plan (at open): one session per agent survives.

At close, each cell records whether its agent was running THERE (its host cell) and the
conversation to resume; at the next open, after reconciliation, the host cells say which agents
to start again, each once, structured ones resumed by conversation id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from idea.application.live_sessions import LiveSessions
from idea.application.ports import LayoutStore
from idea.domain.layout import Layouts


def snapshot_running_agents(
    store: LayoutStore,
    sessions: LiveSessions,
    asleep: Mapping[str, tuple[str | None, str | None]] | None = None,
) -> Layouts:
    """Flag, in the saved layouts, the cells whose agent is running there; saves if changed.

    ``asleep``: hibernated agents, agent id -> (cell, conversation): they count as running in
    their cell, so the next open resumes their conversation."""
    before = store.load()
    layouts = before
    asleep = asleep or {}
    for leaf in before.leaves():
        if leaf.agent is None:
            continue
        running_here = sessions.host_node(leaf.agent) == leaf.id
        structured = sessions.structured_session(leaf.agent) if running_here else None
        conversation = structured.conversation_id if structured is not None else None
        sleeping = asleep.get(leaf.agent)
        if sleeping is not None and sleeping[0] == leaf.id:
            running_here, conversation = True, sleeping[1]
        if running_here and conversation is None:
            conversation = leaf.conversation_id  # a terminal keeps what it had
        if (leaf.agent_was_running, leaf.conversation_id) != (running_here, conversation):
            layouts = layouts.set_running(leaf.id, running_here, conversation)
    if layouts != before:
        store.save(layouts)
    return layouts


@dataclass(frozen=True, slots=True)
class ResumeItem:
    agent_id: str
    node_id: str
    structured: bool
    conversation_id: str | None


def plan_resume(layouts: Layouts) -> list[ResumeItem]:
    """The sessions to start at open: one per agent, from the cell flagged as its host."""
    plan: list[ResumeItem] = []
    seen: set[str] = set()
    for leaf in layouts.leaves():
        if leaf.agent is None or not leaf.agent_was_running or leaf.agent in seen:
            continue
        seen.add(leaf.agent)
        plan.append(ResumeItem(leaf.agent, leaf.id, leaf.view == "chat", leaf.conversation_id))
    return plan
