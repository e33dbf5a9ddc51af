"""ChangeLayout: apply a layout operation, persist it, and keep sessions consistent with it.

A session belongs to its agent, not to a cell: a live agent whose host cell no longer shows it
(closed, or re-bound to another agent) runs on in the background, so it can be shown elsewhere
without AGENT_ALREADY_RUNNING pointing at a cell that is gone.
"""

from __future__ import annotations

from collections.abc import Callable

from idea.application.event_bus import EventPublisher
from idea.application.live_sessions import LiveSessions
from idea.application.ports import LayoutStore
from idea.domain.events import LayoutChanged
from idea.domain.layout import Layouts


def change_layout(
    store: LayoutStore,
    sessions: LiveSessions,
    events: EventPublisher,
    operation: Callable[[Layouts], Layouts],
) -> Layouts:
    """Raises what the domain operation raises (``NotFound``, ``Invalid``)."""
    layouts = operation(store.load())
    store.save(layouts)
    shown = {leaf.id: leaf.agent for leaf in layouts.leaves()}
    for live in sessions.live_agents():
        if live.node_id is not None and shown.get(live.node_id) != live.agent_id:
            sessions.rebind(live.agent_id, None)
    events.publish(LayoutChanged())
    return layouts
