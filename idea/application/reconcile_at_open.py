"""Reconciliation at open (DESIGN.md §7 steps 1-2), run before any session is resumed.

A crash never runs "close project", so open is the only reliable place to repair what a dead run
left behind. Both steps are system acts on the stores (never through ``workstate.set``) and are
idempotent: a second open changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from idea.application.ports import Clock, LayoutStore, WorkStateStore
from idea.domain.layout import ClearLeafFlags, Layouts, reconcile


@dataclass(frozen=True, slots=True)
class LayoutReconciliation:
    layouts: Layouts
    cleared: tuple[ClearLeafFlags, ...]


def reconcile_layouts(store: LayoutStore) -> LayoutReconciliation:
    """Keep one host cell per agent; saves only if something changed."""
    layouts, actions = reconcile(store.load())
    if actions:
        store.save(layouts)
    return LayoutReconciliation(layouts, actions)


def reconcile_work_state(
    store: WorkStateStore, is_live: Callable[[str], bool], clock: Clock
) -> list[str]:
    """Prune expired rows and turn orphan busy rows idle; returns the agent ids set idle."""
    now = clock.now_ms()
    before = store.load()
    after = store.update(lambda state: state.prune(now).reconcile_orphans(is_live, now))
    return sorted(
        agent_id
        for agent_id, row in after.rows.items()
        if agent_id in before.rows and before.rows[agent_id].status.busy and not row.status.busy
    )
