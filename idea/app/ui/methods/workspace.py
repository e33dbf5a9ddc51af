"""The UI's methods on a worktree agent's changes: the review, merge and discard go through the
orchestrator (logged, one behaviour with the other doors); the summary shown with the work state
is a read."""

from __future__ import annotations

import asyncio
from typing import Annotated, TypedDict

from idea.app.terminals.streams import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import NameParams
from idea.domain.agent import Workspace
from idea.domain.commands import AgentChanges as AgentChangesCommand
from idea.domain.commands import Command, DiscardAgentChanges, MergeAgent, Source
from idea.domain.errors import Invalid
from idea.domain.json_types import JsonValue
from idea.domain.workspace import MergeResult, WorkspaceChanges


class Discarded(TypedDict):
    base: str  # where the worktree and its branch are back at


class Summary(TypedDict):
    files: int
    ahead: int


async def workspace_changes(
    ctx: UiContext, _: TerminalViews, p: NameParams
) -> Annotated[JsonValue, WorkspaceChanges]:
    return await _review(ctx, AgentChangesCommand(name=p.name))


async def workspace_merge(
    ctx: UiContext, _: TerminalViews, p: NameParams
) -> Annotated[JsonValue, MergeResult]:
    return await _review(ctx, MergeAgent(name=p.name))


async def workspace_discard(
    ctx: UiContext, _: TerminalViews, p: NameParams
) -> Annotated[JsonValue, Discarded]:
    return await _review(ctx, DiscardAgentChanges(name=p.name))


async def workspace_summary(ctx: UiContext, _: TerminalViews, p: NameParams) -> Summary:
    """Shown with the work state: a read, not a command (not logged); counts only."""
    agent = ctx.s.agents.get(p.name)
    if agent.workspace is not Workspace.WORKTREE:
        raise Invalid(f"agent {agent.name} works in the project folder, not a worktree")
    files, ahead = await asyncio.to_thread(ctx.s.workspaces.summary, agent)
    return {"files": files, "ahead": ahead}


async def _review(ctx: UiContext, command: Command) -> JsonValue:
    # Through the orchestrator, as the file door and the MCP tools do: logged, one behaviour.
    outcome = await ctx.rt.orchestrator.dispatch(command, Source.UI)
    return outcome.data
