"""The UI's chat: a message is an ask through the orchestrator (it waits in the agent's FIFO like
any other); its history; interrupting the running turn, whose ``chat.send`` then says so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NotRequired, TypedDict, cast

from idea.app.terminals.streams import TerminalViews
from idea.app.ui.context import ChatTurn, UiContext
from idea.app.ui.params import NameParams, checked
from idea.app.ui.shapes import ChatEntry
from idea.application.caller import AskProgress
from idea.domain.commands import AskAgent, Source
from idea.domain.errors import AgentFailed, MissingField
from idea.domain.names import validate_slug


def _not_blank(message: str, key: str) -> str:
    if not message.strip():
        raise MissingField(key)
    return message


@dataclass(frozen=True, slots=True)
class SendParams:
    name: str = checked(validate_slug)
    text: str = checked(_not_blank)


class Reply(TypedDict):
    """``reply`` None and ``interrupted``: ``chat.interrupt`` stopped this message's turn."""

    reply: str | None
    interrupted: NotRequired[bool]


class Interrupted(TypedDict):
    interrupted: bool  # False: no turn was running


async def chat_send(ctx: UiContext, _: TerminalViews, p: SendParams) -> Reply:
    name = p.name
    command = AskAgent(target=name, task=p.text)
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


class ChatHistory(TypedDict):
    entries: list[ChatEntry]
    seq: int
    queued: int


def chat_history(ctx: UiContext, _: TerminalViews, p: NameParams) -> ChatHistory:
    agent_id = ctx.s.agents.get(p.name).id
    history = {**ctx.history(agent_id), "queued": ctx.rt.ask.queue_length(agent_id)}
    return cast(ChatHistory, history)


async def chat_interrupt(ctx: UiContext, _: TerminalViews, p: NameParams) -> Interrupted:
    agent = ctx.s.agents.get(p.name)
    session = ctx.rt.sessions.structured_session(agent.id)
    if session is None or not session.busy:
        return {"interrupted": False}
    for turn in ctx.chat_turns.get(agent.name, []):
        turn.interrupted = turn.interrupted or turn.running
    await session.interrupt()
    return {"interrupted": True}
