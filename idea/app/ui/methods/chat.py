"""The UI's chat: a message is an ask through the orchestrator (it waits in the agent's FIFO like
any other); its history; interrupting the running turn, whose ``chat.send`` then says so."""

from __future__ import annotations

from idea.app.terminal_stream import TerminalViews
from idea.app.ui.context import ChatTurn, UiContext
from idea.app.ui.params import text
from idea.application.caller import AskProgress
from idea.domain.commands import AskAgent, Source
from idea.domain.errors import AgentFailed, MissingField
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.names import validate_slug


async def chat_send(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    name = validate_slug(text(p, "name"), "name")
    message = text(p, "text")
    if not message.strip():
        raise MissingField("text")
    command = AskAgent(target=name, task=message)
    turn = ChatTurn()

    def progress(p: AskProgress) -> None:
        turn.running = p.position == 0

    turns = ctx.chat_turns.setdefault(name, [])
    turns.append(turn)
    try:
        # Through the orchestrator: it waits in the agent's FIFO like any other ask.
        outcome = await ctx.rt.orchestrator.dispatch(command, Source.UI, progress=progress)
    except AgentFailed:
        if turn.interrupted:
            return {"reply": None, "interrupted": True}
        raise
    finally:
        turns.remove(turn)
        if not turns:
            del ctx.chat_turns[name]
    return {"reply": outcome.reply}


def chat_history(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    agent_id = ctx.s.agents.get(text(p, "name")).id
    return {**ctx.history(agent_id), "queued": ctx.rt.ask.queue_length(agent_id)}


async def chat_interrupt(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    agent = ctx.s.agents.get(text(p, "name"))
    session = ctx.rt.sessions.structured_session(agent.id)
    if session is None or not session.busy:
        return {"interrupted": False}
    for turn in ctx.chat_turns.get(agent.name, []):
        turn.interrupted = turn.interrupted or turn.running
    await session.interrupt()
    return {"interrupted": True}
