"""The UI's methods on the layouts: read them, and apply one op (``layout_ops``), saved and
published as ``LayoutChanged`` by the ``change_layout`` use case."""

from __future__ import annotations

from idea.app.terminal_stream import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.layout_ops import LAYOUT_OPS, apply_op
from idea.app.ui.params import choice
from idea.application.change_layout import change_layout
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.layout import Layouts


def layouts_get(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    return ctx.rt.layouts().to_json()


def layouts_apply(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    op = choice(p, "op", LAYOUT_OPS)
    created: JsonObject = {}

    def operation(layouts: Layouts) -> Layouts:
        changed, ids = apply_op(op, layouts, p, ctx.s.ids.new_id, ctx.s.agents)
        created.update(ids)
        return changed

    layouts = change_layout(ctx.s.layouts, ctx.rt.sessions, ctx.rt.bus, operation)
    return {"layouts": layouts.to_json(), **created}
