"""A project's layouts (``layouts.json``): tabs, each a tree of splits whose leaves are cells.

One reason to change per module: ``tree`` (the nodes and the rules each obeys), ``layouts`` (the
tabs and what the user does to them), ``document`` (reading the file), ``reconciliation`` (what
open repairs after a crash). The names below are the package's surface, what the rest of IdeA
imports.
"""

from idea.domain.layout.document import VERSION
from idea.domain.layout.layouts import DEFAULT_TAB_TITLE, TAB_TITLE_MAX, Layouts, LayoutsJson
from idea.domain.layout.reconciliation import (
    ClearLeafFlags,
    apply_reconciliation,
    plan_reconciliation,
    reconcile,
)
from idea.domain.layout.tree import (
    DIRECTIONS,
    VIEWS,
    Direction,
    Leaf,
    LeafJson,
    Node,
    NodeJson,
    Split,
    SplitJson,
    Tab,
    TabJson,
    View,
)

__all__ = [
    "DEFAULT_TAB_TITLE",
    "DIRECTIONS",
    "TAB_TITLE_MAX",
    "VERSION",
    "VIEWS",
    "ClearLeafFlags",
    "Direction",
    "Layouts",
    "LayoutsJson",
    "Leaf",
    "LeafJson",
    "Node",
    "NodeJson",
    "Split",
    "SplitJson",
    "Tab",
    "TabJson",
    "View",
    "apply_reconciliation",
    "plan_reconciliation",
    "reconcile",
]
