"""AgentAsker: send a task to an agent's structured session and return its answer (DESIGN.md §6).

- unknown target → NOT_FOUND; target live in a terminal → INVALID (never a misleading ack);
- target not live → launched in structured mode in the background, then asked;
- asks to one agent wait in its FIFO (turns never interleave); asks to different agents run in
  parallel; waiting in line longer than the queue cap → TIMEOUT;
- a turn longer than its timeout → TIMEOUT, the target stays alive and the line moves on;
- an ask that would close a cycle of agents waiting on each other (A asks B while B waits on A,
  or longer chains) fails at once with CONFLICT naming the cycle, instead of dead-locking;
- every turn ends with AgentTurnFinished (ok or not); success → AgentReplied.
"""

from __future__ import annotations

import asyncio

from idea.application.agent_inbox import Inboxes, QueuedTurn
from idea.application.caller import AskProgress, Caller, ProgressListener
from idea.application.event_bus import EventPublisher
from idea.application.launch_agent import AgentLauncher, LaunchRequest
from idea.application.live_sessions import LiveSessions
from idea.application.ports import AgentStore, Clock, WorkStateStore
from idea.application.work_state import record_delegation
from idea.domain import commands as c
from idea.domain.agent import Agent
from idea.domain.errors import IdeaError, IdeaTimeout, Invalid
from idea.domain.events import (
    AgentQueueChanged,
    AgentReplied,
    AgentTurnFinished,
    AgentTurnStarted,
)
from idea.domain.outcome import OrchestratorOutcome
from idea.domain.profile import Mode
from idea.domain.wait_graph import WaitGraph

DEFAULT_TURN_TIMEOUT_S = 300.0
DEFAULT_QUEUE_CAP_S = 900.0


class AgentAsker:
    def __init__(
        self,
        agents: AgentStore,
        sessions: LiveSessions,
        launch: AgentLauncher,
        events: EventPublisher,
        default_timeout_s: float = DEFAULT_TURN_TIMEOUT_S,
        queue_cap_s: float = DEFAULT_QUEUE_CAP_S,
    ) -> None:
        self._agents = agents
        self._sessions = sessions
        self._launch = launch
        self._events = events
        self._default_timeout_s = default_timeout_s
        self._queue_cap_s = queue_cap_s
        self.inboxes: Inboxes[str] = Inboxes(
            lambda agent_id, queued: events.publish(AgentQueueChanged(agent_id, queued))
        )
        self.waits = WaitGraph()

    async def __call__(
        self,
        target: str,
        task: str,
        requester_id: str | None = None,
        timeout_s: float | None = None,
        progress: ProgressListener | None = None,
    ) -> str:
        """The target's final text. Raises ``NotFound``, ``Invalid``, ``Conflict``,
        ``IdeaTimeout``, ``AgentFailed``, ``Unavailable``; cancelling the caller withdraws it."""
        agent = self._agents.get(target)
        if self._sessions.terminal_session(agent.id) is not None:
            raise Invalid(
                f"agent {agent.name} is running in a terminal and cannot be asked; "
                "open it in chat (structured) mode to delegate to it"
            )
        turn_timeout = timeout_s if timeout_s is not None else self._default_timeout_s
        edge = (
            self.waits.add(requester_id, agent.id, self._name_of)
            if requester_id is not None
            else None
        )
        try:
            item = self.inboxes.submit(
                agent.id, lambda: self._turn(agent, task, turn_timeout, requester_id)
            )
            return await self._wait(agent, item, progress)
        finally:
            if edge is not None:
                self.waits.remove(edge)

    def queue_length(self, agent_id: str) -> int:
        return self.inboxes.queue_length(agent_id)

    async def close(self) -> None:
        await self.inboxes.close()

    async def _wait(
        self, agent: Agent, item: QueuedTurn[str], progress: ProgressListener | None
    ) -> str:
        inbox = self.inboxes.inbox(agent.id)

        def report() -> None:
            position = inbox.position(item)
            if progress is not None and position is not None:
                progress(AskProgress(agent.name, position, inbox.running is not None))

        inbox.changed.append(report)
        report()
        try:
            try:
                async with asyncio.timeout(self._queue_cap_s):
                    await item.started.wait()
            except TimeoutError:
                raise IdeaTimeout(
                    f"waited more than {self._queue_cap_s:g} s in {agent.name}'s queue"
                ) from None
            # Shielded: cancelling this waiter must withdraw the ask, not cancel its result.
            return await asyncio.shield(item.done)
        finally:
            inbox.changed.remove(report)
            if not item.done.done():
                inbox.withdraw(item)

    async def _turn(
        self, agent: Agent, task: str, timeout_s: float, requester_id: str | None
    ) -> str:
        session = self._sessions.structured_session(agent.id)
        if session is None:
            result = await self._launch(LaunchRequest(agent.name, mode=Mode.STRUCTURED))
            if result.mode is not Mode.STRUCTURED:
                raise Invalid(f"agent {agent.name} is running in a terminal and cannot be asked")
            session = self._sessions.structured_session(agent.id)
            if session is None:  # pragma: no cover - the launch registers it
                raise Invalid(f"agent {agent.name} has no structured session")
        self._events.publish(AgentTurnStarted.of_prompt(agent.id, agent.name, requester_id, task))
        try:
            reply = await session.send_blocking(task, timeout_s)
        except IdeaError:
            self._events.publish(AgentTurnFinished(agent.id, ok=False))
            raise
        self._events.publish(AgentTurnFinished(agent.id, ok=True))
        self._events.publish(AgentReplied.of_reply(agent.id, agent.name, requester_id, reply))
        return reply

    def _name_of(self, agent_id: str) -> str:
        try:
            return self._agents.get_by_id(agent_id).name
        except IdeaError:
            return agent_id


async def ask_agent(
    command: c.AskAgent,
    caller: Caller,
    *,
    asker: AgentAsker,
    work_state: WorkStateStore,
    clock: Clock,
) -> OrchestratorOutcome:
    """The handler of ``agent.message``: the ask, recorded on the requester's work-state row."""
    at = clock.now_ms()
    outcome: dict[str, str | int | bool | None] = {"target": command.target, "at_ms": at}
    requester_id = caller.requester_id
    try:
        reply = await asker(
            command.target, command.task, requester_id, command.timeout_s, caller.progress
        )
    except IdeaError as exc:
        outcome.update(ok=False, code=exc.code)
        raise
    else:
        outcome.update(ok=True, code=None)
        return OrchestratorOutcome(f"{command.target} answered", reply=reply)
    finally:
        if requester_id is not None and "ok" in outcome:
            record_delegation(work_state, requester_id, dict(outcome), clock)
