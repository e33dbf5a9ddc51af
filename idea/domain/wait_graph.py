"""Who waits on whom among asks in flight: an edge that would close a cycle is refused.

Pure: the application adds an edge before an ask waits and removes it when the ask ends.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from idea.domain.errors import Conflict


class WaitGraph:
    """Who waits on whom, for asks in flight; refuses an edge that would close a cycle."""

    def __init__(self) -> None:
        self._edges: dict[int, tuple[str, str]] = {}
        self._ids = itertools.count(1)

    def add(self, requester: str, target: str, names: Callable[[str], str]) -> int:
        """Raises ``Conflict`` naming the cycle if ``target`` already waits on ``requester``."""
        path = self._path(target, requester)
        if path is not None:
            cycle = " → ".join(names(agent) for agent in [requester, *path])
            raise Conflict(f"asking would dead-lock: {cycle} (each waits on the next)")
        edge = next(self._ids)
        self._edges[edge] = (requester, target)
        return edge

    def remove(self, edge: int) -> None:
        self._edges.pop(edge, None)

    def _path(self, start: str, goal: str) -> list[str] | None:
        """A chain of waits from ``start`` to ``goal`` (both included), if any."""
        frontier: list[list[str]] = [[start]]
        seen = {start}
        while frontier:
            path = frontier.pop(0)
            if path[-1] == goal:
                return path
            for waiter, waited in self._edges.values():
                if waiter == path[-1] and waited not in seen:
                    seen.add(waited)
                    frontier.append([*path, waited])
        return None
