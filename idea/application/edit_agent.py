"""UpdateAgent and DeleteAgent: edit an agent's definition safely.

A running agent's run dir and live session are known by its name, so it is renamed or deleted
only once stopped (CONFLICT otherwise); its id never changes, so cells bound to it stay bound.
An edit that names the version of the file it was made on never replaces a file changed since
(``Conflict`` carrying both versions, DESIGN.md §18); one without a version replaces it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from idea.application.live_sessions import LiveSessions
from idea.application.ports import AgentStore, ProfileStore, Workspaces
from idea.domain.agent import Agent, Workspace, check_host, validate_model
from idea.domain.errors import Conflict, Invalid, MissingField
from idea.domain.names import validate_slug
from idea.domain.profile import Mode


@dataclass(frozen=True, slots=True)
class AgentChanges:
    """What to change; ``None`` fields are kept (``mode``, ``model`` and ``permission_mode``
    use their ``keep_`` flag for that: None there means the CLI's default)."""

    profile: str | None = None
    context: str | None = None
    description: str | None = None
    clear_description: bool = False
    mode: Mode | None = None
    keep_mode: bool = True
    new_name: str | None = None
    workspace: Workspace | None = None
    asks_from: tuple[str, ...] | None = None
    model: str | None = None
    keep_model: bool = True
    permission_mode: str | None = None
    keep_permission_mode: bool = True
    host: str | None = None  # None with keep_host False: this machine
    keep_host: bool = True
    version: str | None = None  # the file's version the edit was made on; None: replace it


def update_agent(
    agents: AgentStore,
    profiles: ProfileStore,
    sessions: LiveSessions,
    name: str,
    changes: AgentChanges,
) -> Agent:
    """Raises ``NotFound`` (agent, profile), ``Invalid`` naming its ``field`` (name, mode, model,
    permission mode: one the new profile lacks too), ``Conflict`` (renaming a running agent, or
    to a taken name; with ``changed``: the file is not at ``changes.version`` any more)."""
    agent = agents.get(name)
    profile_name = validate_slug(changes.profile, "profile") if changes.profile else agent.profile
    profile = profiles.get(profile_name)
    mode = agent.mode if changes.keep_mode else changes.mode
    if mode is not None and not profile.supports(mode):
        raise Invalid(f"mode: profile '{profile.name}' cannot run in {mode.value} mode", "mode")
    model = agent.model if changes.keep_model else validate_model(changes.model)
    permission_mode = (
        agent.permission_mode if changes.keep_permission_mode else changes.permission_mode
    )
    profile.check_permission_mode(permission_mode)
    description = (
        None
        if changes.clear_description
        else changes.description
        if changes.description is not None
        else agent.description
    )
    workspace = changes.workspace or agent.workspace
    if workspace is not agent.workspace:
        refuse_live(sessions, agent, "moved to another workspace")
    host = agent.host if changes.keep_host else changes.host
    if host != agent.host:
        refuse_live(sessions, agent, "moved to another host")
    host = check_host(host, workspace)
    changed = replace(
        agent,
        profile=profile.name,
        context=changes.context if changes.context is not None else agent.context,
        description=description,
        mode=mode,
        model=model,
        permission_mode=permission_mode,
        workspace=workspace,
        asks_from=changes.asks_from if changes.asks_from is not None else agent.asks_from,
        host=host,
    )
    if changes.new_name is not None and changes.new_name != agent.name:
        try:
            validate_slug(changes.new_name, "new_name")
        except Invalid as exc:
            raise Invalid(exc.message, "new_name") from None
        refuse_live(sessions, agent, "renamed")
        if agent.workspace is Workspace.WORKTREE:
            raise Conflict(
                f"agent {agent.name} works in its own worktree (branch idea/{agent.name}): "
                "it keeps its name"
            )
        changed = replace(changed, name=changes.new_name)
        try:
            agents.rename(agent.name, changed.name, changes.version)
        except Conflict as exc:
            if exc.changed is None:
                raise
            mine = replace(exc.changed, yours=changed.to_markdown())
            raise Conflict.changed_on_disk(mine) from None
        agents.save(changed)  # the file the rename just wrote
        return changed
    agents.save(changed, changes.version)
    return changed


WorktreeChoice = Literal["keep", "remove"]


def delete_agent(
    agents: AgentStore,
    sessions: LiveSessions,
    name: str,
    workspaces: Workspaces | None = None,
    worktree: WorktreeChoice | None = None,
) -> Agent:
    """Raises ``NotFound``, ``Conflict`` (the agent is running), ``MissingField`` (``worktree``:
    an agent with a worktree of its own is deleted only once the user said what becomes of it
    and of its branch). Blocking (git) when the worktree is removed."""
    agent = agents.get(name)
    refuse_live(sessions, agent, "deleted")
    has_tree = (
        workspaces is not None
        and agent.workspace is Workspace.WORKTREE
        and workspaces.exists(agent)
    )
    if has_tree and worktree is None:
        raise MissingField(
            "worktree",
            f"worktree: keep or remove agent {agent.name}'s worktree and its branch "
            f"idea/{agent.name}?",
        )
    if has_tree and worktree == "remove" and workspaces is not None:
        workspaces.remove(agent)
    agents.delete(agent.name)
    return agent


def refuse_live(sessions: LiveSessions, agent: Agent, what: str) -> None:
    if sessions.is_agent_live(agent.id) or sessions.launching(agent.id) is not None:
        raise Conflict(f"agent {agent.name} is running: stop it before it can be {what}")
