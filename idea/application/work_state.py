"""The work state's rows as written: an agent sets its OWN row (``workstate.set``); anyone reads
them all (``project_work_state``).

Self-only is a rule of the doors' identity: the row written is always the requester's, and a
request without an agent identity is FORBIDDEN. System acts (reconciliation at open, the record of
a delegation, a rate limit's ``blocked``: DESIGN.md §15) go to the store directly and never
through ``set_own_row``.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import NotRequired, TypedDict

from idea.application.caller import Caller
from idea.application.event_bus import EventBus, EventPublisher
from idea.application.ports import AgentStore, Clock, WorkStateStore
from idea.domain.commands import SetWorkState
from idea.domain.errors import Forbidden, IdeaError, NotFound
from idea.domain.events import AgentRateLimited, AgentTurnFinished, DomainEvent, WorkStateChanged
from idea.domain.json_types import json_object
from idea.domain.outcome import OrchestratorOutcome
from idea.domain.usage import RateLimitJson
from idea.domain.work_state import Status, WorkRow, WorkState

log = logging.getLogger(__name__)


class LastDelegationJson(TypedDict):  # a row's last ask: whom, when, how it ended, which chain
    target: str
    at_ms: int
    ok: bool
    code: str | None
    chain_id: NotRequired[str | None]
    depth: NotRequired[int | None]


async def set_own_row(
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
    await store.flushed()
    events.publish(WorkStateChanged(requester_id, command.status))
    return after.rows[requester_id]


async def record_delegation(
    store: WorkStateStore,
    requester_id: str,
    delegation: LastDelegationJson,
    clock: Clock,
) -> None:
    """System act: note on the requester's row whom it last delegated to, and how it went."""
    now = clock.now_ms()

    def change(state: WorkState) -> WorkState:
        current = state.rows.get(requester_id)
        row = (
            replace(
                current,
                last_delegation=json_object(delegation),
                updated_at_ms=max(now, current.updated_at_ms + 1),
            )
            if current is not None
            else WorkRow(requester_id, Status.IDLE, now, last_delegation=json_object(delegation))
        )
        return state.merge(row)

    store.update(change)
    await store.flushed()


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
    row = await set_own_row(command, caller.requester_id, agents, work_state, events, clock)
    return OrchestratorOutcome(f"work state set to {row.status.value}", data=row.to_json())


RATE_LIMIT_KEY = "rate_limit"


class RateLimitRows:
    """System act (DESIGN.md §15): a CLI's rate-limit refusal marks its agent's row ``blocked``
    with the reason and reset time; the agent's next successful turn clears it."""

    def __init__(self, store: WorkStateStore, bus: EventBus, clock: Clock) -> None:
        self._store = store
        self._bus = bus
        self._clock = clock
        self.close = bus.subscribe(self._on_event)

    def _on_event(self, event: DomainEvent) -> None:
        if isinstance(event, AgentRateLimited):
            self._set(event.agent_id, event.limit.to_json())
        elif isinstance(event, AgentTurnFinished) and event.ok:
            row = self._store.load().rows.get(event.agent_id)
            if row is not None and RATE_LIMIT_KEY in row.extra:
                self._set(event.agent_id, None)

    def _set(self, agent_id: str, limit: RateLimitJson | None) -> None:
        now = self._clock.now_ms()

        def change(state: WorkState) -> WorkState:
            current = state.rows.get(agent_id) or WorkRow(agent_id, Status.IDLE, now)
            extra = {k: v for k, v in current.extra.items() if k != RATE_LIMIT_KEY}
            if limit is not None:
                extra[RATE_LIMIT_KEY] = json_object(limit)
            row = replace(
                current,
                status=Status.BLOCKED if limit is not None else Status.IDLE,
                progress=f"rate-limited: {limit['reason']}" if limit is not None else None,
                extra=extra,
                updated_at_ms=max(now, current.updated_at_ms + 1),
            )
            return state.merge(row)

        try:
            after = self._store.update(change)
        except IdeaError as exc:  # the work state is a view: a failing store is logged, not fatal
            log.warning("could not mark %s rate-limited: %s", agent_id, exc.message)
            return
        self._bus.publish(WorkStateChanged(agent_id, after.rows[agent_id].status))
