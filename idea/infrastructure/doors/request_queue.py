"""The file door's pending requests: each name known once, handed out oldest first.

Pure bookkeeping for the core loop (no I/O, no clock). ``offer`` adds a request file's name with
its modification time unless the name is known already (waiting, or being answered); ``take``
hands out the oldest (modification time, then name); ``put_back`` returns a taken one that must be
read again (it stays known); ``release`` forgets a name once its file has left the door, so a new
file under that name is a new request. Each operation costs O(log n) in the number waiting.
"""

from __future__ import annotations

import heapq
from typing import NamedTuple


class Pending(NamedTuple):
    """A request file waiting: ordered by modification time (ns), then by name."""

    mtime_ns: int
    name: str


class RequestQueue:
    def __init__(self) -> None:
        self._known: set[str] = set()
        self._waiting: list[Pending] = []  # a heap

    def offer(self, name: str, mtime_ns: int) -> bool:
        """Queue ``name`` unless it is known; True when it was not."""
        if name in self._known:
            return False
        self._known.add(name)
        heapq.heappush(self._waiting, Pending(mtime_ns, name))
        return True

    def take(self) -> Pending | None:
        """The oldest request waiting (it stays known until ``release``), or None."""
        return heapq.heappop(self._waiting) if self._waiting else None

    def put_back(self, pending: Pending) -> None:
        """A taken request waits again, in its place (it was never released)."""
        heapq.heappush(self._waiting, pending)

    def release(self, name: str) -> None:
        self._known.discard(name)

    def is_known(self, name: str) -> bool:
        return name in self._known

    def known(self) -> frozenset[str]:
        """A snapshot of every name known, for a scan that runs off the core loop."""
        return frozenset(self._known)

    def waiting(self) -> int:
        return len(self._waiting)

    def clear(self) -> None:
        """Forget everything (the files stay where they are)."""
        self._known.clear()
        self._waiting.clear()
