"""The agents' inboxes: one turn at a time per agent in arrival order, each outcome to its
waiter, the next turn started as soon as one ends; ``close`` drops the queued turns and cancels
the running one, which has ended by the time close returns (its session's interrupt is not left
running behind)."""

from __future__ import annotations

import asyncio

import pytest

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


async def test_turns_run_one_at_a_time_in_order_each_result_to_its_waiter() -> None:
    inboxes: Inboxes[str] = Inboxes()
    log: list[str] = []

    def turn(name: str, fails: bool = False):
        async def run() -> str:
            log.append(f"start {name}")
            await asyncio.sleep(0.001)
            log.append(f"end {name}")
            if fails:
                raise ValueError(name)
            return name

        return run

    first = inboxes.submit("a", turn("1"))
    failing = inboxes.submit("a", turn("2", fails=True))
    withdrawn = inboxes.submit("a", turn("3"))
    last = inboxes.submit("a", turn("4"))
    other = inboxes.submit("b", turn("b"))
    inboxes.inbox("a").withdraw(withdrawn)
    assert await asyncio.wait_for(first.done, 5) == "1"
    with pytest.raises(ValueError, match="2"):
        await asyncio.wait_for(failing.done, 5)
    assert await asyncio.wait_for(last.done, 5) == "4"
    assert await asyncio.wait_for(other.done, 5) == "b"
    mine = [line for line in log if not line.endswith(" b")]
    assert mine == ["start 1", "end 1", "start 2", "end 2", "start 4", "end 4"]
    assert log.index("start b") < log.index("end 1")  # another agent's line runs meanwhile
    assert withdrawn.task is None and inboxes.queue_length("a") == 0
    await inboxes.close()


async def test_the_next_turn_starts_the_loop_iteration_after_the_one_before_ends() -> None:
    """No hand-off through a consumer task: a turn's end starts the next one at once."""
    inboxes: Inboxes[int] = Inboxes()
    ticks = 0
    seen: dict[str, int] = {}

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    def turn(name: str):
        async def run() -> int:
            seen[f"start {name}"] = ticks
            await asyncio.sleep(0.001)
            seen[f"end {name}"] = ticks
            return 0

        return run

    counting = asyncio.create_task(ticker())
    try:
        inboxes.submit("a", turn("1"))
        second = inboxes.submit("a", turn("2"))
        await asyncio.wait_for(second.done, 5)
    finally:
        counting.cancel()
        await inboxes.close()
    assert seen["start 2"] - seen["end 1"] <= 2
