"""Per-agent FIFO of turns: one inbox per agent, each turn started by the end of the one before
it; inboxes run in parallel.

Turns of one agent never interleave and start in arrival order. A waiter that goes away is
removed from the queue; a running turn whose waiter goes away is cancelled (the session
interrupts it). Each queued item can report its position (0 = running) for progress messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")

Job = Callable[[], Coroutine[object, object, T]]


@dataclass(eq=False)
class QueuedTurn(Generic[T]):
    """One request waiting for, or holding, its agent's turn."""

    id: int
    agent_id: str
    job: Job[T]
    done: asyncio.Future[T]
    started: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[T] | None = None


class AgentInbox(Generic[T]):
    """The line of one agent. No consumer task: the next turn is started by the end of the one
    before it (its task's done callback), one loop iteration after it, not three."""

    def __init__(self, agent_id: str) -> None:
        self.agent_id = agent_id
        self._queue: deque[QueuedTurn[T]] = deque()
        self._running: QueuedTurn[T] | None = None
        self.changed: list[Callable[[], None]] = []

    @property
    def running(self) -> QueuedTurn[T] | None:
        return self._running

    def position(self, item: QueuedTurn[T]) -> int | None:
        """0 while running, k ≥ 1 when k-th in line, None once finished or removed."""
        if item is self._running:
            return 0
        for index, queued in enumerate(self._queue, start=1):
            if queued is item:
                return index
        return None

    def __len__(self) -> int:
        return len(self._queue) + (1 if self._running is not None else 0)

    def put(self, item: QueuedTurn[T]) -> None:
        self._queue.append(item)
        self._notify()
        if self._running is None:
            self._start_next()

    def withdraw(self, item: QueuedTurn[T]) -> None:
        """The waiter went away: drop the item if queued, cancel its turn if running."""
        if item is self._running:
            if item.task is not None:
                item.task.cancel()
            return
        with contextlib.suppress(ValueError):
            self._queue.remove(item)
            self._notify()

    async def close(self) -> None:
        for item in list(self._queue):
            item.done.cancel()
        self._queue.clear()
        turn = self._running.task if self._running is not None else None
        if turn is not None:  # its outcome goes to its waiter: here it only has to have ended
            turn.cancel()
            await asyncio.gather(turn, return_exceptions=True)

    def _start_next(self) -> None:
        if not self._queue:
            return
        item = self._queue.popleft()
        self._running = item
        # The line's own task, not a TaskSet's: a turn's failure is its waiter's result, not an
        # error to log. ``withdraw`` cancels it; ``close`` cancels and awaits it. It is made
        # before its waiter is woken, so it runs first.
        item.task = asyncio.create_task(item.job(), name=f"turn-{self.agent_id}-{item.id}")
        item.task.add_done_callback(lambda task: self._ended(item, task))
        item.started.set()
        self._notify()

    def _ended(self, item: QueuedTurn[T], task: asyncio.Task[T]) -> None:
        """A turn ended, however: the next one starts, then its waiter is told the outcome (so the
        next turn is not queued behind what the waiter does with it)."""
        self._running = None
        self._notify()
        try:
            self._start_next()
        finally:
            if not item.done.done():
                if task.cancelled():
                    item.done.cancel()
                elif (error := task.exception()) is not None:  # delivered, whatever it is
                    item.done.set_exception(error)
                else:
                    item.done.set_result(task.result())

    def _notify(self) -> None:
        for callback in list(self.changed):
            callback()


class Inboxes(Generic[T]):
    """All agents' inboxes; created on first use."""

    def __init__(self, on_length: Callable[[str, int], None] | None = None) -> None:
        """``on_length(agent_id, queue_length)`` is called each time an inbox's length changes."""
        self._inboxes: dict[str, AgentInbox[T]] = {}
        self._ids = itertools.count(1)
        self._on_length = on_length
        self._lengths: dict[str, int] = {}

    def inbox(self, agent_id: str) -> AgentInbox[T]:
        if agent_id not in self._inboxes:
            inbox: AgentInbox[T] = AgentInbox(agent_id)
            inbox.changed.append(lambda: self._length_changed(agent_id))
            self._inboxes[agent_id] = inbox
        return self._inboxes[agent_id]

    def _length_changed(self, agent_id: str) -> None:
        length = self.queue_length(agent_id)
        if self._on_length is not None and self._lengths.get(agent_id, 0) != length:
            self._lengths[agent_id] = length
            self._on_length(agent_id, length)

    def submit(self, agent_id: str, job: Job[T]) -> QueuedTurn[T]:
        item: QueuedTurn[T] = QueuedTurn(
            next(self._ids), agent_id, job, asyncio.get_running_loop().create_future()
        )
        self.inbox(agent_id).put(item)
        return item

    def queue_length(self, agent_id: str) -> int:
        inbox = self._inboxes.get(agent_id)
        return len(inbox) if inbox is not None else 0

    async def close(self) -> None:
        for inbox in self._inboxes.values():
            await inbox.close()
