"""``Inboxes.close``: the queued turns are dropped and the running one is cancelled and has
ended by the time close returns (its session's interrupt is not left running behind)."""

from __future__ import annotations

import asyncio

from idea.application.agent_inbox import Inboxes


async def test_close_returns_once_the_running_turn_has_ended() -> None:
    inboxes: Inboxes[str] = Inboxes()
    started = asyncio.Event()
    ended: list[str] = []

    async def turn() -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await asyncio.sleep(0.01)  # interrupting the CLI takes a moment
            ended.append("interrupted")
            raise
        return "never"

    before = asyncio.all_tasks()
    running = inboxes.submit("a", turn)
    queued = inboxes.submit("a", turn)
    await asyncio.wait_for(started.wait(), 5)
    await inboxes.close()
    assert ended == ["interrupted"]
    assert running.task is not None and running.task.cancelled()
    assert queued.done.cancelled() and queued.task is None
    assert [task for task in asyncio.all_tasks() - before if not task.done()] == []
