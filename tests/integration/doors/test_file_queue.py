"""The file door under thousands of requests: real files and watcher, a handler the test holds.

Requests are taken oldest first, never more than ``MAX_IN_FLIGHT`` are answered at once, and
``stop`` returns with thousands queued, leaving them on disk for the next door.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from idea.infrastructure.doors.file import MAX_IN_FLIGHT, FileDoor
from tests.waiting import until

BODY = json.dumps({"action": "workstate.get"})


def drop(folder: Path, count: int) -> list[str]:
    """``count`` requests whose arrival order (mtime) is the reverse of their names' order;
    returns their ids oldest first."""
    folder.mkdir(parents=True, exist_ok=True)
    ids = [f"r{i:05d}" for i in range(count)]
    oldest_first = list(reversed(ids))
    base = 1_700_000_000 * 10**9
    for age, request_id in enumerate(oldest_first):
        path = folder / f"{request_id}.request.json"
        path.write_text(BODY, encoding="utf-8")
        os.utime(path, ns=(base + age * 10**6, base + age * 10**6))
    return oldest_first


class HeldHandler:
    """Answers only when the test opens the current gate; counts how many wait at once."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.running = 0
        self.most_at_once = 0
        self.gates = [asyncio.Event()]

    async def __call__(self, request_id, body, problem):
        self.started.append(request_id)
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        try:
            await self.gates[-1].wait()
        finally:
            self.running -= 1
        return {"id": request_id, "ok": True, "detail": "answered"}

    def open_gate(self) -> None:
        self.gates.append(asyncio.Event())
        self.gates[-2].set()


@pytest.mark.timeout(60)
async def test_requests_are_answered_oldest_first_never_more_than_the_bound_at_once(tmp_path):
    folder = tmp_path / "orchestrator"
    oldest_first = drop(folder, 4 * MAX_IN_FLIGHT)
    handler = HeldHandler()
    door = FileDoor(folder, handler)
    await door.start()
    try:
        for round_ in range(4):
            expected = oldest_first[round_ * MAX_IN_FLIGHT : (round_ + 1) * MAX_IN_FLIGHT]
            await until(
                lambda n=round_: len(handler.started) >= (n + 1) * MAX_IN_FLIGHT,
                20,
                f"round {round_} taken",
            )
            left = len(oldest_first) - (round_ + 1) * MAX_IN_FLIGHT
            await until(lambda n=left: door.waiting() == n, 20, "the others queued")
            assert handler.most_at_once == MAX_IN_FLIGHT
            assert len(handler.started) == (round_ + 1) * MAX_IN_FLIGHT
            # Each round is the oldest requests left (within a round, the order the threads
            # finished reading them).
            assert set(handler.started[round_ * MAX_IN_FLIGHT :]) == set(expected)
            handler.open_gate()
        await until(lambda: door.answered == len(oldest_first), 20, "every request answered")
    finally:
        await door.stop()
    assert len(list((folder / "done").glob("*.request.json"))) == len(oldest_first)


@pytest.mark.timeout(120)
async def test_stop_returns_with_thousands_queued_and_leaves_them_for_next_time(tmp_path):
    folder = tmp_path / "orchestrator"
    count = 3000
    drop(folder, count)
    handler = HeldHandler()  # its gate never opens: the first requests hang
    door = FileDoor(folder, handler)
    await door.start()
    try:
        await until(lambda: len(handler.started) == MAX_IN_FLIGHT, 30, "the first batch taken")
        await until(lambda: door.waiting() == count - MAX_IN_FLIGHT, 30, "the rest queued")
    finally:
        await door.stop()  # the test's timeout is the bound: stop must return
    assert len(handler.started) == MAX_IN_FLIGHT
    assert door.answered == 0
    assert len(list(folder.glob("*.request.json"))) == count  # nothing lost, nothing moved
    assert not list(folder.glob("*.response.json"))

    async def answer(request_id, body, problem):
        return {"id": request_id, "ok": True, "detail": "answered"}

    again = FileDoor(folder, answer)
    await again.start()
    try:
        await until(lambda: again.answered == count, 90, "answered by the next door")
    finally:
        await again.stop()
    assert not list(folder.glob("*.request.json"))


@pytest.mark.timeout(60)
async def test_the_same_id_dropped_again_is_archived_beside_the_older_ones(tmp_path):
    folder = tmp_path / "orchestrator"
    folder.mkdir()
    (folder / "done").mkdir()
    (folder / "done" / "same-1.request.json").write_text("older", encoding="utf-8")

    async def answer(request_id, body, problem):
        return {"id": request_id, "ok": True, "detail": str(body)}

    door = FileDoor(folder, answer)
    await door.start()
    try:
        for turn in range(4):
            tmp = folder / ".same.tmp"
            tmp.write_text(json.dumps({"turn": turn}), encoding="utf-8")
            os.replace(tmp, folder / "same.request.json")
            await until(lambda t=turn: door.answered == t + 1, 15, f"turn {turn} answered")
            await until(lambda: not (folder / "same.request.json").exists(), 15, "archived")
    finally:
        await door.stop()
    done = folder / "done"
    turn_of = {p.name: p.read_text(encoding="utf-8") for p in done.iterdir()}
    # The older file is kept; each turn takes the next free name, none is overwritten.
    assert turn_of == {
        "same-1.request.json": "older",
        "same.request.json": json.dumps({"turn": 0}),
        "same-2.request.json": json.dumps({"turn": 1}),
        "same-3.request.json": json.dumps({"turn": 2}),
        "same-4.request.json": json.dumps({"turn": 3}),
    }
