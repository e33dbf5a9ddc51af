"""The UI's methods on a worktree agent's changes: the review, merge and discard go through the
orchestrator (logged, one behaviour with the other doors); the board's summary is a read."""

from __future__ import annotations

import asyncio

from idea.app.terminal_stream import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import text
from idea.domain.agent import Workspace
from idea.domain.commands import AgentChanges as AgentChangesCommand
from idea.domain.commands import Command, DiscardAgentChanges, MergeAgent, Source
from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue


async def workspace_changes(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    return await _review(ctx, AgentChangesCommand(name=text(p, "name")))


async def workspace_merge(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    return await _review(ctx, MergeAgent(name=text(p, "name")))


async def workspace_discard(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    return await _review(ctx, DiscardAgentChanges(name=text(p, "name")))


async def workspace_summary(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    """For the board: a read, not a command (not logged); counts only."""
    agent = ctx.s.agents.get(text(p, "name"))
    if agent.workspace is not Workspace.WORKTREE:
        raise Invalid(f"agent {agent.name} works in the project folder, not a worktree")
    files, ahead = await asyncio.to_thread(ctx.s.workspaces.summary, agent)
    return {"files": files, "ahead": ahead}


async def _review(ctx: UiContext, command: Command) -> JsonValue:
    # Through the orchestrator, as the file door and the MCP tools do: logged, one behaviour.
    outcome = await ctx.rt.orchestrator.dispatch(command, Source.UI)
    return outcome.data
