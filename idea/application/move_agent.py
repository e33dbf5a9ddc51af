"""MoveAgent: show a live agent in another cell; the cell that showed it becomes empty.

The session belongs to the agent, not to a cell (DESIGN.md §1): moving re-binds its view and
never restarts it. The layout is saved and ``LayoutChanged`` published as for every layout change
(``change_layout``); ``AgentsChanged`` says the agent's cell changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from idea.application.change_layout import change_layout
from idea.application.event_bus import EventPublisher
from idea.application.live_sessions import LiveSessions
from idea.application.ports import AgentStore, LayoutStore
from idea.domain.errors import Conflict
from idea.domain.events import AgentsChanged
from idea.domain.layout import Layouts, View


@dataclass(frozen=True, slots=True)
class MovedAgent:
    layouts: Layouts
    agent_id: str
    node_id: str
    from_node_id: str | None  # the cell emptied (None: the agent ran in the background)


def move_agent(
    agents: AgentStore,
    store: LayoutStore,
    sessions: LiveSessions,
    events: EventPublisher,
    name: str,
    leaf_id: str,
) -> MovedAgent:
    """Raises ``NotFound`` (agent, cell), ``Conflict`` (the agent is not running)."""
    agent = agents.get(name)
    entry = sessions.entry(agent.id)
    if entry is None:
        raise Conflict(f"agent {agent.name} is not running: start it in this cell instead")
    view: View = "terminal" if sessions.terminal_session(agent.id) is not None else "chat"
    origin = entry.node_id if entry.node_id != leaf_id else None

    def operation(layouts: Layouts) -> Layouts:
        layouts.find_leaf(leaf_id)  # NotFound before anything changes
        if origin is not None and origin in {leaf.id for leaf in layouts.leaves()}:
            layouts = layouts.bind(origin, None, layouts.find_leaf(origin).view)
        return layouts.bind(leaf_id, agent.id, view)

    layouts = change_layout(store, sessions, events, operation)
    sessions.rebind(agent.id, leaf_id)
    events.publish(AgentsChanged())
    return MovedAgent(layouts, agent.id, leaf_id, origin)
