"""The UI's methods on the layouts: read them, and apply one op (``layout_ops``), saved and
published as ``LayoutChanged`` by the ``change_layout`` use case."""

from __future__ import annotations

from idea.app.terminals.streams import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.layout_ops import CreatedIds, LayoutOp, apply_op
from idea.app.ui.params import NoParams
from idea.application.change_layout import change_layout
from idea.domain.layout import Layouts, LayoutsJson


class Applied(CreatedIds):
    layouts: LayoutsJson


def layouts_get(ctx: UiContext, _: TerminalViews, __: NoParams) -> LayoutsJson:
    return ctx.rt.layouts().to_json()


def layouts_apply(ctx: UiContext, _: TerminalViews, p: LayoutOp) -> Applied:
    created: CreatedIds = {}

    def operation(layouts: Layouts) -> Layouts:
        changed, ids = apply_op(p, layouts, ctx.s.ids.new_id, ctx.s.agents)
        created.update(ids)
        return changed

    layouts = change_layout(ctx.s.layouts, ctx.rt.sessions, ctx.rt.bus, operation)
    return {"layouts": layouts.to_json(), **created}
