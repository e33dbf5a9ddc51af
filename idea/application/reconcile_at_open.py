"""Reconciliation at open (DESIGN.md §7 steps 1-2; §15: asks in flight), before any resume.

A crash never runs "close project", so open is the only reliable place to repair what a dead run
left behind. Both steps are system acts on the stores (never through ``workstate.set``) and are
idempotent: a second open changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from idea.application.ports import AskJournal, Clock, DelegationLog, LayoutStore, WorkStateStore
from idea.domain.json_types import JsonObject, JsonValue
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


LOST_MAX = 1000  # more than this many asks in flight is not a journal the app wrote


def reconcile_lost_asks(journal: AskJournal, log: DelegationLog, clock: Clock) -> list[JsonObject]:
    """Asks the journal saw start and never end (the app died under them) are logged ``LOST``;
    the journal is then emptied. The records returned (bounded) are what the UI shows.

    A file-door ask's request file is still there: the file door answers it again."""
    lost: list[JsonObject] = []
    for start in journal.unfinished()[-LOST_MAX:]:
        row: JsonObject = {
            "at_ms": clock.now_ms(),
            "source": _short(start.get("source")),
            "requester": _short(start.get("requester")),
            "requester_claimed": start.get("source") != "mcp",
            "requester_proven": False,
            "action": "agent.message",
            "target": _short(start.get("target")),
            "ok": False,
            "code": "LOST",
            "ask_id": _short(start.get("ask_id")),
            "parent_ask_id": _short(start.get("parent_ask_id")),
            "chain_id": _short(start.get("chain_id")),
            "depth": _small_int(start.get("depth")),
            "started_at_ms": _small_int(start.get("at_ms")),
            "usage": None,
        }
        log.append(row)
        lost.append(row)
    journal.reset()
    return lost


def _short(value: JsonValue) -> str | None:
    return value[:256] if isinstance(value, str) else None


def _small_int(value: JsonValue) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**53:
        return None
    return value
