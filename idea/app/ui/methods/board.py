"""The UI's reads for the board and the logs: the work state, the delegation log's tail, and the
problems (files set aside, copied agents, asks lost when IdeA last ended)."""

from __future__ import annotations

import asyncio

from idea.app.terminal_stream import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import opt_int
from idea.app.ui.rows import (
    lost_ask_rows,
)
from idea.application.board import project_work_state
from idea.domain.json_types import JsonObject, JsonValue

DELEGATIONS_DEFAULT, DELEGATIONS_MAX = 100, 1000


def workstate_get(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    # A read, not a command: it is not logged as a delegation.
    return project_work_state(
        ctx.s.agents,
        ctx.s.work_state,
        ctx.rt.sessions,
        ctx.rt.ask,
        ctx.rt.core.hibernation,
    )


async def delegations_recent(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    limit = opt_int(p, "limit", DELEGATIONS_DEFAULT, 1, DELEGATIONS_MAX)
    records: list[JsonValue] = [*(await asyncio.to_thread(ctx.rt.delegations.recent, limit))]
    return records


def problems_list(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    rows: list[JsonValue] = [{**p.to_dict(), "reason": p.reason} for p in ctx.problems()]
    rows += [{**n.to_dict()} for n in ctx.s.reassigned]  # copied agent files
    rows += lost_ask_rows(ctx.rt)  # asks in flight when IdeA last ended
    return rows
