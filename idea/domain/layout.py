"""Layouts (``layouts.json``): tabs, each a tree of splits whose leaves are cells bound to agents.

Invariant: tab ids are unique, node ids are unique across all tabs, ``active_tab`` names a tab and
every split has at least two children, each with a positive size. Operations return new values and
keep unknown JSON keys (``extra``), so a file from a newer IdeA survives a round trip through this.
"""

from __future__ import annotations

import copy
import math
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypeAlias, TypeVar

from idea.domain.errors import Invalid, NotFound
from idea.domain.json_types import JsonObject, JsonValue

VERSION = 1
DEFAULT_TAB_TITLE = "Main"
TAB_TITLE_MAX = 60

Direction: TypeAlias = Literal["row", "column"]
View: TypeAlias = Literal["terminal", "chat"]
DIRECTIONS: tuple[Direction, ...] = ("row", "column")
VIEWS: tuple[View, ...] = ("terminal", "chat")

_LAYOUTS_KEYS = frozenset({"version", "tabs", "active_tab"})
_TAB_KEYS = frozenset({"id", "title", "root"})
_LEAF_KEYS = frozenset({"type", "id", "agent", "view", "agent_was_running", "conversation_id"})
_SPLIT_KEYS = frozenset({"type", "id", "direction", "sizes", "children"})

_MAX = sys.float_info.max
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Leaf:
    """A cell: a view bound to an agent (or empty); the session belongs to the agent, not here."""

    id: str
    agent: str | None = None
    view: View = "terminal"
    agent_was_running: bool = False
    conversation_id: str | None = None
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "type": "leaf",
            "id": self.id,
            "agent": self.agent,
            "view": self.view,
            "agent_was_running": self.agent_was_running,
            "conversation_id": self.conversation_id,
        }
        return _with_extra(out, self.extra)


@dataclass(frozen=True, slots=True)
class Split:
    id: str
    direction: Direction
    sizes: tuple[float, ...]
    children: tuple[Node, ...]
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "type": "split",
            "id": self.id,
            "direction": self.direction,
            "sizes": [size for size in self.sizes],
            "children": [child.to_json() for child in self.children],
        }
        return _with_extra(out, self.extra)


Node: TypeAlias = Leaf | Split


@dataclass(frozen=True, slots=True)
class Tab:
    id: str
    title: str
    root: Node
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        out: JsonObject = {"id": self.id, "title": self.title, "root": self.root.to_json()}
        return _with_extra(out, self.extra)


@dataclass(frozen=True, slots=True)
class ClearLeafFlags:
    """Reconciliation action: forget that ``leaf_id`` hosted a session of ``agent_id``."""

    leaf_id: str
    agent_id: str


@dataclass(frozen=True, slots=True)
class Layouts:
    """All tabs of a project. Errors: ``NotFound`` for unknown ids, ``Invalid`` for bad input."""

    tabs: tuple[Tab, ...]
    active_tab: str
    extra: JsonObject = field(default_factory=dict)

    @classmethod
    def empty(cls, tab_id: str, leaf_id: str, title: str = DEFAULT_TAB_TITLE) -> Layouts:
        """One tab holding one empty cell: what a new project (or a lost file) starts from."""
        leaf = Leaf(_check_id(leaf_id, "leaf_id"))
        return cls((Tab(_check_id(tab_id, "tab_id"), title, leaf),), tab_id)

    @classmethod
    def from_json(cls, obj: JsonValue) -> Layouts:
        """Parse ``layouts.json``; ``Invalid`` names the offending field path."""
        top = _object(obj, "layouts")
        version = _field(top, "version", "")
        if isinstance(version, bool) or version != VERSION:
            # A newer, incompatible format must not be rewritten (and truncated) by this version.
            raise Invalid(f"version: expected {VERSION}, got {version!r}")
        raw_tabs = _field(top, "tabs", "")
        if not isinstance(raw_tabs, list) or not raw_tabs:
            raise Invalid("tabs: expected a non-empty list of tabs")
        seen_nodes: set[str] = set()
        tabs: list[Tab] = []
        for i, raw_tab in enumerate(raw_tabs):
            path = f"tabs[{i}]"
            tab_obj = _object(raw_tab, path)
            tab_id = _text(tab_obj, "id", path)
            if any(tab.id == tab_id for tab in tabs):
                raise Invalid(f"{path}.id: duplicate tab id {tab_id!r}")
            title = _text(tab_obj, "title", path, empty_ok=True)
            root = _node_from_json(_field(tab_obj, "root", path), f"{path}.root", seen_nodes)
            tabs.append(Tab(tab_id, title, root, _extra(tab_obj, _TAB_KEYS)))
        active = _text(top, "active_tab", "")
        if all(tab.id != active for tab in tabs):
            raise Invalid(f"active_tab: {active!r} names no tab")
        return cls(tuple(tabs), active, _extra(top, _LAYOUTS_KEYS))

    def to_json(self) -> JsonObject:
        tabs: JsonValue = [tab.to_json() for tab in self.tabs]
        out: JsonObject = {"version": VERSION, "tabs": tabs, "active_tab": self.active_tab}
        return _with_extra(out, self.extra)

    def leaves(self) -> tuple[Leaf, ...]:
        """Every cell in tree order: tabs in order, each depth first, left to right."""
        nodes = (node for tab in self.tabs for node, _ in _walk(tab.root, None))
        return tuple(node for node in nodes if isinstance(node, Leaf))

    def find_leaf(self, leaf_id: str) -> Leaf:
        return self._locate_leaf(leaf_id)[1]

    def leaves_of_agent(self, agent_id: str) -> tuple[Leaf, ...]:
        return tuple(leaf for leaf in self.leaves() if leaf.agent == agent_id)

    def host_leaf(self, agent_id: str) -> Leaf | None:
        """The cell that shows the agent's session: the one flagged running, else the first."""
        mine = self.leaves_of_agent(agent_id)
        return _pick_host(mine) if mine else None

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
        direction = _choice(direction, DIRECTIONS, "direction")
        tab_index, leaf, parent = self._locate_leaf(leaf_id)
        self._check_fresh(new_leaf_id, new_split_id)
        new = Leaf(new_leaf_id)
        if parent is None or parent.direction != direction:
            pair = (leaf, new) if after else (new, leaf)
            return self._put(tab_index, leaf_id, Split(new_split_id, direction, (0.5, 0.5), pair))
        k = _index(parent, leaf_id)
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
        k = _index(parent, leaf_id)
        children = parent.children[:k] + parent.children[k + 1 :]
        sizes = list(parent.sizes[:k] + parent.sizes[k + 1 :])
        sizes[max(k - 1, 0)] += parent.sizes[k]
        shrunk = replace(parent, children=children, sizes=tuple(sizes))
        return self._put(tab_index, parent.id, children[0] if len(children) == 1 else shrunk)

    def add_tab(self, tab_id: str, title: str, leaf_id: str, *, activate: bool = True) -> Layouts:
        """Append a tab with one empty cell (and make it active unless told otherwise)."""
        if any(tab.id == _check_id(tab_id, "tab_id") for tab in self.tabs):
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
        clean = [_size(size, f"sizes[{i}]") for i, size in enumerate(sizes)]
        total = sum(clean)
        normalised = tuple(size / total for size in clean)
        if not math.isfinite(total) or min(normalised) <= 0:
            raise Invalid("sizes: values are too far apart to be represented")
        return self._put(tab_index, split_id, replace(node, sizes=normalised))

    def bind(self, leaf_id: str, agent_id: str | None, view: View) -> Layouts:
        """Show ``agent_id`` (or nothing) in a cell; changing the agent clears the run flags."""
        view = _choice(view, VIEWS, "view")
        if agent_id is not None:
            _check_id(agent_id, "agent_id")
        leaf = self.find_leaf(leaf_id)
        if agent_id is None or agent_id != leaf.agent:
            # The flags describe the previous agent's session; they mean nothing for another one.
            leaf = _cleared(leaf)
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
            for node, parent in _walk(tab.root, None):
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
        used = {node.id for tab in self.tabs for node, _ in _walk(tab.root, None)}
        for new_id in new_ids:
            if _check_id(new_id, "new id") in used:
                raise Invalid(f"id {new_id!r} is already used")
            used.add(new_id)

    def _put(self, tab_index: int, node_id: str, new: Node) -> Layouts:
        """This layout with node ``node_id`` of tab ``tab_index`` replaced by ``new``."""
        tab = replace(self.tabs[tab_index], root=_replaced(self.tabs[tab_index].root, node_id, new))
        return replace(self, tabs=(*self.tabs[:tab_index], tab, *self.tabs[tab_index + 1 :]))

    def _put_leaf(self, new: Leaf) -> Layouts:
        return self._put(self._locate(new.id)[0], new.id, new)


def plan_reconciliation(layouts: Layouts) -> tuple[ClearLeafFlags, ...]:
    """Reconciliation at open (DESIGN §7 step 1): clear the run flags of every cell of an agent
    but its host (see ``Layouts.host_leaf``).

    Only cells with something to clear get an action, so a reconciled layout plans nothing.
    Duplicate cells keep their binding: they stay as dead views of the agent.
    """
    by_agent: dict[str, list[Leaf]] = {}
    for leaf in layouts.leaves():
        if leaf.agent is not None:
            by_agent.setdefault(leaf.agent, []).append(leaf)
    hosts = {agent: _pick_host(leaves).id for agent, leaves in by_agent.items()}
    return tuple(
        ClearLeafFlags(leaf.id, leaf.agent)
        for leaf in layouts.leaves()
        if leaf.agent is not None and leaf.id != hosts[leaf.agent] and _has_flags(leaf)
    )


def apply_reconciliation(layouts: Layouts, actions: Iterable[ClearLeafFlags]) -> Layouts:
    """Apply a plan. An unknown cell is ``NotFound`` (the plan was made for another layout); a
    cell re-bound to another agent since planning is left alone (its flags are not the agent's).
    """
    result = layouts
    for action in actions:
        leaf = result.find_leaf(action.leaf_id)
        if leaf.agent == action.agent_id:
            result = result._put_leaf(_cleared(leaf))
    return result


def reconcile(layouts: Layouts) -> tuple[Layouts, tuple[ClearLeafFlags, ...]]:
    actions = plan_reconciliation(layouts)
    return apply_reconciliation(layouts, actions), actions


def _walk(node: Node, parent: Split | None) -> Iterator[tuple[Node, Split | None]]:
    """Nodes with their parent, depth first, left to right."""
    yield node, parent
    if isinstance(node, Split):
        for child in node.children:
            yield from _walk(child, node)


def _replaced(node: Node, node_id: str, new: Node) -> Node:
    if node.id == node_id:
        return new
    if isinstance(node, Leaf):
        return node
    return replace(node, children=tuple(_replaced(child, node_id, new) for child in node.children))


def _index(parent: Split, child_id: str) -> int:
    return next(i for i, child in enumerate(parent.children) if child.id == child_id)


def _pick_host(leaves: Sequence[Leaf]) -> Leaf:
    return next((leaf for leaf in leaves if leaf.agent_was_running), leaves[0])


def _has_flags(leaf: Leaf) -> bool:
    return leaf.agent_was_running or leaf.conversation_id is not None


def _cleared(leaf: Leaf) -> Leaf:
    return replace(leaf, agent_was_running=False, conversation_id=None)


def _node_from_json(value: JsonValue, path: str, seen: set[str]) -> Node:
    obj = _object(value, path)
    kind = _field(obj, "type", path)
    if kind not in ("leaf", "split"):
        raise Invalid(f"{path}.type: expected 'leaf' or 'split', got {kind!r}")
    node_id = _text(obj, "id", path)
    if node_id in seen:
        raise Invalid(f"{path}.id: duplicate node id {node_id!r}")
    seen.add(node_id)
    if kind == "leaf":
        running = _field(obj, "agent_was_running", path)
        if not isinstance(running, bool):
            raise Invalid(f"{path}.agent_was_running: expected true or false")
        conversation = _field(obj, "conversation_id", path)
        if not isinstance(conversation, str | None):
            raise Invalid(f"{path}.conversation_id: expected a string or null")
        agent = None if _field(obj, "agent", path) is None else _text(obj, "agent", path)
        view = _choice(_field(obj, "view", path), VIEWS, f"{path}.view")
        return Leaf(node_id, agent, view, running, conversation, _extra(obj, _LEAF_KEYS))
    direction = _choice(_field(obj, "direction", path), DIRECTIONS, f"{path}.direction")
    raw_children = _field(obj, "children", path)
    if not isinstance(raw_children, list) or len(raw_children) < 2:
        # Operations never leave a split with fewer than two children (it collapses).
        raise Invalid(f"{path}.children: expected a list of at least two nodes")
    children = tuple(
        _node_from_json(child, f"{path}.children[{i}]", seen)
        for i, child in enumerate(raw_children)
    )
    raw_sizes = _field(obj, "sizes", path)
    if not isinstance(raw_sizes, list) or len(raw_sizes) != len(children):
        raise Invalid(f"{path}.sizes: expected a list of {len(children)} numbers, one per child")
    sizes = tuple(_size(size, f"{path}.sizes[{i}]") for i, size in enumerate(raw_sizes))
    return Split(node_id, direction, sizes, children, _extra(obj, _SPLIT_KEYS))


def _object(value: JsonValue, path: str) -> JsonObject:
    if not isinstance(value, dict):
        raise Invalid(f"{path}: expected an object")
    return value


def _field(obj: JsonObject, key: str, path: str) -> JsonValue:
    if key not in obj:
        raise Invalid(f"{f'{path}.{key}' if path else key}: missing")
    return obj[key]


def _text(obj: JsonObject, key: str, path: str, *, empty_ok: bool = False) -> str:
    return _check_id(_field(obj, key, path), f"{path}.{key}" if path else key, empty_ok=empty_ok)


def _check_id(value: object, what: str, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str) or not (value or empty_ok):
        raise Invalid(f"{what}: expected a {'' if empty_ok else 'non-empty '}string, got {value!r}")
    return value


def _choice(value: object, choices: tuple[_T, ...], what: str) -> _T:
    for choice in choices:
        if value == choice:
            return choice
    raise Invalid(f"{what}: expected one of {', '.join(map(repr, choices))}, got {value!r}")


def _size(value: object, what: str) -> float:
    # bool is an int in Python but never a size; an int too big for a float is out of range.
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= _MAX:
        return float(value)
    raise Invalid(f"{what}: expected a positive number, got {value!r}")


def _extra(obj: JsonObject, known: frozenset[str]) -> JsonObject:
    # Copied so the layout never shares mutable state with the caller's decoded JSON.
    return {key: copy.deepcopy(value) for key, value in obj.items() if key not in known}


def _with_extra(out: JsonObject, extra: JsonObject) -> JsonObject:
    for key, value in extra.items():
        out.setdefault(key, copy.deepcopy(value))
    return out
