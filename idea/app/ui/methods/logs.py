"""The UI's reads of the logs: the delegation log's tail, and the problems (files set aside,
copied agents, asks lost when IdeA last ended)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import NotRequired, TypedDict, cast

from idea.app.terminals.streams import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import NoParams, bounded
from idea.app.ui.rows import LostAsk, lost_ask_rows
from idea.application.orchestrator_service import DelegationJson

DELEGATIONS_DEFAULT, DELEGATIONS_MAX = 100, 1000


@dataclass(frozen=True, slots=True)
class RecentParams:
    limit: int = bounded(1, DELEGATIONS_MAX, default=DELEGATIONS_DEFAULT)


class ProblemRow(TypedDict):
    """An ``IdeaError``'s ``{code, message, ...details}``: a file set aside (``CORRUPT_FILE``:
    ``path``, ``quarantined_to``, ``reason``) or an agent file copied under a new id."""

    code: str
    message: str
    path: NotRequired[str]
    quarantined_to: NotRequired[str]
    reason: NotRequired[str]
    agent: NotRequired[str]  # the copied agent's name


async def delegations_recent(
    ctx: UiContext, _: TerminalViews, p: RecentParams
) -> list[DelegationJson]:
    records = await asyncio.to_thread(ctx.rt.delegations.recent, p.limit)
    return cast(list[DelegationJson], [*records])  # the log's lines, as the file holds them


def problems_list(ctx: UiContext, _: TerminalViews, __: NoParams) -> list[ProblemRow | LostAsk]:
    rows: list[ProblemRow | LostAsk] = [
        cast(ProblemRow, {**p.to_dict(), "reason": p.reason}) for p in ctx.problems()
    ]
    rows += [cast(ProblemRow, {**n.to_dict()}) for n in ctx.s.reassigned]  # copied agent files
    rows += lost_ask_rows(ctx.rt)  # asks in flight when IdeA last ended
    return rows
