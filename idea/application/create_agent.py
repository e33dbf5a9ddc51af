"""CreateAgent: a new agent file with a fresh id, for a profile that exists and a free name."""

from __future__ import annotations

from dataclasses import dataclass

from idea.application.event_bus import EventPublisher
from idea.application.ports import AgentStore, IdGenerator, ProfileStore
from idea.domain.agent import Agent, Workspace, check_host, validate_model
from idea.domain.errors import Conflict, Invalid, NotFound
from idea.domain.events import AgentsChanged
from idea.domain.names import validate_slug
from idea.domain.policy import ANYONE
from idea.domain.profile import Mode


@dataclass(frozen=True, slots=True)
class NewAgent:
    name: str
    profile: str
    context: str = ""
    description: str | None = None
    mode: Mode | None = None
    model: str | None = None
    workspace: Workspace = Workspace.PROJECT
    asks_from: tuple[str, ...] = (ANYONE,)
    permission_mode: str | None = None
    host: str | None = None  # None: this machine (DESIGN.md §16)


def create_agent(
    agents: AgentStore, profiles: ProfileStore, ids: IdGenerator, new: NewAgent
) -> Agent:
    """Raises ``Invalid`` naming its ``field`` (bad name, model, a mode or permission mode the
    profile cannot run), ``NotFound`` (profile), ``Conflict`` (name taken)."""
    try:
        validate_slug(new.name, "agent name")
    except Invalid as exc:
        raise Invalid(exc.message, "name") from None
    profile = profiles.get(new.profile)
    if new.mode is not None and not profile.supports(new.mode):
        raise Invalid(f"profile '{profile.name}' cannot run in {new.mode.value} mode", "mode")
    model = validate_model(new.model)
    profile.check_permission_mode(new.permission_mode)
    host = check_host(new.host, new.workspace)
    if agents.exists(new.name):
        raise Conflict(f"an agent named '{new.name}' already exists")
    agent = Agent(
        id=ids.new_id(),
        name=new.name,
        profile=profile.name,
        mode=new.mode,
        model=model,
        permission_mode=new.permission_mode,
        description=new.description,
        context=new.context,
        workspace=new.workspace,
        asks_from=new.asks_from,
        host=host,
    )
    agents.save(agent)
    return agent


def ensure_agent(
    agents: AgentStore,
    profiles: ProfileStore,
    ids: IdGenerator,
    events: EventPublisher,
    new: NewAgent,
) -> bool:
    """Create the agent if none has its name yet; True if it was created."""
    try:
        agents.get(new.name)
    except NotFound:
        pass
    else:
        return False
    create_agent(agents, profiles, ids, new)
    events.publish(AgentsChanged())
    return True
