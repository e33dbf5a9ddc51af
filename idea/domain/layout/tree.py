"""The layout tree's values: a tab's root is a node, a split (a direction, one size per child) or
a leaf (a cell: a view bound to an agent, or empty), and the small rules every node obeys.

Invariant: values are frozen; each keeps the JSON keys it does not know (``extra``) and writes them
back, so a file from a newer IdeA survives a round trip; the checks here raise ``Invalid`` naming
what they were checking. Each ``to_json`` returns its ``...Json`` shape, the type the UI is sent
(``idea.app.ui.typegen``); the ``extra`` keys it also writes are not in the shape.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypeAlias, TypedDict, TypeVar, cast

from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject

Direction: TypeAlias = Literal["row", "column"]
View: TypeAlias = Literal["terminal", "chat"]
DIRECTIONS: tuple[Direction, ...] = ("row", "column")
VIEWS: tuple[View, ...] = ("terminal", "chat")

_MAX = sys.float_info.max
_T = TypeVar("_T")
_Shape = TypeVar("_Shape", bound=Mapping[str, object])


class LeafJson(TypedDict):
    type: Literal["leaf"]
    id: str
    agent: str | None  # an agent id
    view: View
    agent_was_running: bool
    conversation_id: str | None


class SplitJson(TypedDict):
    type: Literal["split"]
    id: str
    direction: Direction
    sizes: list[float]
    children: list[NodeJson]


NodeJson: TypeAlias = LeafJson | SplitJson


class TabJson(TypedDict):
    id: str
    title: str
    root: NodeJson


@dataclass(frozen=True, slots=True)
class Leaf:
    """A cell: a view bound to an agent (or empty); the session belongs to the agent, not here."""

    id: str
    agent: str | None = None
    view: View = "terminal"
    agent_was_running: bool = False
    conversation_id: str | None = None
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> LeafJson:
        out: LeafJson = {
            "type": "leaf",
            "id": self.id,
            "agent": self.agent,
            "view": self.view,
            "agent_was_running": self.agent_was_running,
            "conversation_id": self.conversation_id,
        }
        return with_extra(out, self.extra)


@dataclass(frozen=True, slots=True)
class Split:
    id: str
    direction: Direction
    sizes: tuple[float, ...]
    children: tuple[Node, ...]
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> SplitJson:
        out: SplitJson = {
            "type": "split",
            "id": self.id,
            "direction": self.direction,
            "sizes": [size for size in self.sizes],
            "children": [child.to_json() for child in self.children],
        }
        return with_extra(out, self.extra)


Node: TypeAlias = Leaf | Split


@dataclass(frozen=True, slots=True)
class Tab:
    id: str
    title: str
    root: Node
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> TabJson:
        out: TabJson = {"id": self.id, "title": self.title, "root": self.root.to_json()}
        return with_extra(out, self.extra)


def walk(node: Node, parent: Split | None) -> Iterator[tuple[Node, Split | None]]:
    """Nodes with their parent, depth first, left to right."""
    yield node, parent
    if isinstance(node, Split):
        for child in node.children:
            yield from walk(child, node)


def replaced(node: Node, node_id: str, new: Node) -> Node:
    if node.id == node_id:
        return new
    if isinstance(node, Leaf):
        return node
    return replace(node, children=tuple(replaced(child, node_id, new) for child in node.children))


def child_index(parent: Split, child_id: str) -> int:
    return next(i for i, child in enumerate(parent.children) if child.id == child_id)


def pick_host(leaves: Sequence[Leaf]) -> Leaf:
    return next((leaf for leaf in leaves if leaf.agent_was_running), leaves[0])


def has_flags(leaf: Leaf) -> bool:
    return leaf.agent_was_running or leaf.conversation_id is not None


def cleared(leaf: Leaf) -> Leaf:
    return replace(leaf, agent_was_running=False, conversation_id=None)


def check_id(value: object, what: str, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str) or not (value or empty_ok):
        raise Invalid(f"{what}: expected a {'' if empty_ok else 'non-empty '}string, got {value!r}")
    return value


def check_choice(value: object, choices: tuple[_T, ...], what: str) -> _T:
    for choice in choices:
        if value == choice:
            return choice
    raise Invalid(f"{what}: expected one of {', '.join(map(repr, choices))}, got {value!r}")


def check_size(value: object, what: str) -> float:
    # bool is an int in Python but never a size; an int too big for a float is out of range.
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= _MAX:
        return float(value)
    raise Invalid(f"{what}: expected a positive number, got {value!r}")


def with_extra(out: _Shape, extra: JsonObject) -> _Shape:
    """``out`` with the keys of ``extra`` it lacks (a newer IdeA's, kept): beyond its shape."""
    keys = cast("dict[str, object]", out)  # a TypedDict is a dict at run time
    for key, value in extra.items():
        keys.setdefault(key, copy.deepcopy(value))
    return out
