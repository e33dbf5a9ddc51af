"""AgentAsker: send a task to an agent's structured session and return its answer (DESIGN.md §6).

- unknown target → NOT_FOUND; target live in a terminal → INVALID (never a misleading ack);
- target not live → launched in structured mode in the background, then asked;
- asks to one agent wait in its FIFO (turns never interleave); asks to different agents run in
  parallel; waiting in line longer than the queue cap → TIMEOUT;
- a turn longer than its timeout → TIMEOUT, the target stays alive and the line moves on;
- every ask has a deadline (DESIGN.md §15) that its time in the queue and its turn share: at most
  the queue cap plus the turn timeout; for a caller that is an agent's CLI, ``margin_s`` below the
  MCP tool timeout IdeA declared to it; for an ask made by an agent while it serves another ask,
  ``margin_s`` below what remains of that one. So a caller always gets IdeA's typed TIMEOUT before
  its own CLI gives up, and a chain never outlives its root;
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
# What a deadline leaves its caller: time to carry the TIMEOUT back before the caller gives up.
DEADLINE_MARGIN_S = 5.0


class AgentAsker:
    def __init__(
        self,
        agents: AgentStore,
        sessions: LiveSessions,
        launch: AgentLauncher,
        events: EventPublisher,
        default_timeout_s: float = DEFAULT_TURN_TIMEOUT_S,
        queue_cap_s: float = DEFAULT_QUEUE_CAP_S,
        caller_timeout_s: float | None = None,
        margin_s: float = DEADLINE_MARGIN_S,
    ) -> None:
        # ``caller_timeout_s``: the MCP tool timeout IdeA declares to the agents' CLIs.
        self._caller_timeout_s = caller_timeout_s
        self._margin_s = margin_s
        self._serving: dict[str, float] = {}  # agent id -> deadline of the turn it is in
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
        from_cli: bool = False,
    ) -> str:
        """The target's final text. Raises ``NotFound``, ``Invalid``, ``Conflict``,
        ``IdeaTimeout``, ``AgentFailed``, ``Unavailable``; cancelling the caller withdraws it.
        ``from_cli``: the caller is an agent's CLI, bound by its MCP tool timeout."""
        agent = self._agents.get(target)
        if self._sessions.terminal_session(agent.id) is not None:
            raise Invalid(
                f"agent {agent.name} is running in a terminal and cannot be asked; "
                "open it in chat (structured) mode to delegate to it"
            )
        turn_timeout = timeout_s if timeout_s is not None else self._default_timeout_s
        deadline = self._deadline(agent, turn_timeout, requester_id, from_cli)
        edge = (
            self.waits.add(requester_id, agent.id, self._name_of)
            if requester_id is not None
            else None
        )
        try:
            item = self.inboxes.submit(
                agent.id, lambda: self._turn(agent, task, turn_timeout, requester_id, deadline)
            )
            return await self._wait(agent, item, progress, deadline)
        finally:
            if edge is not None:
                self.waits.remove(edge)

    def _deadline(
        self, agent: Agent, turn_timeout: float, requester_id: str | None, from_cli: bool
    ) -> float:
        """The loop time by which the answer must be back. Raises ``IdeaTimeout`` when a chain
        has no time left for this ask."""
        now = asyncio.get_running_loop().time()
        deadline = now + self._queue_cap_s + turn_timeout
        if from_cli and self._caller_timeout_s is not None:
            deadline = min(deadline, now + self._caller_timeout_s - self._margin_s)
        parent = self._serving.get(requester_id) if requester_id is not None else None
        if parent is not None:
            deadline = min(deadline, parent - self._margin_s)
        if deadline <= now:
            raise IdeaTimeout(
                f"no time is left to ask {agent.name}: the ask this one serves ends in "
                f"{max(0.0, (parent or now) - now):.1f} s"
            )
        return deadline

    def queue_length(self, agent_id: str) -> int:
        return self.inboxes.queue_length(agent_id)

    async def close(self) -> None:
        await self.inboxes.close()

    async def _wait(
        self,
        agent: Agent,
        item: QueuedTurn[str],
        progress: ProgressListener | None,
        deadline: float,
    ) -> str:
        inbox = self.inboxes.inbox(agent.id)

        def report() -> None:
            position = inbox.position(item)
            if progress is not None and position is not None:
                progress(AskProgress(agent.name, position, inbox.running is not None))

        inbox.changed.append(report)
        report()
        try:
            loop = asyncio.get_running_loop()
            wait_s = min(self._queue_cap_s, deadline - loop.time())
            try:
                async with asyncio.timeout(wait_s):
                    await item.started.wait()
            except TimeoutError:
                raise IdeaTimeout(
                    f"waited {wait_s:.3g} s in {agent.name}'s queue: "
                    + (
                        "longer than the queue cap"
                        if wait_s >= self._queue_cap_s
                        else "all the time its caller had left"
                    )
                ) from None
            # Shielded: cancelling this waiter must withdraw the ask, not cancel its result.
            return await asyncio.shield(item.done)
        finally:
            inbox.changed.remove(report)
            if not item.done.done():
                inbox.withdraw(item)

    async def _turn(
        self,
        agent: Agent,
        task: str,
        timeout_s: float,
        requester_id: str | None,
        deadline: float,
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
        now = asyncio.get_running_loop().time()
        ends = min(deadline, now + timeout_s)
        self._serving[agent.id] = ends  # asks it makes meanwhile end before this turn does
        try:
            final = await session.send_blocking(task, max(0.001, ends - now))
        except IdeaError:
            self._events.publish(AgentTurnFinished(agent.id, ok=False))
            raise
        finally:
            self._serving.pop(agent.id, None)
        self._events.publish(AgentTurnFinished(agent.id, ok=True))
        reply = final.text
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
            command.target,
            command.task,
            requester_id,
            command.timeout_s,
            caller.progress,
            from_cli=caller.verified,
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
