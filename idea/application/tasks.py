"""``TaskSet``: the owner of background tasks, like a trio nursery that outlives one block.

Every task spawned here is referenced until it ends (the event loop keeps only weak references),
a failure is logged instead of vanishing, and ``close`` cancels and awaits whatever is left. No
background task is ever created without an owner that awaits or cancels it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


class TaskSet:
    def __init__(self, owner: str) -> None:
        self._owner = owner
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, T], name: str | None = None) -> asyncio.Task[T]:
        """Start ``work`` on the running loop, owned by this set."""
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._ended)
        return task

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[asyncio.Task[Any]]:
        return iter(list(self._tasks))

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def wait(self, timeout: float | None = None) -> None:
        """Let the tasks end by themselves for up to ``timeout`` s, then cancel the late ones."""
        if self._tasks:
            _, late = await asyncio.wait(list(self._tasks), timeout=timeout)
            for task in late:
                task.cancel()
        await self.close()

    async def close(self) -> None:
        """Cancel every task left and wait until each has ended."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("%s: task %s failed", self._owner, task.get_name(), exc_info=error)
