"""``agent.spawn``: create the agent if needed and start it, in a cell (visible) or in the
background.

A visible spawn follows the launch rule (``launch_agent.py``, the seeds' R0a) and the cell it names
must exist: an unknown ``nodeId`` is ``NOT_FOUND`` before anything is created or started; an agent
live in another cell is ``AGENT_ALREADY_RUNNING`` naming that cell; the same cell re-binds. The
cell is then bound to the agent in the layout (saved, pushed to the UI), as a launch from the UI
binds it.
"""

from __future__ import annotations

from idea.application.caller import Caller
from idea.application.change_layout import change_layout
from idea.application.create_agent import NewAgent, ensure_agent
from idea.application.event_bus import EventPublisher
from idea.application.launch_agent import AgentLauncher, LaunchRequest
from idea.application.live_sessions import LiveSessions
from idea.application.ports import AgentStore, IdGenerator, LayoutStore, ProfileStore
from idea.domain import commands as c
from idea.domain.builtin_profiles import DEFAULT_PROFILE
from idea.domain.errors import Invalid, NotFound
from idea.domain.layout import View
from idea.domain.outcome import OrchestratorOutcome
from idea.domain.profile import Mode


async def spawn_agent(
    command: c.SpawnAgent,
    _caller: Caller,
    *,
    agents: AgentStore,
    profiles: ProfileStore,
    ids: IdGenerator,
    events: EventPublisher,
    launcher: AgentLauncher,
    layouts: LayoutStore,
    sessions: LiveSessions,
) -> OrchestratorOutcome:
    node = command.node_id if command.visible else None
    if node is not None:
        try:
            layouts.load().find_leaf(node)
        except NotFound:
            raise NotFound(f"nodeId: no cell {node!r} in the layout") from None
        except Invalid as exc:  # a split's id
            raise Invalid(f"nodeId: {exc.message}") from None
    new = NewAgent(
        name=command.name, profile=command.profile or DEFAULT_PROFILE, context=command.context or ""
    )
    created = ensure_agent(agents, profiles, ids, events, new)
    result = await launcher(LaunchRequest(command.name, node_id=node))
    if node is not None:
        view: View = "terminal" if result.mode is Mode.TERMINAL else "chat"
        change_layout(layouts, sessions, events, lambda now: now.bind(node, result.agent.id, view))
    where = f"in cell {node}" if node else "in the background"
    verb = "created and started" if created else ("started" if result.started else "shown")
    if not result.started and not created and node is None:
        return OrchestratorOutcome(f"agent {command.name} is already running")
    return OrchestratorOutcome(f"{verb} agent {command.name} {where}")
