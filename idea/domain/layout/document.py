"""``layouts.json`` read: the document checked whole, every error ``Invalid`` naming the field's
path (``tabs[0].root.children[1].sizes[0]``), unknown keys kept (``extra``).

Invariant: what parses obeys the layouts' invariant (unique tab and node ids, ``active_tab`` names
a tab, every split has at least two children each with a positive size); a version other than
``VERSION`` is refused, so a newer, incompatible file is never rewritten by this one.
"""

from __future__ import annotations

import copy
from typing import Final

from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.layout.tree import (
    DIRECTIONS,
    VIEWS,
    Leaf,
    Node,
    Split,
    Tab,
    check_choice,
    check_id,
    check_size,
)

VERSION: Final = 1

_LAYOUTS_KEYS = frozenset({"version", "tabs", "active_tab"})
_TAB_KEYS = frozenset({"id", "title", "root"})
_LEAF_KEYS = frozenset({"type", "id", "agent", "view", "agent_was_running", "conversation_id"})
_SPLIT_KEYS = frozenset({"type", "id", "direction", "sizes", "children"})


def parse_layouts(obj: JsonValue) -> tuple[tuple[Tab, ...], str, JsonObject]:
    """The tabs, active tab id and unknown keys of a ``layouts.json`` document."""
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
    return tuple(tabs), active, _extra(top, _LAYOUTS_KEYS)


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
        view = check_choice(_field(obj, "view", path), VIEWS, f"{path}.view")
        return Leaf(node_id, agent, view, running, conversation, _extra(obj, _LEAF_KEYS))
    direction = check_choice(_field(obj, "direction", path), DIRECTIONS, f"{path}.direction")
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
    sizes = tuple(check_size(size, f"{path}.sizes[{i}]") for i, size in enumerate(raw_sizes))
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
    return check_id(_field(obj, key, path), f"{path}.{key}" if path else key, empty_ok=empty_ok)


def _extra(obj: JsonObject, known: frozenset[str]) -> JsonObject:
    # Copied so the layout never shares mutable state with the caller's decoded JSON.
    return {key: copy.deepcopy(value) for key, value in obj.items() if key not in known}
