"""``layouts.apply``'s operations (ui/API.md): each op's params declared once (a dataclass whose
``op`` field names it), read into one call of the domain's ``Layouts``; the ids of what the op
creates are made here and returned."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

from idea.app.ui.params import custom, opt_text, union_members
from idea.application.ports import AgentStore
from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject
from idea.domain.layout import DEFAULT_TAB_TITLE, Direction, Layouts, View


def _sizes(p: JsonObject, key: str) -> list[float]:
    sizes = p.get(key)
    numbers = [
        float(n)
        for n in (sizes if isinstance(sizes, list) else [])
        if isinstance(n, int | float) and not isinstance(n, bool)
    ]
    if not isinstance(sizes, list) or len(numbers) != len(sizes):
        raise Invalid("sizes: expected a list of positive numbers")
    return numbers


def _agent_id(p: JsonObject, key: str) -> str | None:
    if key not in p:
        raise MissingField(key, "missing field 'agent_id' (null empties the cell)")
    return opt_text(p, key) or None


# Each op's fields in the order they are read (the first bad one is the one named).


@dataclass(frozen=True, slots=True, kw_only=True)
class SplitOp:
    op: Literal["split"]
    direction: Direction
    after: bool = True
    leaf_id: str


@dataclass(frozen=True, slots=True)
class CloseOp:
    """The last cell of a tab becomes empty instead."""

    op: Literal["close"]
    leaf_id: str


@dataclass(frozen=True, slots=True)
class AddTabOp:
    op: Literal["add_tab"]
    title: str | None = None  # None or "": DEFAULT_TAB_TITLE
    activate: bool = True


@dataclass(frozen=True, slots=True)
class CloseTabOp:
    op: Literal["close_tab"]
    tab_id: str


@dataclass(frozen=True, slots=True)
class SetActiveTabOp:
    op: Literal["set_active_tab"]
    tab_id: str


@dataclass(frozen=True, slots=True)
class RenameTabOp:
    op: Literal["rename_tab"]
    tab_id: str
    title: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ResizeOp:
    op: Literal["resize"]
    # One positive number per child; stored normalised to sum 1.
    sizes: list[float] = custom(_sizes, "number[]", required=True)
    split_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BindOp:
    op: Literal["bind"]
    leaf_id: str
    # Required; None empties the cell.
    agent_id: str | None = custom(_agent_id, "string | null", required=True)
    view: View | None = None  # None: the cell's current view


LayoutOp = (
    SplitOp | CloseOp | AddTabOp | CloseTabOp | SetActiveTabOp | RenameTabOp | ResizeOp | BindOp
)
LAYOUT_OPS: tuple[str, ...] = tuple(name for name, _ in union_members(LayoutOp))


class CreatedIds(TypedDict):
    leaf_id: NotRequired[str]  # split: the new empty cell; add_tab: the tab's cell
    tab_id: NotRequired[str]  # add_tab


def apply_op(
    op: LayoutOp, layouts: Layouts, new_id: Callable[[], str], agents: AgentStore
) -> tuple[Layouts, CreatedIds]:
    """``op`` on ``layouts``; the new layouts and the ids it created. Raises what the domain
    operation raises, naming the field."""
    if isinstance(op, SplitOp):
        leaf, split = new_id(), new_id()
        changed = layouts.split(op.leaf_id, op.direction, leaf, split, op.after)
        return changed, {"leaf_id": leaf}
    if isinstance(op, CloseOp):
        return layouts.close(op.leaf_id), {}
    if isinstance(op, AddTabOp):
        tab, leaf = new_id(), new_id()
        title = op.title or DEFAULT_TAB_TITLE
        return layouts.add_tab(tab, title, leaf, activate=op.activate), {
            "tab_id": tab,
            "leaf_id": leaf,
        }
    if isinstance(op, CloseTabOp):
        return layouts.close_tab(op.tab_id), {}
    if isinstance(op, SetActiveTabOp):
        return layouts.set_active_tab(op.tab_id), {}
    if isinstance(op, RenameTabOp):
        return layouts.rename_tab(op.tab_id, op.title), {}
    if isinstance(op, ResizeOp):
        return layouts.resize(op.split_id, op.sizes), {}
    if op.agent_id is not None:
        agents.get_by_id(op.agent_id)
    current = layouts.find_leaf(op.leaf_id).view
    return layouts.bind(op.leaf_id, op.agent_id, op.view or current), {}
