"""Reconciliation of the layouts at open (DESIGN §7 step 1), as a pure planner: ``plan`` what a
crash left inconsistent, ``apply`` it.

Invariant: only cells with something to clear get an action, so a reconciled layout plans nothing;
applying never touches a cell bound to another agent than the one planned for.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from idea.domain.layout.layouts import Layouts
from idea.domain.layout.tree import has_flags


@dataclass(frozen=True, slots=True)
class ClearLeafFlags:
    """Reconciliation action: forget that ``leaf_id`` hosted a session of ``agent_id``."""

    leaf_id: str
    agent_id: str


def plan_reconciliation(layouts: Layouts) -> tuple[ClearLeafFlags, ...]:
    """Reconciliation at open (DESIGN §7 step 1): clear the run flags of every cell of an agent
    but its host (see ``Layouts.host_leaf``).

    Only cells with something to clear get an action, so a reconciled layout plans nothing.
    Duplicate cells keep their binding: they stay as dead views of the agent.
    """
    agents = {leaf.agent for leaf in layouts.leaves() if leaf.agent is not None}
    hosts = {agent: host.id for agent in agents if (host := layouts.host_leaf(agent)) is not None}
    return tuple(
        ClearLeafFlags(leaf.id, leaf.agent)
        for leaf in layouts.leaves()
        if leaf.agent is not None and leaf.id != hosts[leaf.agent] and has_flags(leaf)
    )


def apply_reconciliation(layouts: Layouts, actions: Iterable[ClearLeafFlags]) -> Layouts:
    """Apply a plan. An unknown cell is ``NotFound`` (the plan was made for another layout); a
    cell re-bound to another agent since planning is left alone (its flags are not the agent's).
    """
    result = layouts
    for action in actions:
        leaf = result.find_leaf(action.leaf_id)
        if leaf.agent == action.agent_id:
            result = result.set_running(leaf.id, False)
    return result


def reconcile(layouts: Layouts) -> tuple[Layouts, tuple[ClearLeafFlags, ...]]:
    actions = plan_reconciliation(layouts)
    return apply_reconciliation(layouts, actions), actions
