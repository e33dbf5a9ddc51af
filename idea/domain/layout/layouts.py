"""Layouts (``layouts.json``): tabs, each a tree of splits whose leaves are cells bound to agents,
and what the user does to them (split, close, resize, bind, tabs).

Invariant: tab ids are unique, node ids are unique across all tabs, ``active_tab`` names a tab and
every split has at least two children, each with a positive size. Operations return new values and
keep unknown JSON keys (``extra``), so a file from a newer IdeA survives a round trip through this.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypedDict

from idea.domain.errors import Invalid, NotFound
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.layout.document import VERSION, parse_layouts
from idea.domain.layout.tree import (
    DIRECTIONS,
    VIEWS,
    Direction,
    Leaf,
    Node,
    Split,
    Tab,
    TabJson,
    View,
    check_choice,
    check_id,
    check_size,
    child_index,
    cleared,
    pick_host,
    replaced,
    walk,
    with_extra,
)

DEFAULT_TAB_TITLE = "Main"
TAB_TITLE_MAX = 60


class LayoutsJson(TypedDict):  # ``layouts.json``, and what ``layouts.get`` sends
    version: Literal[1]
    tabs: list[TabJson]
    active_tab: str


@dataclass(frozen=True, slots=True)
class Layouts:
    """All tabs of a project. Errors: ``NotFound`` for unknown ids, ``Invalid`` for bad input."""

    tabs: tuple[Tab, ...]
    active_tab: str
    extra: JsonObject = field(default_factory=dict)

    @classmethod
    def empty(cls, tab_id: str, leaf_id: str, title: str = DEFAULT_TAB_TITLE) -> Layouts:
        """One tab holding one empty cell: what a new project (or a lost file) starts from."""
        leaf = Leaf(check_id(leaf_id, "leaf_id"))
        return cls((Tab(check_id(tab_id, "tab_id"), title, leaf),), tab_id)

    @classmethod
    def from_json(cls, obj: JsonValue) -> Layouts:
        """Parse ``layouts.json``; ``Invalid`` names the offending field path."""
        tabs, active, extra = parse_layouts(obj)
        return cls(tabs, active, extra)

    def to_json(self) -> LayoutsJson:
        tabs = [tab.to_json() for tab in self.tabs]
        out: LayoutsJson = {"version": VERSION, "tabs": tabs, "active_tab": self.active_tab}
        return with_extra(out, self.extra)

    def leaves(self) -> tuple[Leaf, ...]:
        """Every cell in tree order: tabs in order, each depth first, left to right."""
        nodes = (node for tab in self.tabs for node, _ in walk(tab.root, None))
        return tuple(node for node in nodes if isinstance(node, Leaf))

    def find_leaf(self, leaf_id: str) -> Leaf:
        return self._locate_leaf(leaf_id)[1]

    def leaves_of_agent(self, agent_id: str) -> tuple[Leaf, ...]:
        return tuple(leaf for leaf in self.leaves() if leaf.agent == agent_id)

    def host_leaf(self, agent_id: str) -> Leaf | None:
        """The cell that shows the agent's session: the one flagged running, else the first."""
        mine = self.leaves_of_agent(agent_id)
        return pick_host(mine) if mine else None

    def split(
        self,
        leaf_id: str,
        direction: Direction,
        new_leaf_id: str,
        new_split_id: str,
        after: bool = True,
    ) -> Layouts:
        """Put a new empty cell beside ``leaf_id`` (after it, or before it).

        Inside a split of the same direction the new cell becomes a sibling taking half of the
        cell's share (the others keep theirs); otherwise the cell is wrapped in a new split
        ``[0.5, 0.5]``. Both new ids must be fresh even when ``new_split_id`` ends up unused, so a
        caller's id handling does not depend on the shape of the tree.
        """
        direction = check_choice(direction, DIRECTIONS, "direction")
        tab_index, leaf, parent = self._locate_leaf(leaf_id)
        self._check_fresh(new_leaf_id, new_split_id)
        new = Leaf(new_leaf_id)
        if parent is None or parent.direction != direction:
            pair = (leaf, new) if after else (new, leaf)
            return self._put(tab_index, leaf_id, Split(new_split_id, direction, (0.5, 0.5), pair))
        k = child_index(parent, leaf_id)
        at = k + 1 if after else k
        half = parent.sizes[k] / 2
        grown = replace(
            parent,
            children=(*parent.children[:at], new, *parent.children[at:]),
            sizes=(*parent.sizes[:k], half, half, *parent.sizes[k + 1 :]),
        )
        return self._put(tab_index, parent.id, grown)

    def close(self, leaf_id: str) -> Layouts:
        """Remove a cell; its share goes to the previous sibling (else the next one).

        A split left with one child is replaced by that child. A tab always shows at least one
        cell: closing its last cell leaves an empty cell with the same id (closing the tab itself
        is ``close_tab``), so this never fails on a valid id.
        """
        tab_index, _, parent = self._locate_leaf(leaf_id)
        if parent is None:
            return self._put(tab_index, leaf_id, Leaf(leaf_id))
        k = child_index(parent, leaf_id)
        children = parent.children[:k] + parent.children[k + 1 :]
        sizes = list(parent.sizes[:k] + parent.sizes[k + 1 :])
        sizes[max(k - 1, 0)] += parent.sizes[k]
        shrunk = replace(parent, children=children, sizes=tuple(sizes))
        return self._put(tab_index, parent.id, children[0] if len(children) == 1 else shrunk)

    def add_tab(self, tab_id: str, title: str, leaf_id: str, *, activate: bool = True) -> Layouts:
        """Append a tab with one empty cell (and make it active unless told otherwise)."""
        if any(tab.id == check_id(tab_id, "tab_id") for tab in self.tabs):
            raise Invalid(f"tab id {tab_id!r} is already used")
        self._check_fresh(leaf_id)
        tabs = (*self.tabs, Tab(tab_id, title, Leaf(leaf_id)))
        return replace(self, tabs=tabs, active_tab=tab_id if activate else self.active_tab)

    def close_tab(self, tab_id: str) -> Layouts:
        """Remove a tab; the last tab cannot be closed (``Invalid``): there is always one to show.

        If the closed tab was active, the tab that takes its place (else the previous one) is.
        """
        index = self._tab_index(tab_id)
        if len(self.tabs) == 1:
            raise Invalid(f"tab {tab_id!r} is the last tab and cannot be closed")
        tabs = self.tabs[:index] + self.tabs[index + 1 :]
        heir = tabs[min(index, len(tabs) - 1)].id
        return replace(
            self, tabs=tabs, active_tab=heir if self.active_tab == tab_id else self.active_tab
        )

    def set_active_tab(self, tab_id: str) -> Layouts:
        self._tab_index(tab_id)
        return replace(self, active_tab=tab_id)

    def rename_tab(self, tab_id: str, title: str) -> Layouts:
        """Give a tab a new title: trimmed, 1 to ``TAB_TITLE_MAX`` characters (``Invalid``)."""
        index = self._tab_index(tab_id)
        clean = title.strip()
        if not clean or len(clean) > TAB_TITLE_MAX or any(ord(c) < 32 for c in clean):
            raise Invalid(
                f"title: expected 1 to {TAB_TITLE_MAX} printable characters, got {title!r}"
            )
        tab = replace(self.tabs[index], title=clean)
        return replace(self, tabs=(*self.tabs[:index], tab, *self.tabs[index + 1 :]))

    def resize(self, split_id: str, sizes: Sequence[float]) -> Layouts:
        """Set a split's sizes: one positive number per child, stored normalised to sum 1."""
        tab_index, node, _ = self._locate(split_id)
        if not isinstance(node, Split):
            raise Invalid(f"node {split_id!r} is a cell, not a split")
        if len(sizes) != len(node.children):
            raise Invalid(f"sizes: expected {len(node.children)} sizes, got {len(sizes)}")
        clean = [check_size(size, f"sizes[{i}]") for i, size in enumerate(sizes)]
        total = sum(clean)
        normalised = tuple(size / total for size in clean)
        if not math.isfinite(total) or min(normalised) <= 0:
            raise Invalid("sizes: values are too far apart to be represented")
        return self._put(tab_index, split_id, replace(node, sizes=normalised))

    def bind(self, leaf_id: str, agent_id: str | None, view: View) -> Layouts:
        """Show ``agent_id`` (or nothing) in a cell; changing the agent clears the run flags."""
        view = check_choice(view, VIEWS, "view")
        if agent_id is not None:
            check_id(agent_id, "agent_id")
        leaf = self.find_leaf(leaf_id)
        if agent_id is None or agent_id != leaf.agent:
            # The flags describe the previous agent's session; they mean nothing for another one.
            leaf = cleared(leaf)
        return self._put_leaf(replace(leaf, agent=agent_id, view=view))

    def set_running(
        self, leaf_id: str, running: bool, conversation_id: str | None = None
    ) -> Layouts:
        """Record whether the cell's agent was running there (snapshot taken at project close).

        Only this cell changes: two cells of one agent both flagged is what reconciliation at
        open repairs, and keeping this a plain setter keeps that repair the one place it happens.
        """
        leaf = self.find_leaf(leaf_id)
        if leaf.agent is None and (running or conversation_id is not None):
            raise Invalid(f"cell {leaf_id!r} shows no agent, so no agent can run there")
        return self._put_leaf(
            replace(leaf, agent_was_running=running, conversation_id=conversation_id)
        )

    def _locate(self, node_id: str) -> tuple[int, Node, Split | None]:
        """Tab index, node and parent split (None for a tab's root) of ``node_id``."""
        for index, tab in enumerate(self.tabs):
            for node, parent in walk(tab.root, None):
                if node.id == node_id:
                    return index, node, parent
        raise NotFound(f"no cell or split with id {node_id!r}")

    def _locate_leaf(self, leaf_id: str) -> tuple[int, Leaf, Split | None]:
        tab_index, node, parent = self._locate(leaf_id)
        if not isinstance(node, Leaf):
            raise Invalid(f"node {leaf_id!r} is a split, not a cell")
        return tab_index, node, parent

    def _tab_index(self, tab_id: str) -> int:
        for index, tab in enumerate(self.tabs):
            if tab.id == tab_id:
                return index
        raise NotFound(f"no tab with id {tab_id!r}")

    def _check_fresh(self, *new_ids: str) -> None:
        used = {node.id for tab in self.tabs for node, _ in walk(tab.root, None)}
        for new_id in new_ids:
            if check_id(new_id, "new id") in used:
                raise Invalid(f"id {new_id!r} is already used")
            used.add(new_id)

    def _put(self, tab_index: int, node_id: str, new: Node) -> Layouts:
        """This layout with node ``node_id`` of tab ``tab_index`` replaced by ``new``."""
        tab = replace(self.tabs[tab_index], root=replaced(self.tabs[tab_index].root, node_id, new))
        return replace(self, tabs=(*self.tabs[:tab_index], tab, *self.tabs[tab_index + 1 :]))

    def _put_leaf(self, new: Leaf) -> Layouts:
        return self._put(self._locate(new.id)[0], new.id, new)
