"""Delegation chains (DESIGN.md §15): one root ask and every ask made while serving it.

Each accepted ask is a ``Hop`` of a ``Chain``: the root has depth 1, an ask an agent makes while
it answers a hop of depth d has depth d + 1 and joins that chain. A chain adds up the usage of
its hops' turns (its token budget is spent in it) and ends with its root.

``AskTrace`` is what one ask tells its door's log row: its chain, depth, how long it waited for
its turn and the turn's usage, filled in as they become known (so a failed ask is logged with
them too).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from idea.application.ports import Clock, IdGenerator
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.usage import NO_USAGE, Usage


@dataclass(slots=True, eq=False)
class Chain:
    chain_id: str
    root_requester: str | None  # agent id; None: the user
    root_target: str  # agent id
    started_at_ms: int
    depth: int = 1  # the deepest hop so far
    usage: Usage = NO_USAGE
    serving: dict[str, int] = field(default_factory=dict)  # agent id -> hops it answers now


@dataclass(frozen=True, slots=True, eq=False)
class Hop:
    ask_id: str
    chain: Chain
    depth: int
    requester_id: str | None
    target_id: str


@dataclass(slots=True)
class AskTrace:
    source: str | None = None  # the door, for the in-flight journal
    ask_id: str | None = None
    chain_id: str | None = None
    depth: int | None = None
    usage: Usage | None = None
    # Accepted to its turn starting; an ask that ended before its turn, all its time accepted.
    queued_ms: int | None = None

    def log_fields(self) -> JsonObject:
        usage: JsonValue = None if self.usage is None else self.usage.to_json()
        return {
            "chain_id": self.chain_id,
            "depth": self.depth,
            "usage": usage,
            "queued_ms": self.queued_ms,
        }


class Chains:
    def __init__(self, ids: IdGenerator, clock: Clock) -> None:
        self._ids = ids
        self._clock = clock
        self._open: dict[str, Chain] = {}

    def hop(self, parent: Hop | None, requester_id: str | None, target_id: str) -> Hop:
        """A new hop: the root of a new chain, or one level below ``parent`` in its chain.
        Not counted in the chain until ``enter``."""
        if parent is None:
            chain = Chain(self._ids.new_id(), requester_id, target_id, self._clock.now_ms())
            return Hop(self._ids.new_id(), chain, 1, requester_id, target_id)
        return Hop(self._ids.new_id(), parent.chain, parent.depth + 1, requester_id, target_id)

    def enter(self, hop: Hop) -> None:
        """The hop was accepted: its chain is in flight (until its root leaves)."""
        chain = hop.chain
        self._open.setdefault(chain.chain_id, chain)
        chain.depth = max(chain.depth, hop.depth)

    def leave(self, hop: Hop) -> None:
        if hop.depth == 1:
            self._open.pop(hop.chain.chain_id, None)

    def serving(self, hop: Hop, on: bool) -> None:
        """The hop's target starts (``on``) or ends its turn for it."""
        counts = hop.chain.serving
        counts[hop.target_id] = counts.get(hop.target_id, 0) + (1 if on else -1)
        if counts[hop.target_id] <= 0:
            del counts[hop.target_id]

    def spent(self, hop: Hop, usage: Usage) -> None:
        hop.chain.usage = hop.chain.usage + usage

    def in_flight(self) -> list[Chain]:
        return sorted(self._open.values(), key=lambda c: c.started_at_ms)


class UsageLedger:
    """Per agent: what its turns cost since the project opened, and how many turns reported it."""

    def __init__(self) -> None:
        self._totals: dict[str, tuple[Usage, int]] = {}

    def add(self, agent_id: str, usage: Usage) -> None:
        total, turns = self._totals.get(agent_id, (NO_USAGE, 0))
        self._totals[agent_id] = (total + usage, turns + 1)

    def of(self, agent_id: str) -> JsonObject | None:
        found = self._totals.get(agent_id)
        if found is None:
            return None
        return {**found[0].to_json(), "turns": found[1]}
