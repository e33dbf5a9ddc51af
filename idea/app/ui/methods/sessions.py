"""The UI's methods on sessions and their terminals: launch, stop, move to another cell; attach,
detach, write to and resize a terminal, say how its view shows it (live, glance, hidden),
acknowledge what the view parsed, ask for its history. ``terminal.*`` are synchronous so
keystrokes keep order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from idea.app.terminals.outbox import View
from idea.app.terminals.streams import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import NameParams, bounded, custom
from idea.application.launch_agent import LaunchRequest
from idea.application.move_agent import move_agent
from idea.application.session_ports import TerminalSession
from idea.domain.agent import Agent
from idea.domain.errors import Conflict, Invalid, MissingField, NotFound
from idea.domain.json_types import JsonObject
from idea.domain.layout import LayoutsJson
from idea.domain.profile import Mode
from idea.domain.text import check_text

TERMINAL_MAX = 10_000  # rows or columns


@dataclass(frozen=True, slots=True, kw_only=True)
class LaunchParams:
    node_id: str | None = None  # the cell that shows it; None: in the background
    name: str
    mode: Mode | None = None
    reattach: bool = False  # this cell knows the agent was running here (tab switch, reload)
    rows: int = bounded(1, TERMINAL_MAX, default=24)
    cols: int = bounded(1, TERMINAL_MAX, default=80)


class Launched(TypedDict):
    agent_id: str
    name: str
    mode: Mode
    node_id: str | None
    started: bool  # False: the live session was returned or re-bound, no respawn


class Stopped(TypedDict):
    stopped: bool  # False: it was not running


@dataclass(frozen=True, slots=True)
class MoveParams:
    name: str
    node_id: str


class Moved(TypedDict):
    layouts: LayoutsJson
    agent_id: str
    node_id: str
    from_node_id: str | None  # the cell emptied


@dataclass(frozen=True, slots=True)
class AttachParams:
    name: str
    view: View | None = None  # how the view shows it; none said: its whole byte stream


class Attached(TypedDict):
    """``attach_id`` None: the terminal ended by itself; ``scrollback`` is its last output.
    ``screen``: the text is only the current screen (a view attached hidden); the history
    stays on the server (``terminal.history``)."""

    attach_id: str | None
    agent_id: str
    scrollback: str
    screen: bool
    exit_code: int | None


@dataclass(frozen=True, slots=True)
class DetachParams:
    attach_id: str


class Detached(TypedDict):
    detached: str


PARSED_MAX = 2**53 - 1  # bytes: what a JavaScript number holds exactly


@dataclass(frozen=True, slots=True)
class ViewParams:
    attach_id: str
    view: View
    parsed: int = bounded(0, PARSED_MAX)  # bytes of frame text parsed since the attach


@dataclass(frozen=True, slots=True)
class AckParams:
    attach_id: str
    parsed: int = bounded(0, PARSED_MAX)  # bytes of frame text parsed since the attach


def _data(p: JsonObject, key: str) -> str:
    data = p.get(key)
    if not isinstance(data, str):
        raise MissingField(key) if data is None else Invalid(f"{key}: expected a string")
    return data  # checked for text once the terminal is found, as ever


@dataclass(frozen=True, slots=True, kw_only=True)
class WriteParams:
    data: str = custom(_data, "string", required=True)  # keystrokes, as xterm.js gives them
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ResizeParams:
    rows: int = bounded(1, TERMINAL_MAX)
    cols: int = bounded(1, TERMINAL_MAX)
    name: str


async def session_launch(ctx: UiContext, _: TerminalViews, p: LaunchParams) -> Launched:
    node_id = p.node_id or None
    if node_id is not None:
        ctx.rt.layouts().find_leaf(node_id)
    # A hibernated agent started in chat picks its conversation up where it left it.
    asleep = ctx.rt.core.hibernation.asleep().get(ctx.s.agents.get(p.name).id)
    request = LaunchRequest(
        name=p.name,
        node_id=node_id,
        mode=p.mode,
        reattach=p.reattach,
        rows=p.rows,
        cols=p.cols,
        resume_conversation_id=(
            asleep.conversation_id if asleep is not None and p.mode is not Mode.TERMINAL else None
        ),
    )
    result = await ctx.rt.launch(request)
    return {
        "agent_id": result.agent.id,
        "name": result.agent.name,
        "mode": result.mode,
        "node_id": result.entry.node_id,
        "started": result.started,
    }


async def session_stop(ctx: UiContext, _: TerminalViews, p: NameParams) -> Stopped:
    stopped = await ctx.rt.stop_agent(p.name, reason="stopped from the UI")
    return {"stopped": stopped}


def session_move(ctx: UiContext, _: TerminalViews, p: MoveParams) -> Moved:
    """A live agent shown elsewhere is shown in this cell instead; its old cell empties."""
    moved = move_agent(ctx.s.agents, ctx.s.layouts, ctx.rt.sessions, ctx.rt.bus, p.name, p.node_id)
    return {
        "layouts": moved.layouts.to_json(),
        "agent_id": moved.agent_id,
        "node_id": moved.node_id,
        "from_node_id": moved.from_node_id,
    }


def terminal_attach(ctx: UiContext, views: TerminalViews, p: AttachParams) -> Attached:
    # Synchronous on purpose: the reply is queued before any output of the new attach.
    agent = ctx.s.agents.get(p.name)
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
            "screen": False,
            "exit_code": epitaph.exit_code,
        }
    attach_id, text, only_screen = views.attach(session, p.view)
    return {
        "attach_id": attach_id,
        "agent_id": agent.id,
        "scrollback": text,
        "screen": only_screen,
        "exit_code": None,
    }


def terminal_detach(ctx: UiContext, views: TerminalViews, p: DetachParams) -> Detached:
    _view(views.detach(p.attach_id), p.attach_id)
    return {"detached": p.attach_id}


def terminal_view(ctx: UiContext, views: TerminalViews, p: ViewParams) -> None:
    """The view now shows its terminal so; ``parsed`` (what it has parsed) turns flow control on:
    from now on the view acknowledges what it parses (``terminal.ack``)."""
    _view(views.set_view(p.attach_id, p.view, p.parsed), p.attach_id)


def terminal_ack(ctx: UiContext, views: TerminalViews, p: AckParams) -> None:
    _view(views.ack(p.attach_id, p.parsed), p.attach_id)


def terminal_history(ctx: UiContext, views: TerminalViews, p: DetachParams) -> None:
    """Send the view the terminal's scrollback (a re-sync frame), for its scrollback or search."""
    _view(views.history(p.attach_id), p.attach_id)


def _view(found: bool, attach_id: str) -> None:
    if not found:
        raise NotFound(f"attach_id: no terminal view {attach_id!r} on this connection")


def terminal_write(ctx: UiContext, _: TerminalViews, p: WriteParams) -> None:
    _terminal(ctx, p.name)[1].write(check_text(p.data, "data"))


def terminal_resize(ctx: UiContext, views: TerminalViews, p: ResizeParams) -> None:
    session = _terminal(ctx, p.name)[1]
    session.resize(p.rows, p.cols)
    views.resized(session, p.rows, p.cols)


def _terminal(ctx: UiContext, name: str) -> tuple[Agent, TerminalSession]:
    agent = ctx.s.agents.get(name)
    session = ctx.rt.sessions.terminal_session(agent.id)
    if session is None:
        raise Conflict(f"agent {agent.name} is not running in a terminal")
    return agent, session
