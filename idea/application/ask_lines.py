"""The agents' lines of asks (DESIGN.md §6): what each agent serves now and what waits for it.

- asks to one agent wait in its FIFO (turns never interleave); asks to different agents run in
  parallel; waiting in line longer than the queue cap, or than the ask's deadline leaves, →
  TIMEOUT; cancelling the waiter withdraws its ask (a running turn is interrupted);
- the line reports the ask's position to its caller as it moves (``AskProgress``) and every
  change of its length as ``AgentQueueChanged``;
- other work that must not overlap a turn (hibernation) takes its place in the same line.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass

from idea.application.agent_inbox import AgentInbox, Inboxes, QueuedTurn
from idea.application.caller import AskProgress, ProgressListener
from idea.application.chains import Hop
from idea.application.event_bus import EventPublisher
from idea.domain.commands import Source
from idea.domain.errors import IdeaTimeout
from idea.domain.events import AgentQueueChanged

# What the work state shows of a waiting ask's prompt (the whole one is logged when the ask ends).
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
    source: Source | None


@dataclass(frozen=True, slots=True)
class Waiting:
    """An accepted ask still waiting for its turn: for which hop, since when (epoch ms), the
    door it came through, and the start of its prompt (at most ``WAITING_PROMPT_CHARS``)."""

    hop: Hop
    since_ms: int
    source: Source | None
    prompt: str


class AskLines:
    def __init__(self, events: EventPublisher) -> None:
        self._serving: dict[str, Serving] = {}  # agent id -> the turn it is in
        # agent id -> ask id -> an accepted ask not in its turn yet, in the order they came
        self._waiting: dict[str, dict[str, Waiting]] = {}
        self._inboxes: Inboxes[str] = Inboxes(
            lambda agent_id, queued: events.publish(AgentQueueChanged(agent_id, queued))
        )

    def serving(self, agent_id: str) -> Serving | None:
        """The turn the agent is in now, if any."""
        return self._serving.get(agent_id)

    def waiting(self, agent_id: str) -> list[Waiting]:
        """The asks accepted for the agent that wait for their turn, the oldest first."""
        return list(self._waiting.get(agent_id, {}).values())

    def serve(self, agent_id: str, serving: Serving) -> None:
        """The agent's turn for ``serving.hop`` starts: it waits no longer."""
        self._stop_waiting(agent_id, serving.hop.ask_id)
        self._serving[agent_id] = serving

    def served(self, agent_id: str) -> None:
        self._serving.pop(agent_id, None)

    async def answer(
        self,
        agent_id: str,
        agent_name: str,
        waiting: Waiting,
        turn: Callable[[], Coroutine[object, object, str]],
        progress: ProgressListener | None,
        deadline: float,
        queue_cap: float,
    ) -> str:
        """Wait in the agent's line (shown as ``waiting``), then for ``turn``'s answer; at most
        ``queue_cap`` in line, and never past ``deadline`` (loop time)."""
        ask_id = waiting.hop.ask_id
        self._waiting.setdefault(agent_id, {})[ask_id] = waiting
        try:
            item = self._inboxes.submit(agent_id, turn)
            return await self._wait(agent_name, item, progress, deadline, queue_cap)
        finally:
            self._stop_waiting(agent_id, ask_id)

    async def between_turns(self, agent_id: str, job: Callable[[], Awaitable[bool]]) -> bool:
        """Run ``job`` in the agent's line of asks: after the turns before it, before the ones
        that come after (hibernation). Cancelling the caller withdraws it."""
        answer: list[bool] = []

        async def run() -> str:
            answer.append(await job())
            return ""

        item = self._inboxes.submit(agent_id, run)
        try:
            await asyncio.shield(item.done)
        finally:
            if not item.done.done():
                self._inboxes.inbox(agent_id).withdraw(item)
        return bool(answer and answer[0])

    def queue_length(self, agent_id: str) -> int:
        return self._inboxes.queue_length(agent_id)

    async def close(self) -> None:
        await self._inboxes.close()

    def _stop_waiting(self, agent_id: str, ask_id: str) -> None:
        line = self._waiting.get(agent_id)
        if line is not None and line.pop(ask_id, None) is not None and not line:
            del self._waiting[agent_id]

    async def _wait(
        self,
        agent_name: str,
        item: QueuedTurn[str],
        progress: ProgressListener | None,
        deadline: float,
        queue_cap: float,
    ) -> str:
        inbox = self._inboxes.inbox(item.agent_id)
        # Only a caller that follows its progress is told each move of the line: finding an
        # ask's place is a walk of the line, done for every waiter at every change.
        report = None
        if progress is not None:
            report = functools.partial(_report, inbox, item, agent_name, progress)
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
                    f"waited {wait_s:.3g} s in {agent_name}'s queue: "
                    + (
                        "longer than the queue cap"
                        if wait_s >= queue_cap
                        else "all the time its caller had left"
                    )
                ) from None
            # Shielded: cancelling this waiter must withdraw the ask, not cancel its result.
            return await asyncio.shield(item.done)
        finally:
            if report is not None:
                inbox.changed.remove(report)
            if not item.done.done():
                inbox.withdraw(item)


def _report(
    inbox: AgentInbox[str], item: QueuedTurn[str], agent_name: str, progress: ProgressListener
) -> None:
    position = inbox.position(item)
    if position is not None:
        progress(AskProgress(agent_name, position, inbox.running is not None))
