"""``layouts.apply``'s operations (ui/API.md): the params of each op read into one call of the
domain's ``Layouts``; the ids of what the op creates are made here and returned."""

from __future__ import annotations

from collections.abc import Callable

from idea.app.ui.params import choice, opt_bool, opt_choice, opt_text, text
from idea.application.ports import AgentStore
from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject
from idea.domain.layout import DEFAULT_TAB_TITLE, DIRECTIONS, VIEWS, Layouts

LAYOUT_OPS = (
    *("split", "close", "add_tab", "close_tab", "set_active_tab", "rename_tab", "resize"),
    "bind",
)


def apply_op(
    op: str, layouts: Layouts, p: JsonObject, new_id: Callable[[], str], agents: AgentStore
) -> tuple[Layouts, JsonObject]:
    """``op`` (one of ``LAYOUT_OPS``) on ``layouts``; the new layouts and the ids it created.
    Raises what the params or the domain operation raise, naming the field."""
    if op == "split":
        leaf, split = new_id(), new_id()
        direction = choice(p, "direction", DIRECTIONS)
        after = opt_bool(p, "after", default=True)
        return layouts.split(text(p, "leaf_id"), direction, leaf, split, after), {"leaf_id": leaf}
    if op == "close":
        return layouts.close(text(p, "leaf_id")), {}
    if op == "add_tab":
        tab, leaf = new_id(), new_id()
        title = opt_text(p, "title") or DEFAULT_TAB_TITLE
        activate = opt_bool(p, "activate", default=True)
        return layouts.add_tab(tab, title, leaf, activate=activate), {
            "tab_id": tab,
            "leaf_id": leaf,
        }
    if op == "close_tab":
        return layouts.close_tab(text(p, "tab_id")), {}
    if op == "set_active_tab":
        return layouts.set_active_tab(text(p, "tab_id")), {}
    if op == "rename_tab":
        return layouts.rename_tab(text(p, "tab_id"), text(p, "title")), {}
    if op == "resize":
        sizes = p.get("sizes")
        numbers = [
            float(n)
            for n in (sizes if isinstance(sizes, list) else [])
            if isinstance(n, int | float) and not isinstance(n, bool)
        ]
        if not isinstance(sizes, list) or len(numbers) != len(sizes):
            raise Invalid("sizes: expected a list of positive numbers")
        return layouts.resize(text(p, "split_id"), numbers), {}
    leaf_id = text(p, "leaf_id")
    if "agent_id" not in p:
        raise MissingField("agent_id", "missing field 'agent_id' (null empties the cell)")
    agent_id = opt_text(p, "agent_id") or None
    if agent_id is not None:
        agents.get_by_id(agent_id)
    current = layouts.find_leaf(leaf_id).view
    view = opt_choice(p, "view", VIEWS) or current
    return layouts.bind(leaf_id, agent_id, view), {}
