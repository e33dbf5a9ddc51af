"""The UI's methods on agent definitions: list, read (with the file's ``version``), create,
update (absent fields kept), delete; each change publishes ``AgentsChanged``."""

from __future__ import annotations

import asyncio

from idea.app.terminal_stream import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import opt_choice, opt_text, opt_version, text
from idea.app.ui.rows import (
    MODES,
    agent_rows,
)
from idea.application.create_agent import NewAgent, create_agent
from idea.application.edit_agent import AgentChanges, WorktreeChoice, delete_agent, update_agent
from idea.domain.agent import Workspace
from idea.domain.events import AgentsChanged
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.policy import parse_asks_from

WORKSPACES: tuple[Workspace, ...] = tuple(Workspace)
WORKTREE_CHOICES: tuple[WorktreeChoice, ...] = ("keep", "remove")


def agents_list(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    """Every agent without its context (up to 512 Ki characters each): ``agents.get`` has it."""
    return [*agent_rows(ctx.rt, ctx.s.agents.all(), with_context=False)]


def agents_get(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    """The row, its context, and ``version``: its file's, for ``agents.update``."""
    return _versioned_row(ctx, text(p, "name"))


def _versioned_row(ctx: UiContext, name: str) -> JsonObject:
    agent, version = ctx.s.agents.get_versioned(name)
    return {**agent_rows(ctx.rt, [agent])[0], "version": version}


def agents_create(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    new = NewAgent(
        name=text(p, "name"),
        profile=text(p, "profile"),
        context=opt_text(p, "context") or "",
        description=opt_text(p, "description") or None,
        mode=opt_choice(p, "mode", MODES),
        model=opt_text(p, "model"),
        permission_mode=opt_text(p, "permission_mode") or None,
        workspace=opt_choice(p, "workspace", WORKSPACES) or Workspace.PROJECT,
        asks_from=parse_asks_from(p.get("asks_from")),
        host=opt_text(p, "host") or None,
    )
    agent = create_agent(ctx.s.agents, ctx.s.profiles, ctx.s.ids, new)
    ctx.rt.bus.publish(AgentsChanged())
    return agent_rows(ctx.rt, [agent])[0]


def agents_update(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    """Absent fields are kept; ``mode: null`` goes back to the profile's default mode,
    ``model: null`` and ``permission_mode: null`` to the CLI's own. With ``version`` (from
    ``agents.get``), a file changed on disk since is not replaced: ``Conflict``."""
    changes = AgentChanges(
        profile=opt_text(p, "profile"),
        context=(opt_text(p, "context") or "") if "context" in p else None,
        description=opt_text(p, "description") if "description" in p else None,
        clear_description="description" in p and not opt_text(p, "description"),
        mode=opt_choice(p, "mode", MODES),
        keep_mode="mode" not in p,
        new_name=opt_text(p, "new_name"),
        workspace=opt_choice(p, "workspace", WORKSPACES),
        asks_from=parse_asks_from(p["asks_from"]) if "asks_from" in p else None,
        model=opt_text(p, "model"),
        keep_model="model" not in p,
        permission_mode=opt_text(p, "permission_mode") or None,
        keep_permission_mode="permission_mode" not in p,
        host=opt_text(p, "host") or None,
        keep_host="host" not in p,
        version=opt_version(p),
    )
    changed = update_agent(ctx.s.agents, ctx.s.profiles, ctx.rt.sessions, text(p, "name"), changes)
    ctx.rt.bus.publish(AgentsChanged())
    return _versioned_row(ctx, changed.name)


async def agents_delete(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    choice = opt_choice(p, "worktree", WORKTREE_CHOICES)
    # Removing a worktree deletes its files: off the loop.
    agent = await asyncio.to_thread(
        delete_agent,
        ctx.s.agents,
        ctx.rt.sessions,
        text(p, "name"),
        ctx.s.workspaces,
        choice,
    )
    ctx.rt.bus.publish(AgentsChanged())
    return {"deleted": agent.name, "agent_id": agent.id}
