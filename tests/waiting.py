"""The one bounded wait of the suite: poll a condition until it holds, or fail naming it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

POLL_S = 0.01


async def until(
    predicate: Callable[[], object], timeout: float = 10.0, what: str = "", poll_s: float = POLL_S
) -> None:
    """Wait on the event loop until ``predicate()`` is true; AssertionError after ``timeout``.
    ``poll_s``: longer for a predicate that costs (one that lists the system's processes)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"not within {timeout:g} s: {what or predicate}"
        await asyncio.sleep(poll_s)


def until_blocking(
    predicate: Callable[[], object], timeout: float = 10.0, what: str = "", poll_s: float = 0.1
) -> None:
    """``until`` for code off the event loop (desktop tests, child processes)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"not within {timeout:g} s: {what or predicate}"
        time.sleep(poll_s)
