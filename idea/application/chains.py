"""Delegation chains (DESIGN.md §15): one root ask and every ask made while serving it.

Each accepted ask is a ``Hop`` of a ``Chain``: the root has depth 1, an ask an agent makes while
it answers a hop of depth d has depth d + 1 and joins that chain. A chain adds up the usage of
its hops' turns (its token budget is spent in it) and ends with its root.

A hop knows its own ask id and its parent's (the hop its requester was serving), so the ask tree
is kept, never rebuilt from times and names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from idea.application.ports import Clock, IdGenerator
from idea.domain.outcome import AskTrace
from idea.domain.usage import NO_USAGE, Usage, UsageJson


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
    parent_ask_id: str | None = None  # the hop being served when this one was asked

    def trace(self) -> AskTrace:
        """The hop's place in the ask tree, before its turn says anything more."""
        return AskTrace(self.ask_id, self.chain.chain_id, self.depth, self.parent_ask_id)


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
        return Hop(
            self._ids.new_id(),
            parent.chain,
            parent.depth + 1,
            requester_id,
            target_id,
            parent.ask_id,
        )

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

    def of(self, agent_id: str) -> UsageJson | None:
        found = self._totals.get(agent_id)
        if found is None:
            return None
        return {**found[0].to_json(), "turns": found[1]}
