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
- governance (DESIGN.md §15): an ask made by an agent while it serves another joins that one's
  chain one level deeper (``chains.py``); deeper than the policy's ``max_depth`` →
  DEPTH_EXCEEDED; an agent not in the target's ``asks_from`` → FORBIDDEN (the user always may);
  a nested ask of a chain that spent its ``chain_token_budget`` → BUDGET_EXCEEDED, checked when
  it is made and again when its turn would start;
- every accepted ask is in the in-flight journal from its start to its end; its log row says how
  long it waited for its turn (``queued_ms``: in the FIFO, and launching the agent if it was not
  running), so a slow answer reads as a long queue or a long turn;
- every turn ends with AgentTurnFinished (ok or not, with its usage); success → AgentReplied; a
  rate-limit refusal → AgentRateLimited.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from idea.application.agent_inbox import Inboxes, QueuedTurn
from idea.application.caller import AskProgress, Caller, ProgressListener, TraceListener
from idea.application.chains import Chains, Hop, UsageLedger
from idea.application.event_bus import EventPublisher
from idea.application.launch_agent import AgentLauncher, LaunchRequest
from idea.application.live_sessions import LiveSessions
from idea.application.ports import AgentStore, AskJournal, Clock, WorkStateStore
from idea.application.work_state import record_delegation
from idea.domain import commands as c
from idea.domain.agent import Agent
from idea.domain.errors import (
    BudgetExceeded,
    DepthExceeded,
    Forbidden,
    IdeaError,
    IdeaTimeout,
    Invalid,
    RateLimited,
)
from idea.domain.events import (
    AgentQueueChanged,
    AgentRateLimited,
    AgentReplied,
    AgentTurnFinished,
    AgentTurnStarted,
)
from idea.domain.json_types import JsonObject
from idea.domain.outcome import AskTrace, OrchestratorOutcome
from idea.domain.policy import Policy, may_ask
from idea.domain.profile import Mode
from idea.domain.usage import Usage
from idea.domain.wait_graph import WaitGraph

DEFAULT_TURN_TIMEOUT_S = 300.0
DEFAULT_QUEUE_CAP_S = 900.0
# What a deadline leaves its caller: time to carry the TIMEOUT back before the caller gives up.
DEADLINE_MARGIN_S = 5.0
# What the board shows of a waiting ask's prompt (the whole one is logged when the ask ends).
WAITING_PROMPT_CHARS = 500


@dataclass(frozen=True, slots=True)
class Serving:
    """The turn an agent is in: for which hop, until when (loop time, and epoch ms), since when
    (epoch ms), how long the ask waited for it and the door it came through."""

    hop: Hop
    ends: float
    ends_at_ms: int
    started_at_ms: int
    queued_ms: int
    source: str | None


@dataclass(frozen=True, slots=True)
class Waiting:
    """An accepted ask still waiting for its turn: for which hop, since when (epoch ms), the
    door it came through, and the start of its prompt (at most ``WAITING_PROMPT_CHARS``)."""

    hop: Hop
    since_ms: int
    source: str | None
    prompt: str


class Traced:
    """An ask's trace as it grows: each step a new ``AskTrace``, told to the ask's listener."""

    def __init__(self, hop: Hop, listener: TraceListener | None) -> None:
        self._listener = listener
        self.trace = hop.trace()
        self._tell()

    def waited(self, queued_ms: int) -> None:
        self.trace = replace(self.trace, queued_ms=queued_ms)
        self._tell()

    def spent(self, usage: Usage) -> None:
        self.trace = replace(self.trace, usage=usage)
        self._tell()

    def _tell(self) -> None:
        if self._listener is not None:
            self._listener(self.trace)


class AgentAsker:
    def __init__(
        self,
        agents: AgentStore,
        sessions: LiveSessions,
        launch: AgentLauncher,
        events: EventPublisher,
        chains: Chains,
        journal: AskJournal,
        clock: Clock,
        policy: Callable[[], Policy] = Policy,
        default_timeout_s: float | None = None,
        queue_cap_s: float | None = None,
        caller_timeout_s: float | None = None,
        margin_s: float = DEADLINE_MARGIN_S,
        wake: Callable[[str], LaunchRequest | None] | None = None,
    ) -> None:
        """``policy``: the project's, read at each ask (``default_timeout_s`` and
        ``queue_cap_s`` override its ``ask_timeout_s`` and ``queue_wait_s`` when given);
        ``caller_timeout_s``: the MCP tool timeout IdeA declares to the agents' CLIs;
        ``wake``: how a hibernated agent is launched again (its conversation resumed)."""
        self._caller_timeout_s = caller_timeout_s
        self._margin_s = margin_s
        self._serving: dict[str, Serving] = {}  # agent id -> the turn it is in
        # agent id -> ask id -> an accepted ask not in its turn yet, in the order they came
        self._waiting: dict[str, dict[str, Waiting]] = {}
        self._agents = agents
        self._sessions = sessions
        self._launch = launch
        self._events = events
        self._chains = chains
        self._journal = journal
        self._clock = clock
        self._policy = policy
        self._default_timeout_s = default_timeout_s
        self._queue_cap_s = queue_cap_s
        self._wake = wake
        self.usage = UsageLedger()
        self.inboxes: Inboxes[str] = Inboxes(
            lambda agent_id, queued: events.publish(AgentQueueChanged(agent_id, queued))
        )
        self.waits = WaitGraph()

    @property
    def chains(self) -> Chains:
        return self._chains

    def serving(self, agent_id: str) -> Serving | None:
        """The turn the agent is in now, if any."""
        return self._serving.get(agent_id)

    def waiting(self, agent_id: str) -> list[Waiting]:
        """The asks accepted for the agent that wait for their turn, the oldest first."""
        return list(self._waiting.get(agent_id, {}).values())

    def _stop_waiting(self, agent_id: str, ask_id: str) -> None:
        line = self._waiting.get(agent_id)
        if line is not None and line.pop(ask_id, None) is not None and not line:
            del self._waiting[agent_id]

    async def __call__(
        self,
        target: str,
        task: str,
        requester_id: str | None = None,
        timeout_s: float | None = None,
        progress: ProgressListener | None = None,
        from_cli: bool = False,
        source: str | None = None,
        traced: TraceListener | None = None,
    ) -> str:
        """The target's final text. Raises ``NotFound``, ``Invalid``, ``Conflict``,
        ``Forbidden``, ``DepthExceeded``, ``BudgetExceeded``, ``IdeaTimeout``, ``AgentFailed``
        (``RateLimited``), ``Unavailable``; cancelling the caller withdraws it.
        ``from_cli``: the caller is an agent's CLI, bound by its MCP tool timeout; ``source``:
        the door; ``traced`` is told the ask's trace each time it grows (``AskTrace``)."""
        agent = self._agents.get(target)
        if self._sessions.terminal_session(agent.id) is not None:
            raise Invalid(
                f"agent {agent.name} is running in a terminal and cannot be asked; "
                "open it in chat (structured) mode to delegate to it"
            )
        policy = self._policy()
        parent = self._serving.get(requester_id) if requester_id is not None else None
        hop = self._chains.hop(parent.hop if parent else None, requester_id, agent.id)
        trace = Traced(hop, traced)
        # A cycle is named first: it is why a chain would grow without end.
        edge = (
            self.waits.add(requester_id, agent.id, self._name_of)
            if requester_id is not None
            else None
        )
        try:
            self._admit(agent, hop, policy)
            if timeout_s is not None:
                turn_timeout = timeout_s
            elif self._default_timeout_s is not None:
                turn_timeout = self._default_timeout_s
            else:
                turn_timeout = policy.ask_timeout_s
            queue_cap = self._queue_cap_s if self._queue_cap_s is not None else policy.queue_wait_s
            deadline = self._deadline(agent, turn_timeout, queue_cap, parent, from_cli)
            return await self._accepted(
                agent, task, hop, trace, source, turn_timeout, queue_cap, deadline, progress
            )
        finally:
            if edge is not None:
                self.waits.remove(edge)

    async def _accepted(
        self,
        agent: Agent,
        task: str,
        hop: Hop,
        trace: Traced,
        source: str | None,
        turn_timeout: float,
        queue_cap: float,
        deadline: float,
        progress: ProgressListener | None,
    ) -> str:
        """An admitted ask: in its chain and the journal until it ends, however it ends."""
        self._chains.enter(hop)
        self._journal.started(hop.ask_id, self._journal_record(agent, hop, source, deadline))
        accepted = self._clock.monotonic()
        waiting = Waiting(hop, self._clock.now_ms(), source, task[:WAITING_PROMPT_CHARS])
        self._waiting.setdefault(agent.id, {})[hop.ask_id] = waiting
        code: str | None = "CANCELLED"
        try:
            item = self.inboxes.submit(
                agent.id,
                lambda: self._turn(
                    agent, task, turn_timeout, hop, deadline, trace, source, accepted
                ),
            )
            reply = await self._wait(agent, item, progress, deadline, queue_cap)
            code = None
            return reply
        except IdeaError as exc:
            code = exc.code
            raise
        finally:
            self._stop_waiting(agent.id, hop.ask_id)
            if trace.trace.queued_ms is None:  # it ended before its turn started: it only waited
                trace.waited(self._ms_since(accepted))
            self._journal.ended(hop.ask_id, {"at_ms": self._clock.now_ms(), "code": code})
            self._chains.leave(hop)

    def _ms_since(self, monotonic: float) -> int:
        return max(0, round((self._clock.monotonic() - monotonic) * 1000))

    def _admit(self, agent: Agent, hop: Hop, policy: Policy) -> None:
        """Raises ``Forbidden``, ``DepthExceeded``, ``BudgetExceeded``."""
        requester = self._name_of(hop.requester_id) if hop.requester_id is not None else None
        if not may_ask(agent.asks_from, requester):
            raise Forbidden(
                f"{requester} may not ask {agent.name}: only "
                f"{', '.join(agent.asks_from)} may (its asks_from)"
            )
        if hop.depth > policy.max_depth:
            raise DepthExceeded(
                f"asking {agent.name} would make delegation chain {hop.chain.chain_id[:8]} "
                f"{hop.depth} asks deep; the project's max_depth is {policy.max_depth}"
            )
        self._check_budget(agent, hop, policy)

    @staticmethod
    def _check_budget(agent: Agent, hop: Hop, policy: Policy) -> None:
        budget = policy.chain_token_budget
        spent = hop.chain.usage.total_tokens
        if hop.depth > 1 and budget is not None and spent >= budget:
            raise BudgetExceeded(
                f"delegation chain {hop.chain.chain_id[:8]} spent {spent:,} tokens of its "
                f"budget of {budget:,}; {agent.name} is not asked"
            )

    def _journal_record(
        self, agent: Agent, hop: Hop, source: str | None, deadline: float
    ) -> JsonObject:
        remaining_ms = round((deadline - asyncio.get_running_loop().time()) * 1000)
        return {
            "at_ms": self._clock.now_ms(),
            "source": source,
            "requester": hop.requester_id,
            "target": agent.name,
            "chain_id": hop.chain.chain_id,
            "depth": hop.depth,
            "parent_ask_id": hop.parent_ask_id,
            "deadline_at_ms": self._clock.now_ms() + remaining_ms,
        }

    def _deadline(
        self,
        agent: Agent,
        turn_timeout: float,
        queue_cap: float,
        parent: Serving | None,
        from_cli: bool,
    ) -> float:
        """The loop time by which the answer must be back. Raises ``IdeaTimeout`` when a chain
        has no time left for this ask."""
        now = asyncio.get_running_loop().time()
        deadline = now + queue_cap + turn_timeout
        if from_cli and self._caller_timeout_s is not None:
            deadline = min(deadline, now + self._caller_timeout_s - self._margin_s)
        if parent is not None:
            deadline = min(deadline, parent.ends - self._margin_s)
        if deadline <= now:
            raise IdeaTimeout(
                f"no time is left to ask {agent.name}: the ask this one serves ends in "
                f"{max(0.0, (parent.ends if parent else now) - now):.1f} s"
            )
        return deadline

    async def between_turns(self, agent_id: str, job: Callable[[], Awaitable[bool]]) -> bool:
        """Run ``job`` in the agent's line of asks: after the turns before it, before the ones
        that come after (hibernation). Cancelling the caller withdraws it."""
        answer: list[bool] = []

        async def run() -> str:
            answer.append(await job())
            return ""

        item = self.inboxes.submit(agent_id, run)
        try:
            await asyncio.shield(item.done)
        finally:
            if not item.done.done():
                self.inboxes.inbox(agent_id).withdraw(item)
        return bool(answer and answer[0])

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
        queue_cap: float,
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
            wait_s = min(queue_cap, deadline - loop.time())
            try:
                async with asyncio.timeout(wait_s):
                    await item.started.wait()
            except TimeoutError:
                raise IdeaTimeout(
                    f"waited {wait_s:.3g} s in {agent.name}'s queue: "
                    + (
                        "longer than the queue cap"
                        if wait_s >= queue_cap
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
        hop: Hop,
        deadline: float,
        trace: Traced,
        source: str | None,
        accepted: float,
    ) -> str:
        # The chain may have spent its budget while this ask waited in line.
        self._check_budget(agent, hop, self._policy())
        session = self._sessions.structured_session(agent.id)
        if session is None:
            woken = self._wake(agent.id) if self._wake is not None else None
            request = woken or LaunchRequest(agent.name, mode=Mode.STRUCTURED)
            result = await self._launch(request)
            if result.mode is not Mode.STRUCTURED:
                raise Invalid(f"agent {agent.name} is running in a terminal and cannot be asked")
            session = self._sessions.structured_session(agent.id)
            if session is None:  # pragma: no cover - the launch registers it
                raise Invalid(f"agent {agent.name} has no structured session")
        chain_id = hop.chain.chain_id
        queued_ms = self._ms_since(accepted)
        trace.waited(queued_ms)
        ask_id, parent_ask_id = hop.ask_id, hop.parent_ask_id
        self._events.publish(
            AgentTurnStarted.of_prompt(
                agent.id,
                agent.name,
                hop.requester_id,
                task,
                chain_id,
                hop.depth,
                ask_id,
                parent_ask_id,
            )
        )
        now = asyncio.get_running_loop().time()
        ends = min(deadline, now + timeout_s)
        # Asks it makes meanwhile join this chain and end before this turn does.
        started_at_ms = self._clock.now_ms()
        ends_at_ms = started_at_ms + round((ends - now) * 1000)
        self._stop_waiting(agent.id, hop.ask_id)
        self._serving[agent.id] = Serving(hop, ends, ends_at_ms, started_at_ms, queued_ms, source)
        self._chains.serving(hop, True)
        try:
            final = await session.send_blocking(task, max(0.001, ends - now))
        except IdeaError as exc:
            self._events.publish(
                AgentTurnFinished(agent.id, False, None, chain_id, ask_id, parent_ask_id)
            )
            if isinstance(exc, RateLimited):
                self._events.publish(
                    AgentRateLimited(agent.id, agent.name, exc.message, exc.resets_at_ms)
                )
            raise
        finally:
            self._serving.pop(agent.id, None)
            self._chains.serving(hop, False)
        if final.usage is not None:
            trace.spent(final.usage)
            self._chains.spent(hop, final.usage)
            self.usage.add(agent.id, final.usage)
        self._events.publish(
            AgentTurnFinished(agent.id, True, final.usage, chain_id, ask_id, parent_ask_id)
        )
        reply = final.text
        self._events.publish(
            AgentReplied.of_reply(
                agent.id, agent.name, hop.requester_id, reply, ask_id, parent_ask_id
            )
        )
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
    traces: list[AskTrace] = []

    def traced(trace: AskTrace) -> None:
        traces.append(trace)
        if caller.traced is not None:
            caller.traced(trace)

    try:
        reply = await asker(
            command.target,
            command.task,
            requester_id,
            command.timeout_s,
            caller.progress,
            from_cli=caller.verified,
            source=caller.source,
            traced=traced,
        )
    except IdeaError as exc:
        outcome.update(ok=False, code=exc.code)
        raise
    else:
        outcome.update(ok=True, code=None)
        return OrchestratorOutcome(f"{command.target} answered", reply=reply)
    finally:
        if requester_id is not None and "ok" in outcome:
            trace = traces[-1] if traces else None
            outcome.update(
                chain_id=None if trace is None else trace.chain_id,
                depth=None if trace is None else trace.depth,
            )
            record_delegation(work_state, requester_id, dict(outcome), clock)
