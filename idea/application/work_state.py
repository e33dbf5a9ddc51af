"""The work-state board: an agent sets its OWN row; anyone reads the whole board.

Self-only is a rule of the doors' identity: the row written is always the requester's, and a
request without an agent identity is FORBIDDEN. System acts (reconciliation at open, the record of
a delegation) go to the store directly and never through ``set_own_row``.
"""

from __future__ import annotations

from dataclasses import replace

from idea.application.caller import Caller
from idea.application.event_bus import EventPublisher
from idea.application.ports import AgentStore, Clock, WorkStateStore
from idea.domain.commands import SetWorkState
from idea.domain.errors import Forbidden, NotFound
from idea.domain.events import WorkStateChanged
from idea.domain.json_types import JsonObject
from idea.domain.outcome import OrchestratorOutcome
from idea.domain.work_state import Status, WorkRow, WorkState


def set_own_row(
    command: SetWorkState,
    requester_id: str | None,
    agents: AgentStore,
    store: WorkStateStore,
    events: EventPublisher,
    clock: Clock,
) -> WorkRow:
    """Raises ``Forbidden`` when the requester is not an agent of the project."""
    if requester_id is None:
        raise Forbidden(
            "workstate.set is for an agent's own row: the request has no agent identity"
        )
    try:
        agents.get_by_id(requester_id)
    except NotFound:
        raise Forbidden(f"workstate.set: {requester_id} is not an agent of this project") from None
    now = clock.now_ms()

    def change(state: WorkState) -> WorkState:
        current = state.rows.get(requester_id)
        row = WorkRow(
            agent_id=requester_id,
            status=command.status,
            updated_at_ms=max(now, current.updated_at_ms + 1) if current else now,
            intent=command.intent,
            ticket=command.ticket,
            progress=command.progress,
            last_delegation=current.last_delegation if current else None,
            extra=current.extra if current else {},
        )
        return state.merge(row)

    after = store.update(change)
    events.publish(WorkStateChanged(requester_id, command.status))
    return after.rows[requester_id]


def record_delegation(
    store: WorkStateStore,
    requester_id: str,
    delegation: JsonObject,
    clock: Clock,
) -> None:
    """System act: note on the requester's row whom it last delegated to, and how it went."""
    now = clock.now_ms()

    def change(state: WorkState) -> WorkState:
        current = state.rows.get(requester_id)
        row = (
            replace(
                current,
                last_delegation=delegation,
                updated_at_ms=max(now, current.updated_at_ms + 1),
            )
            if current is not None
            else WorkRow(requester_id, Status.IDLE, now, last_delegation=delegation)
        )
        return state.merge(row)

    store.update(change)


async def set_work_state(
    command: SetWorkState,
    caller: Caller,
    *,
    agents: AgentStore,
    work_state: WorkStateStore,
    events: EventPublisher,
    clock: Clock,
) -> OrchestratorOutcome:
    """The handler of ``workstate.set``: the caller's own row, for a caller the door proved."""
    if caller.requester_id is not None and not caller.verified:
        raise Forbidden(
            "workstate.set: a request file's requester is only claimed, so it cannot set an "
            "agent's row; an agent sets its own with the idea_workstate_set MCP tool"
        )
    row = set_own_row(command, caller.requester_id, agents, work_state, events, clock)
    return OrchestratorOutcome(f"work state set to {row.status.value}", data=row.to_json())
