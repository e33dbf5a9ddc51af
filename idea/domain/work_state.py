"""The work state: one row per agent, last writer wins by ``updated_at_ms``.

Rows are never trusted across a crash: ``reconcile_orphans`` turns the busy rows of agents with no
live session into ``idle`` (a system act, DESIGN.md §7 step 2). Rows older than the TTL are pruned.
Unknown JSON keys are kept in ``extra`` and written back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue

TTL_MS = 6 * 60 * 60 * 1000
STALE_PROGRESS = "stale: the session ended before this work finished"
VERSION = 1


class Status(StrEnum):
    WORKING = "working"
    WAITING = "waiting"
    BLOCKED = "blocked"
    IDLE = "idle"

    @property
    def busy(self) -> bool:
        return self is not Status.IDLE


def parse_status(value: object, where: str = "status") -> Status:
    try:
        return Status(str(value))
    except ValueError:
        known = ", ".join(s.value for s in Status)
        raise Invalid(f"{where} must be one of {known}, not {value!r}") from None


@dataclass(frozen=True, slots=True)
class WorkRow:
    agent_id: str
    status: Status
    updated_at_ms: int
    intent: str | None = None
    ticket: str | None = None
    last_delegation: JsonValue = None
    progress: str | None = None
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        out: JsonObject = dict(self.extra)
        out.update(
            {
                "agent_id": self.agent_id,
                "status": self.status.value,
                "intent": self.intent,
                "ticket": self.ticket,
                "last_delegation": self.last_delegation,
                "progress": self.progress,
                "updated_at_ms": self.updated_at_ms,
            }
        )
        return out

    @staticmethod
    def from_json(agent_id: str, obj: JsonValue) -> WorkRow:
        where = f"agents.{agent_id}"
        if not isinstance(obj, dict):
            raise Invalid(f"{where} must be an object")
        updated = obj.get("updated_at_ms")
        if not isinstance(updated, int) or isinstance(updated, bool):
            raise Invalid(f"{where}.updated_at_ms must be an integer")
        known = {"agent_id", "status", "intent", "ticket", "last_delegation", "progress"}
        return WorkRow(
            agent_id=agent_id,
            status=parse_status(obj.get("status"), f"{where}.status"),
            updated_at_ms=updated,
            intent=_opt_str(obj, "intent", where),
            ticket=_opt_str(obj, "ticket", where),
            last_delegation=obj.get("last_delegation"),
            progress=_opt_str(obj, "progress", where),
            extra={k: v for k, v in obj.items() if k not in known | {"updated_at_ms"}},
        )


@dataclass(frozen=True, slots=True)
class WorkState:
    rows: Mapping[str, WorkRow] = field(default_factory=dict)
    extra: JsonObject = field(default_factory=dict)

    def merge(self, row: WorkRow) -> WorkState:
        """Last writer wins: a row older than the stored one is ignored (ties go to ``row``)."""
        current = self.rows.get(row.agent_id)
        if current is not None and row.updated_at_ms < current.updated_at_ms:
            return self
        return replace(self, rows={**self.rows, row.agent_id: row})

    def prune(self, now_ms: int, ttl_ms: int = TTL_MS) -> WorkState:
        """Drop rows not updated for longer than ``ttl_ms``."""
        kept = {k: r for k, r in self.rows.items() if now_ms - r.updated_at_ms <= ttl_ms}
        return self if len(kept) == len(self.rows) else replace(self, rows=kept)

    def reconcile_orphans(self, is_live: Callable[[str], bool], now_ms: int) -> WorkState:
        """Busy rows whose agent has no live session become idle (DESIGN.md §7 step 2).

        Intent is kept as a trace; ticket and last delegation are cleared (that rendezvous is
        dead); progress gets a stale marker; the fresh timestamp makes the change win LWW.
        """
        rows = dict(self.rows)
        changed = False
        for agent_id, row in self.rows.items():
            if row.status.busy and not is_live(agent_id):
                rows[agent_id] = replace(
                    row,
                    status=Status.IDLE,
                    ticket=None,
                    last_delegation=None,
                    progress=STALE_PROGRESS,
                    updated_at_ms=max(now_ms, row.updated_at_ms + 1),
                )
                changed = True
        return replace(self, rows=rows) if changed else self

    def to_json(self) -> JsonObject:
        out: JsonObject = dict(self.extra)
        out["version"] = VERSION
        out["agents"] = {k: r.to_json() for k, r in self.rows.items()}
        return out

    @staticmethod
    def from_json(obj: JsonValue) -> WorkState:
        if not isinstance(obj, dict):
            raise Invalid("live-state must be a JSON object")
        agents = obj.get("agents", {})
        if not isinstance(agents, dict):
            raise Invalid("live-state field 'agents' must be an object")
        rows = {agent_id: WorkRow.from_json(agent_id, row) for agent_id, row in agents.items()}
        extra = {k: v for k, v in obj.items() if k not in ("version", "agents")}
        return WorkState(rows=rows, extra=extra)


def _opt_str(obj: JsonObject, key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise Invalid(f"{where}.{key} must be a string or null")
