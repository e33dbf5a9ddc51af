"""The UI's methods on sessions and their terminals: launch, stop, move to another cell; attach,
detach, write to and resize a terminal. ``terminal.*`` are synchronous so keystrokes keep order."""

from __future__ import annotations

from idea.app.terminal_stream import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import opt_bool, opt_choice, opt_int, opt_text, text
from idea.app.ui.rows import (
    MODES,
)
from idea.application.launch_agent import LaunchRequest
from idea.application.move_agent import move_agent
from idea.application.session_ports import TerminalSession
from idea.domain.agent import Agent
from idea.domain.errors import Conflict, Invalid, MissingField, NotFound
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.profile import Mode
from idea.domain.text import check_text

TERMINAL_MAX = 10_000  # rows or columns


async def session_launch(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    node_id = opt_text(p, "node_id") or None
    if node_id is not None:
        ctx.rt.layouts().find_leaf(node_id)
    name = text(p, "name")
    mode = opt_choice(p, "mode", MODES)
    # A hibernated agent started in chat picks its conversation up where it left it.
    asleep = ctx.rt.core.hibernation.asleep().get(ctx.s.agents.get(name).id)
    request = LaunchRequest(
        name=name,
        node_id=node_id,
        mode=mode,
        reattach=opt_bool(p, "reattach", default=False),
        rows=opt_int(p, "rows", 24, 1, TERMINAL_MAX),
        cols=opt_int(p, "cols", 80, 1, TERMINAL_MAX),
        resume_conversation_id=(
            asleep.conversation_id if asleep is not None and mode is not Mode.TERMINAL else None
        ),
    )
    result = await ctx.rt.launch(request)
    return {
        "agent_id": result.agent.id,
        "name": result.agent.name,
        "mode": result.mode.value,
        "node_id": result.entry.node_id,
        "started": result.started,
    }


async def session_stop(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    stopped = await ctx.rt.stop_agent(text(p, "name"), reason="stopped from the UI")
    return {"stopped": stopped}


def session_move(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    """A live agent shown elsewhere is shown in this cell instead; its old cell empties."""
    moved = move_agent(
        ctx.s.agents,
        ctx.s.layouts,
        ctx.rt.sessions,
        ctx.rt.bus,
        text(p, "name"),
        text(p, "node_id"),
    )
    return {
        "layouts": moved.layouts.to_json(),
        "agent_id": moved.agent_id,
        "node_id": moved.node_id,
        "from_node_id": moved.from_node_id,
    }


def terminal_attach(ctx: UiContext, views: TerminalViews, p: JsonObject) -> JsonValue:
    # Synchronous on purpose: the reply is queued before any output of the new attach.
    agent = ctx.s.agents.get(text(p, "name"))
    session = ctx.rt.sessions.terminal_session(agent.id)
    if session is None:
        # Ended by itself: its last output and exit code, so the cell can say why.
        epitaph = ctx.rt.epitaphs.of(agent.id)
        if epitaph is None:
            raise Conflict(f"agent {agent.name} is not running in a terminal")
        return {
            "attach_id": None,
            "agent_id": agent.id,
            "scrollback": epitaph.output,
            "exit_code": epitaph.exit_code,
        }
    attach_id, scrollback = views.attach(session)
    return {
        "attach_id": attach_id,
        "agent_id": agent.id,
        "scrollback": scrollback,
        "exit_code": None,
    }


def terminal_detach(ctx: UiContext, views: TerminalViews, p: JsonObject) -> JsonValue:
    attach_id = text(p, "attach_id")
    if not views.detach(attach_id):
        raise NotFound(f"attach_id: no terminal view {attach_id!r} on this connection")
    return {"detached": attach_id}


def terminal_write(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    data = p.get("data")
    if not isinstance(data, str):
        raise MissingField("data") if data is None else Invalid("data: expected a string")
    _terminal(ctx, p)[1].write(check_text(data, "data"))
    return None


def terminal_resize(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    rows = opt_int(p, "rows", None, 1, TERMINAL_MAX)
    cols = opt_int(p, "cols", None, 1, TERMINAL_MAX)
    _terminal(ctx, p)[1].resize(rows, cols)
    return None


def _terminal(ctx: UiContext, p: JsonObject) -> tuple[Agent, TerminalSession]:
    agent = ctx.s.agents.get(text(p, "name"))
    session = ctx.rt.sessions.terminal_session(agent.id)
    if session is None:
        raise Conflict(f"agent {agent.name} is not running in a terminal")
    return agent, session
