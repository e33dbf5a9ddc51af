"""The UI's methods on agent definitions: list, read (with the file's ``version``), create,
update (absent fields kept), delete; each change publishes ``AgentsChanged``."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TypedDict

from idea.app.terminals.streams import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import NameParams, NoParams, custom, opt_version, present
from idea.app.ui.rows import AgentDetail, AgentRow, AgentWithContext, agent_rows, row_with_context
from idea.application.create_agent import NewAgent, create_agent
from idea.application.edit_agent import AgentChanges, WorktreeChoice, delete_agent, update_agent
from idea.domain.agent import Workspace
from idea.domain.events import AgentsChanged
from idea.domain.json_types import JsonObject
from idea.domain.policy import parse_asks_from
from idea.domain.profile import Mode


def _asks_from(p: JsonObject, key: str) -> tuple[str, ...]:
    return parse_asks_from(p.get(key))


def _asks_from_if_sent(p: JsonObject, key: str) -> tuple[str, ...] | None:
    return parse_asks_from(p[key]) if key in p else None


def _version(p: JsonObject, _: str) -> str | None:
    return opt_version(p)


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateParams:
    name: str
    profile: str
    context: str | None = None
    description: str | None = None
    mode: Mode | None = None
    model: str | None = None
    permission_mode: str | None = None
    workspace: Workspace = Workspace.PROJECT
    # ["*"] (the default): any agent may ask this one; else these agents' names.
    asks_from: tuple[str, ...] = custom(_asks_from, "string[]", required=False)
    host: str | None = None  # a name of hosts.list; None: this machine


@dataclass(frozen=True, slots=True, kw_only=True)
class UpdateParams:
    """Absent fields are kept (``present`` says which were sent); in this order they are read."""

    profile: str | None = None
    context: str | None = None
    description: str | None = None
    mode: Mode | None = None
    new_name: str | None = None
    workspace: Workspace | None = None
    asks_from: tuple[str, ...] | None = custom(_asks_from_if_sent, "string[]", required=False)
    model: str | None = None
    permission_mode: str | None = None
    host: str | None = None
    version: str | None = custom(_version, "string", required=False)
    name: str
    present: frozenset[str] = present()


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteParams:
    worktree: WorktreeChoice | None = None  # required when the agent has a worktree of its own
    name: str


class Deleted(TypedDict):
    deleted: str  # its name
    agent_id: str


def agents_list(ctx: UiContext, _: TerminalViews, __: NoParams) -> list[AgentRow]:
    """Every agent without its context (up to 512 Ki characters each): ``agents.get`` has it."""
    return agent_rows(ctx.rt, ctx.s.agents.all())


def agents_get(ctx: UiContext, _: TerminalViews, p: NameParams) -> AgentDetail:
    """The row, its context, and ``version``: its file's, for ``agents.update``."""
    return _versioned_row(ctx, p.name)


def _versioned_row(ctx: UiContext, name: str) -> AgentDetail:
    agent, version = ctx.s.agents.get_versioned(name)
    return {**row_with_context(agent_rows(ctx.rt, [agent])[0], agent), "version": version}


def agents_create(ctx: UiContext, _: TerminalViews, p: CreateParams) -> AgentWithContext:
    new = NewAgent(
        name=p.name,
        profile=p.profile,
        context=p.context or "",
        description=p.description or None,
        mode=p.mode,
        model=p.model,
        permission_mode=p.permission_mode or None,
        workspace=p.workspace,
        asks_from=p.asks_from,
        host=p.host or None,
    )
    agent = create_agent(ctx.s.agents, ctx.s.profiles, ctx.s.ids, new)
    ctx.rt.bus.publish(AgentsChanged())
    return row_with_context(agent_rows(ctx.rt, [agent])[0], agent)


def agents_update(ctx: UiContext, _: TerminalViews, p: UpdateParams) -> AgentDetail:
    """Absent fields are kept; ``mode: null`` goes back to the profile's default mode,
    ``model: null`` and ``permission_mode: null`` to the CLI's own. With ``version`` (from
    ``agents.get``), a file changed on disk since is not replaced: ``Conflict``."""
    sent = p.present
    changes = AgentChanges(
        profile=p.profile,
        context=(p.context or "") if "context" in sent else None,
        description=p.description,
        clear_description="description" in sent and not p.description,
        mode=p.mode,
        keep_mode="mode" not in sent,
        new_name=p.new_name,
        workspace=p.workspace,
        asks_from=p.asks_from,
        model=p.model,
        keep_model="model" not in sent,
        permission_mode=p.permission_mode or None,
        keep_permission_mode="permission_mode" not in sent,
        host=p.host or None,
        keep_host="host" not in sent,
        version=p.version,
    )
    changed = update_agent(ctx.s.agents, ctx.s.profiles, ctx.rt.sessions, p.name, changes)
    ctx.rt.bus.publish(AgentsChanged())
    return _versioned_row(ctx, changed.name)


async def agents_delete(ctx: UiContext, _: TerminalViews, p: DeleteParams) -> Deleted:
    # Removing a worktree deletes its files: off the loop.
    agent = await asyncio.to_thread(
        delete_agent, ctx.s.agents, ctx.rt.sessions, p.name, ctx.s.workspaces, p.worktree
    )
    ctx.rt.bus.publish(AgentsChanged())
    return {"deleted": agent.name, "agent_id": agent.id}
