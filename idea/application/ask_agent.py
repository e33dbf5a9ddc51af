"""AgentAsker: send a task to an agent's structured session and return its answer (DESIGN.md §6).

An ask goes: admitted (``ask_admission``: who may ask whom, how deep, how much), given its
deadline (``ask_deadline``), put in its target's line (``ask_lines``), answered in a turn
(``ask_turn``), its trace told as it grows (``ask_trace``). This module puts them in that order
and keeps what spans the whole ask:

- unknown target → NOT_FOUND; target live in a terminal → INVALID (never a misleading ack);
- target not live → launched in structured mode in the background, then asked;
- an ask made by an agent while it serves another joins that one's chain one level deeper
  (``chains.py``), and names it as its parent (``parent_ask_id``): the ask tree is kept;
- an ask that would close a cycle of agents waiting on each other (A asks B while B waits on A,
  or longer chains) fails at once with CONFLICT naming the cycle, instead of dead-locking;
- every accepted ask is in the in-flight journal from its start to its end; its log row says how
  long it waited for its turn (``queued_ms``: in the FIFO, and launching the agent if it was not
  running), so a slow answer reads as a long queue or a long turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from idea.application.ask_admission import admit, check_budget
from idea.application.ask_deadline import AskTimes
from idea.application.ask_lines import WAITING_PROMPT_CHARS, AskLines, Serving, Waiting
from idea.application.ask_trace import Traced
from idea.application.ask_turn import AgentTurns
from idea.application.caller import Caller, ProgressListener, TraceListener
from idea.application.chains import Chains, Hop, UsageLedger
from idea.application.ports import AgentStore, AskJournal, Clock, WorkStateStore
from idea.application.work_state import LastDelegationJson, record_delegation
from idea.domain import commands as c
from idea.domain.agent import Agent
from idea.domain.errors import IdeaError, Invalid
from idea.domain.json_types import JsonObject
from idea.domain.outcome import AskTrace, OrchestratorOutcome
from idea.domain.policy import Policy
from idea.domain.wait_graph import WaitGraph


@dataclass(frozen=True, slots=True)
class Ask:
    """One admitted ask: to whom, what, as which hop, from which door; its turn's timeout, its
    queue cap and its deadline (loop time); who follows its progress and its trace."""

    agent: Agent
    task: str
    hop: Hop
    source: c.Source | None
    turn_timeout: float
    queue_cap: float
    deadline: float
    progress: ProgressListener | None
    trace: Traced


class AgentAsker:
    def __init__(
        self,
        agents: AgentStore,
        turns: AgentTurns,
        lines: AskLines,
        chains: Chains,
        journal: AskJournal,
        clock: Clock,
        policy: Callable[[], Policy] = Policy,
        times: AskTimes = AskTimes(),  # noqa: B008 - frozen, shared safely
    ) -> None:
        """``policy``: the project's, read at each ask; ``times`` may override its timeouts."""
        self._agents = agents
        self._turns = turns
        self._lines = lines
        self._chains = chains
        self._journal = journal
        self._clock = clock
        self._policy = policy
        self._times = times
        self.waits = WaitGraph()

    @property
    def chains(self) -> Chains:
        return self._chains

    @property
    def usage(self) -> UsageLedger:
        """What each agent's turns cost since the project opened."""
        return self._turns.usage

    def serving(self, agent_id: str) -> Serving | None:
        """The turn the agent is in now, if any."""
        return self._lines.serving(agent_id)

    def waiting(self, agent_id: str) -> list[Waiting]:
        """The asks accepted for the agent that wait for their turn, the oldest first."""
        return self._lines.waiting(agent_id)

    async def between_turns(self, agent_id: str, job: Callable[[], Awaitable[bool]]) -> bool:
        """Run ``job`` in the agent's line of asks, between two turns (hibernation)."""
        return await self._lines.between_turns(agent_id, job)

    def queue_length(self, agent_id: str) -> int:
        return self._lines.queue_length(agent_id)

    async def close(self) -> None:
        await self._lines.close()

    async def __call__(
        self,
        target: str,
        task: str,
        requester_id: str | None = None,
        timeout_s: float | None = None,
        progress: ProgressListener | None = None,
        from_cli: bool = False,
        source: c.Source | None = None,
        traced: TraceListener | None = None,
    ) -> str:
        """The target's final text. Raises ``NotFound``, ``Invalid``, ``Conflict``,
        ``Forbidden``, ``DepthExceeded``, ``BudgetExceeded``, ``IdeaTimeout``, ``AgentFailed``
        (``RateLimited``), ``Unavailable``; cancelling the caller withdraws it.
        ``from_cli``: the caller is an agent's CLI, bound by its MCP tool timeout; ``source``:
        the door; ``traced`` is told the ask's trace each time it grows (``AskTrace``)."""
        agent = self._agents.get(target)
        if self._turns.is_in_terminal(agent):
            raise Invalid(
                f"agent {agent.name} is running in a terminal and cannot be asked; "
                "open it in chat (structured) mode to delegate to it"
            )
        policy = self._policy()
        parent = self._lines.serving(requester_id) if requester_id is not None else None
        hop = self._chains.hop(parent.hop if parent else None, requester_id, agent.id)
        trace = Traced(hop, traced)
        # A cycle is named first: it is why a chain would grow without end.
        edge = (
            self.waits.add(requester_id, agent.id, self._name_of)
            if requester_id is not None
            else None
        )
        try:
            requester = self._name_of(requester_id) if requester_id is not None else None
            admit(agent, hop, policy, requester)
            turn_timeout = self._times.turn_timeout(timeout_s, policy)
            queue_cap = self._times.queue_cap(policy)
            now = asyncio.get_running_loop().time()
            parent_ends = parent.ends if parent else None
            deadline = self._times.deadline(
                agent.name, now, turn_timeout, queue_cap, parent_ends, from_cli
            )
            ask = Ask(agent, task, hop, source, turn_timeout, queue_cap, deadline, progress, trace)
            return await self._accepted(ask)
        finally:
            if edge is not None:
                self.waits.remove(edge)

    async def _accepted(self, ask: Ask) -> str:
        """An admitted ask: in its chain and the journal until it ends, however it ends."""
        hop = ask.hop
        self._chains.enter(hop)
        self._journal.started(hop.ask_id, self._journal_record(ask))
        accepted = self._clock.monotonic()
        waiting = Waiting(hop, self._clock.now_ms(), ask.source, ask.task[:WAITING_PROMPT_CHARS])
        code: str | None = "CANCELLED"
        try:
            reply = await self._lines.answer(
                ask.agent.id,
                ask.agent.name,
                waiting,
                lambda: self._turn(ask, accepted),
                ask.progress,
                ask.deadline,
                ask.queue_cap,
            )
            code = None
            return reply
        except IdeaError as exc:
            code = exc.code
            raise
        finally:
            if ask.trace.trace.queued_ms is None:  # it ended before its turn: it only waited
                ask.trace.waited(self._ms_since(accepted))
            self._journal.ended(hop.ask_id, {"at_ms": self._clock.now_ms(), "code": code})
            self._chains.leave(hop)

    async def _turn(self, ask: Ask, accepted: float) -> str:
        agent, hop = ask.agent, ask.hop
        # The chain may have spent its budget while this ask waited in line.
        check_budget(agent, hop, self._policy())
        session = await self._turns.session(agent)
        queued_ms = self._ms_since(accepted)
        ask.trace.waited(queued_ms)
        self._turns.started(agent, hop, ask.task)
        now = asyncio.get_running_loop().time()
        ends = min(ask.deadline, now + ask.turn_timeout)
        # Asks it makes meanwhile join this chain and end before this turn does.
        started_at_ms = self._clock.now_ms()
        ends_at_ms = started_at_ms + round((ends - now) * 1000)
        self._lines.serve(
            agent.id, Serving(hop, ends, ends_at_ms, started_at_ms, queued_ms, ask.source)
        )
        self._chains.serving(hop, True)
        try:
            final = await self._turns.send(agent, hop, session, ask.task, max(0.001, ends - now))
        finally:
            self._lines.served(agent.id)
            self._chains.serving(hop, False)
        if final.usage is not None:
            ask.trace.spent(final.usage)
            self._chains.spent(hop, final.usage)
        self._turns.answered(agent, hop, final)
        return final.text

    def _journal_record(self, ask: Ask) -> JsonObject:
        remaining_ms = round((ask.deadline - asyncio.get_running_loop().time()) * 1000)
        hop = ask.hop
        return {
            "at_ms": self._clock.now_ms(),
            "source": ask.source,
            "requester": hop.requester_id,
            "target": ask.agent.name,
            "chain_id": hop.chain.chain_id,
            "depth": hop.depth,
            "parent_ask_id": hop.parent_ask_id,
            "deadline_at_ms": self._clock.now_ms() + remaining_ms,
        }

    def _ms_since(self, monotonic: float) -> int:
        return max(0, round((self._clock.monotonic() - monotonic) * 1000))

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
    ended: tuple[bool, str | None] | None = None  # (ok, code), once the ask has ended
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
        ended = (False, exc.code)
        raise
    else:
        ended = (True, None)
        return OrchestratorOutcome(f"{command.target} answered", reply=reply)
    finally:
        if requester_id is not None and ended is not None:
            trace = traces[-1] if traces else None
            delegation: LastDelegationJson = {
                "target": command.target,
                "at_ms": at,
                "ok": ended[0],
                "code": ended[1],
                "chain_id": None if trace is None else trace.chain_id,
                "depth": None if trace is None else trace.depth,
            }
            await record_delegation(work_state, requester_id, delegation, clock)
