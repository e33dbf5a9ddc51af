"""Layouts: JSON round trip and validation, tree operations, reconciliation planner."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idea.domain.errors import Invalid, NotFound
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.layout import (
    ClearLeafFlags,
    Layouts,
    Leaf,
    Node,
    Split,
    Tab,
    apply_reconciliation,
    plan_reconciliation,
    reconcile,
)

# -- builders ---------------------------------------------------------------------------------


def leaf_json(
    node_id: str,
    agent: str | None = None,
    running: bool = False,
    conversation: str | None = None,
    view: str = "terminal",
    **extra: JsonValue,
) -> JsonObject:
    return {
        "type": "leaf",
        "id": node_id,
        "agent": agent,
        "view": view,
        "agent_was_running": running,
        "conversation_id": conversation,
        **extra,
    }


def split_json(
    node_id: str,
    direction: str,
    sizes: list[JsonValue],
    children: list[JsonValue],
    **extra: JsonValue,
) -> JsonObject:
    return {
        "type": "split",
        "id": node_id,
        "direction": direction,
        "sizes": sizes,
        "children": children,
        **extra,
    }


def sample_json() -> JsonObject:
    """Two tabs, nested splits, and unknown keys at every level (as a newer IdeA would write)."""
    inner = split_json(
        "s2",
        "column",
        [0.3, 0.7],
        [leaf_json("l2", "A", True, "conv-a"), leaf_json("l3", None, future_leaf=[1, {"x": None}])],
        future_split={"deep": [True, 1.5]},
    )
    return {
        "version": 1,
        "tabs": [
            {
                "id": "t1",
                "title": "Main",
                "root": split_json(
                    "s1", "row", [0.5, 0.5], [leaf_json("l1", "B", view="chat"), inner]
                ),
                "future_tab": "kept",
            },
            {"id": "t2", "title": "", "root": leaf_json("l4", "A", conversation="old")},
        ],
        "active_tab": "t2",
        "future_top": {"n": 3},
    }


def row(node_id: str, *children: Node, sizes: tuple[float, ...] | None = None) -> Split:
    return Split(node_id, "row", sizes or tuple(1 / len(children) for _ in children), children)


def one_tab(root: Node) -> Layouts:
    return Layouts((Tab("t1", "Main", root),), "t1")


# -- JSON -------------------------------------------------------------------------------------


def test_round_trip_keeps_unknown_keys_at_every_level() -> None:
    doc = sample_json()
    layouts = Layouts.from_json(copy.deepcopy(doc))
    assert layouts.to_json() == doc
    assert layouts.extra == {"future_top": {"n": 3}}
    assert layouts.tabs[0].extra == {"future_tab": "kept"}
    root = layouts.tabs[0].root
    assert isinstance(root, Split)
    assert root.children[1].extra == {"future_split": {"deep": [True, 1.5]}}
    assert layouts.find_leaf("l3").extra == {"future_leaf": [1, {"x": None}]}


def test_parsed_values() -> None:
    layouts = Layouts.from_json(sample_json())
    assert layouts.active_tab == "t2"
    assert layouts.find_leaf("l2") == Leaf("l2", "A", "terminal", True, "conv-a")
    assert layouts.find_leaf("l1").view == "chat"
    assert [leaf.id for leaf in layouts.leaves()] == ["l1", "l2", "l3", "l4"]


def test_parsed_layout_shares_nothing_with_the_input() -> None:
    doc = sample_json()
    layouts = Layouts.from_json(doc)
    out = layouts.to_json()
    doc["future_top"]["n"] = 4  # type: ignore[index,call-overload]
    out["future_top"]["n"] = 5  # type: ignore[index,call-overload]
    assert layouts.to_json() == sample_json()


def test_integer_sizes_are_accepted() -> None:
    doc = sample_json()
    doc["tabs"][0]["root"]["sizes"] = [1, 3]  # type: ignore[index,call-overload]
    layouts = Layouts.from_json(doc)
    root = layouts.tabs[0].root
    assert isinstance(root, Split) and root.sizes == (1.0, 3.0)


def test_empty_layout() -> None:
    layouts = Layouts.empty("tab", "cell")
    assert layouts.to_json() == {
        "version": 1,
        "tabs": [{"id": "tab", "title": "Main", "root": leaf_json("cell")}],
        "active_tab": "tab",
    }
    assert Layouts.from_json(layouts.to_json()) == layouts
    with pytest.raises(Invalid):
        Layouts.empty("", "cell")


Mutation = Callable[[JsonObject], object]


def _tab0(doc: JsonObject) -> JsonObject:
    return doc["tabs"][0]  # type: ignore[index,return-value,call-overload]


def _set(path: list[str | int], value: JsonValue) -> Mutation:
    def mutate(doc: JsonObject) -> None:
        target: JsonValue = doc
        for step in path[:-1]:
            target = target[step]  # type: ignore[index,call-overload]
        target[path[-1]] = value  # type: ignore[index,call-overload]

    return mutate


def _delete(path: list[str | int]) -> Mutation:
    def mutate(doc: JsonObject) -> None:
        target: JsonValue = doc
        for step in path[:-1]:
            target = target[step]  # type: ignore[index,call-overload]
        del target[path[-1]]  # type: ignore[arg-type,union-attr]

    return mutate


ROOT1 = ["tabs", 0, "root"]
INNER = [*ROOT1, "children", 1]
LEAF2 = [*INNER, "children", 0]


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (_delete(["version"]), "version"),
        (_set(["version"], 2), "version"),
        (_set(["version"], True), "version"),
        (_set(["tabs"], []), "tabs"),
        (_set(["tabs"], {"id": "t1"}), "tabs"),
        (_set(["tabs", 0], "t1"), "tabs[0]"),
        (_set(["tabs", 1, "id"], "t1"), "tabs[1].id"),
        (_set(["tabs", 0, "id"], ""), "tabs[0].id"),
        (_set(["tabs", 0, "title"], 7), "tabs[0].title"),
        (_delete(["tabs", 0, "root"]), "tabs[0].root"),
        (_set([*ROOT1, "type"], "stack"), "tabs[0].root.type"),
        (_set([*INNER, "direction"], "diagonal"), "tabs[0].root.children[1].direction"),
        (_set([*INNER, "children"], [leaf_json("lx")]), "tabs[0].root.children[1].children"),
        (_set([*INNER, "sizes"], [1.0]), "tabs[0].root.children[1].sizes"),
        (_set([*INNER, "sizes"], "0.5,0.5"), "tabs[0].root.children[1].sizes"),
        (_set([*INNER, "sizes", 1], 0), "tabs[0].root.children[1].sizes[1]"),
        (_set([*INNER, "sizes", 1], -0.5), "tabs[0].root.children[1].sizes[1]"),
        (_set([*INNER, "sizes", 1], True), "tabs[0].root.children[1].sizes[1]"),
        (_set([*INNER, "sizes", 1], "1"), "tabs[0].root.children[1].sizes[1]"),
        (_set([*INNER, "sizes", 1], float("inf")), "tabs[0].root.children[1].sizes[1]"),
        (_set([*INNER, "sizes", 1], float("nan")), "tabs[0].root.children[1].sizes[1]"),
        (_set([*INNER, "sizes", 1], 10**400), "tabs[0].root.children[1].sizes[1]"),
        (_set([*LEAF2, "view"], "gui"), "tabs[0].root.children[1].children[0].view"),
        (_set([*LEAF2, "agent"], 5), "tabs[0].root.children[1].children[0].agent"),
        (_set([*LEAF2, "agent"], ""), "tabs[0].root.children[1].children[0].agent"),
        (_delete([*LEAF2, "agent"]), "tabs[0].root.children[1].children[0].agent"),
        (
            _set([*LEAF2, "agent_was_running"], "yes"),
            "tabs[0].root.children[1].children[0].agent_was_running",
        ),
        (
            _set([*LEAF2, "conversation_id"], 3),
            "tabs[0].root.children[1].children[0].conversation_id",
        ),
        (_delete([*LEAF2, "id"]), "tabs[0].root.children[1].children[0].id"),
        (_set(["tabs", 1, "root", "id"], "l2"), "tabs[1].root.id"),
        (_set(["tabs", 1, "root", "id"], "s1"), "tabs[1].root.id"),
        (_set(["active_tab"], "nope"), "active_tab"),
        (_delete(["active_tab"]), "active_tab"),
    ],
)
def test_invalid_input_names_the_field_path(mutate: Mutation, path: str) -> None:
    doc = sample_json()
    mutate(doc)
    with pytest.raises(Invalid) as caught:
        Layouts.from_json(doc)
    assert caught.value.code == "INVALID"
    assert caught.value.message.startswith(f"{path}:"), caught.value.message


@pytest.mark.parametrize("doc", [None, [], "layouts", 1])
def test_non_object_document_is_invalid(doc: JsonValue) -> None:
    with pytest.raises(Invalid):
        Layouts.from_json(doc)


# -- queries ----------------------------------------------------------------------------------


def test_leaves_of_agent_and_host_leaf() -> None:
    layouts = Layouts.from_json(sample_json())
    assert [leaf.id for leaf in layouts.leaves_of_agent("A")] == ["l2", "l4"]
    assert layouts.host_leaf("A") == layouts.find_leaf("l2")  # flagged (and first)
    assert layouts.host_leaf("B") == layouts.find_leaf("l1")  # none flagged: first
    assert layouts.host_leaf("Z") is None
    flipped = layouts.set_running("l2", False).set_running("l4", True, "c")
    assert flipped.host_leaf("A") == flipped.find_leaf("l4")  # flagged wins over tree order


def test_find_leaf_errors() -> None:
    layouts = Layouts.from_json(sample_json())
    with pytest.raises(NotFound):
        layouts.find_leaf("missing")
    with pytest.raises(Invalid):
        layouts.find_leaf("s1")


# -- split / close ----------------------------------------------------------------------------


@pytest.mark.parametrize("after", [True, False])
def test_split_root_leaf_wraps_it(after: bool) -> None:
    layouts = one_tab(Leaf("a", "A"))
    result = layouts.split("a", "column", "n", "s", after=after)
    pair = (Leaf("a", "A"), Leaf("n")) if after else (Leaf("n"), Leaf("a", "A"))
    assert result.tabs[0].root == Split("s", "column", (0.5, 0.5), pair)
    assert layouts.tabs[0].root == Leaf("a", "A")  # the original is untouched


def test_split_in_same_direction_inserts_a_sibling_with_half_the_share() -> None:
    layouts = one_tab(row("r", Leaf("a"), Leaf("b"), sizes=(0.6, 0.4)))
    after = layouts.split("a", "row", "n", "unused")
    assert after.tabs[0].root == row("r", Leaf("a"), Leaf("n"), Leaf("b"), sizes=(0.3, 0.3, 0.4))
    before = layouts.split("b", "row", "n", "unused", after=False)
    assert before.tabs[0].root == row("r", Leaf("a"), Leaf("n"), Leaf("b"), sizes=(0.6, 0.2, 0.2))


def test_split_in_other_direction_wraps_the_leaf_in_its_slot() -> None:
    layouts = one_tab(row("r", Leaf("a"), Leaf("b"), sizes=(0.6, 0.4)))
    result = layouts.split("b", "column", "n", "s")
    wrapped = Split("s", "column", (0.5, 0.5), (Leaf("b"), Leaf("n")))
    assert result.tabs[0].root == row("r", Leaf("a"), wrapped, sizes=(0.6, 0.4))


def test_split_only_touches_the_leafs_tab() -> None:
    layouts = Layouts.from_json(sample_json())
    result = layouts.split("l4", "row", "n", "s")
    assert result.tabs[0] == layouts.tabs[0]
    assert result.tabs[1].root == Split(
        "s", "row", (0.5, 0.5), (layouts.find_leaf("l4"), Leaf("n"))
    )


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("missing", "row", "n", "s"), NotFound),
        (("s1", "row", "n", "s"), Invalid),
        (("l1", "diagonal", "n", "s"), Invalid),
        (("l1", "row", "l2", "s"), Invalid),
        (("l1", "row", "n", "s2"), Invalid),
        (("l1", "row", "n", "n"), Invalid),
        (("l1", "row", "", "s"), Invalid),
    ],
)
def test_split_errors(args: tuple[str, str, str, str], error: type[Exception]) -> None:
    layouts = Layouts.from_json(sample_json())
    with pytest.raises(error):
        layouts.split(*args)  # type: ignore[arg-type]


def test_close_gives_the_share_to_the_previous_sibling_else_the_next() -> None:
    layouts = one_tab(row("r", Leaf("a"), Leaf("b"), Leaf("c"), sizes=(0.2, 0.3, 0.5)))
    assert layouts.close("b").tabs[0].root == row("r", Leaf("a"), Leaf("c"), sizes=(0.5, 0.5))
    assert layouts.close("c").tabs[0].root == row("r", Leaf("a"), Leaf("b"), sizes=(0.2, 0.8))
    assert layouts.close("a").tabs[0].root == row("r", Leaf("b"), Leaf("c"), sizes=(0.5, 0.5))


def test_close_collapses_a_split_left_with_one_child_into_its_slot() -> None:
    inner = Split("s", "column", (0.5, 0.5), (Leaf("b"), Leaf("c", "C")))
    layouts = one_tab(row("r", Leaf("a"), inner, sizes=(0.3, 0.7)))
    assert layouts.close("b").tabs[0].root == row("r", Leaf("a"), Leaf("c", "C"), sizes=(0.3, 0.7))
    assert layouts.close("a").tabs[0].root == inner


def test_closing_the_last_leaf_of_a_tab_leaves_an_empty_leaf_with_the_same_id() -> None:
    layouts = Layouts.from_json(sample_json())
    result = layouts.close("l4")
    assert result.tabs[1].root == Leaf("l4")
    assert result.tabs[0] == layouts.tabs[0]
    assert result.leaves_of_agent("A") == (layouts.find_leaf("l2"),)


def test_close_errors() -> None:
    layouts = Layouts.from_json(sample_json())
    with pytest.raises(NotFound):
        layouts.close("missing")
    with pytest.raises(Invalid):
        layouts.close("s2")


# -- tabs -------------------------------------------------------------------------------------


def test_add_tab() -> None:
    layouts = Layouts.from_json(sample_json())
    result = layouts.add_tab("t3", "Third", "l9")
    assert result.tabs[-1] == Tab("t3", "Third", Leaf("l9"))
    assert result.tabs[:2] == layouts.tabs
    assert result.active_tab == "t3"
    assert layouts.add_tab("t3", "Third", "l9", activate=False).active_tab == "t2"


@pytest.mark.parametrize(
    ("tab_id", "leaf_id"), [("t1", "l9"), ("t3", "l1"), ("t3", "s1"), ("", "l9")]
)
def test_add_tab_rejects_used_or_empty_ids(tab_id: str, leaf_id: str) -> None:
    with pytest.raises(Invalid):
        Layouts.from_json(sample_json()).add_tab(tab_id, "x", leaf_id)


def test_close_tab_moves_the_active_tab_to_its_neighbour() -> None:
    layouts = Layouts.from_json(sample_json()).add_tab("t3", "", "l9", activate=False)
    assert [tab.id for tab in layouts.close_tab("t1").tabs] == ["t2", "t3"]
    assert layouts.set_active_tab("t3").close_tab("t1").active_tab == "t3"  # inactive: unchanged
    assert layouts.close_tab("t2").active_tab == "t3"  # the tab taking its place
    last_active = layouts.set_active_tab("t3").close_tab("t3")
    assert last_active.active_tab == "t2"  # no tab after it: the previous one


def test_close_tab_errors() -> None:
    layouts = Layouts.from_json(sample_json())
    with pytest.raises(NotFound):
        layouts.close_tab("missing")
    with pytest.raises(Invalid):
        layouts.close_tab("t1").close_tab("t2")  # the last tab stays


def test_set_active_tab() -> None:
    layouts = Layouts.from_json(sample_json())
    assert layouts.set_active_tab("t1").active_tab == "t1"
    with pytest.raises(NotFound):
        layouts.set_active_tab("missing")


# -- resize / bind / set_running --------------------------------------------------------------


def test_resize_normalises() -> None:
    layouts = one_tab(row("r", Leaf("a"), Leaf("b"), Leaf("c")))
    root = layouts.resize("r", [1, 2, 1]).tabs[0].root
    assert isinstance(root, Split) and root.sizes == (0.25, 0.5, 0.25)


@pytest.mark.parametrize(
    ("node_id", "sizes", "error"),
    [
        ("r", [1.0, 1.0], Invalid),
        ("r", [1.0, 0.0, 1.0], Invalid),
        ("r", [1.0, -1.0, 1.0], Invalid),
        ("r", [1.0, True, 1.0], Invalid),
        ("r", [1.0, float("nan"), 1.0], Invalid),
        ("r", [1e308, 1e308, 1e308], Invalid),
        ("a", [1.0], Invalid),
        ("missing", [1.0, 1.0, 1.0], NotFound),
    ],
)
def test_resize_errors(node_id: str, sizes: list[float], error: type[Exception]) -> None:
    layouts = one_tab(row("r", Leaf("a"), Leaf("b"), Leaf("c")))
    with pytest.raises(error):
        layouts.resize(node_id, sizes)


def test_bind_same_agent_keeps_the_flags() -> None:
    layouts = Layouts.from_json(sample_json())
    assert layouts.bind("l2", "A", "chat").find_leaf("l2") == Leaf(
        "l2", "A", "chat", True, "conv-a"
    )


@pytest.mark.parametrize("agent", ["B", None])
def test_bind_other_agent_clears_the_flags(agent: str | None) -> None:
    layouts = Layouts.from_json(sample_json())
    leaf = layouts.bind("l2", agent, "terminal").find_leaf("l2")
    assert leaf == Leaf("l2", agent, "terminal", False, None)


def test_bind_keeps_the_leafs_unknown_keys() -> None:
    layouts = Layouts.from_json(sample_json())
    assert layouts.bind("l3", "A", "chat").find_leaf("l3").extra == {
        "future_leaf": [1, {"x": None}]
    }


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("missing", "A", "chat"), NotFound),
        (("s1", "A", "chat"), Invalid),
        (("l1", "A", "gui"), Invalid),
        (("l1", "", "chat"), Invalid),
    ],
)
def test_bind_errors(args: tuple[str, str, str], error: type[Exception]) -> None:
    with pytest.raises(error):
        Layouts.from_json(sample_json()).bind(*args)  # type: ignore[arg-type]


@pytest.mark.parametrize(("running", "conversation"), [(True, "conv-new"), (False, None)])
def test_set_running_changes_only_that_leaf(running: bool, conversation: str | None) -> None:
    layouts = Layouts.from_json(sample_json())
    result = layouts.set_running("l4", running, conversation)
    assert result.find_leaf("l4") == Leaf("l4", "A", "terminal", running, conversation)
    assert result.tabs[0] == layouts.tabs[0]  # l2 (also agent A, flagged) is left to reconcile


def test_set_running_errors() -> None:
    layouts = Layouts.from_json(sample_json())
    with pytest.raises(NotFound):
        layouts.set_running("missing", True)
    with pytest.raises(Invalid):
        layouts.set_running("l3", True)  # no agent in that cell
    with pytest.raises(Invalid):
        layouts.set_running("l3", False, "conv")
    assert layouts.set_running("l3", False) == layouts


# -- reconciliation ---------------------------------------------------------------------------


def duplicates_json() -> JsonObject:
    return {
        "version": 1,
        "tabs": [
            {
                "id": "t1",
                "title": "",
                "root": split_json(
                    "s1",
                    "row",
                    [0.25, 0.25, 0.25, 0.25],
                    [
                        leaf_json("a1", "A", False, "ca1"),
                        leaf_json("b1", "B"),
                        leaf_json("a2", "A", True, "ca2"),
                        leaf_json("c1", "C", True, "cc1"),
                    ],
                ),
            },
            {
                "id": "t2",
                "title": "",
                "root": split_json(
                    "s2",
                    "column",
                    [0.5, 0.5],
                    [leaf_json("a3", "A", True, "ca3"), leaf_json("b2", "B", False, "cb2")],
                ),
            },
        ],
        "active_tab": "t1",
    }


def test_plan_clears_every_duplicate_but_the_host_in_tree_order() -> None:
    layouts = Layouts.from_json(duplicates_json())
    assert plan_reconciliation(layouts) == (
        ClearLeafFlags("a1", "A"),  # before the host, holds a conversation id
        ClearLeafFlags("a3", "A"),  # flagged too, but after the first flagged leaf
        ClearLeafFlags("b2", "B"),  # none of B is flagged: b1 (first) hosts
    )


def test_reconcile_leaves_exactly_one_flagged_leaf_per_agent() -> None:
    layouts = Layouts.from_json(duplicates_json())
    result, actions = reconcile(layouts)
    assert len(actions) == 3
    assert [leaf.id for leaf in result.leaves() if leaf.agent_was_running] == ["a2", "c1"]
    assert result.find_leaf("a2") == layouts.find_leaf("a2")
    assert result.find_leaf("a1") == Leaf("a1", "A")  # binding kept: a dead view of A
    assert result.find_leaf("a3") == Leaf("a3", "A")
    assert result.find_leaf("b2") == Leaf("b2", "B")
    assert result.host_leaf("A") == result.find_leaf("a2")
    assert result.host_leaf("B") == result.find_leaf("b1")
    assert plan_reconciliation(result) == ()
    assert reconcile(result) == (result, ())


def test_host_without_flag_keeps_its_conversation_id() -> None:
    layouts = one_tab(
        row("r", Leaf("x", "A", conversation_id="keep"), Leaf("y", "A", conversation_id="drop"))
    )
    result, actions = reconcile(layouts)
    assert actions == (ClearLeafFlags("y", "A"),)
    assert result.find_leaf("x").conversation_id == "keep"
    assert result.find_leaf("y").conversation_id is None


def test_no_duplicates_plans_nothing_and_changes_nothing() -> None:
    layouts = Layouts.from_json(sample_json()).close("l4")
    assert plan_reconciliation(layouts) == ()
    assert reconcile(layouts) == (layouts, ())
    assert reconcile(layouts)[0].to_json() == layouts.to_json()


def test_duplicates_with_nothing_to_clear_plan_nothing() -> None:
    layouts = one_tab(
        row("r", Leaf("x", "A", agent_was_running=True), Leaf("y", "A"), Leaf("z", "A"))
    )
    assert plan_reconciliation(layouts) == ()


def test_apply_skips_a_leaf_rebound_since_planning_and_rejects_unknown_leaves() -> None:
    layouts = Layouts.from_json(duplicates_json())
    actions = plan_reconciliation(layouts)
    rebound = layouts.bind("a1", "Z", "terminal").set_running("a1", True, "cz")
    result = apply_reconciliation(rebound, actions)
    assert result.find_leaf("a1") == Leaf("a1", "Z", "terminal", True, "cz")
    assert result.find_leaf("a3") == Leaf("a3", "A")
    with pytest.raises(NotFound):
        apply_reconciliation(layouts, [ClearLeafFlags("missing", "A")])


# -- properties -------------------------------------------------------------------------------

AGENTS = ("A", "B", "C")


@st.composite
def layouts_trees(draw: st.DrawFn) -> Layouts:
    counter = itertools.count()
    extra = st.dictionaries(
        st.sampled_from(["x_future", "y_future"]), st.integers() | st.text(max_size=3), max_size=1
    )

    def node(depth: int) -> Node:
        node_id = f"n{next(counter)}"
        if depth < 3 and draw(st.booleans()):
            count = draw(st.integers(2, 3))
            children = tuple(node(depth + 1) for _ in range(count))
            sizes = tuple(draw(st.floats(0.05, 1.0)) for _ in range(count))
            direction = draw(st.sampled_from(("row", "column")))
            return Split(node_id, direction, sizes, children, draw(extra))
        return Leaf(
            node_id,
            draw(st.none() | st.sampled_from(AGENTS)),
            draw(st.sampled_from(("terminal", "chat"))),
            draw(st.booleans()),
            draw(st.none() | st.sampled_from(("c1", "c2"))),
            draw(extra),
        )

    tabs = tuple(
        Tab(f"t{i}", f"T{i}", node(0), draw(extra)) for i in range(draw(st.integers(1, 3)))
    )
    return Layouts(tabs, draw(st.sampled_from([tab.id for tab in tabs])), draw(extra))


def _shape(layouts: Layouts) -> list[tuple[str, str | None, str]]:
    return [(leaf.id, leaf.agent, leaf.view) for leaf in layouts.leaves()]


def _without_flags(layouts: Layouts) -> JsonObject:
    doc = layouts.to_json()

    def strip(node: JsonValue) -> None:
        assert isinstance(node, dict)
        node.pop("agent_was_running", None)
        node.pop("conversation_id", None)
        for child in node.get("children", []):  # type: ignore[union-attr]
            strip(child)

    for tab in doc["tabs"]:  # type: ignore[union-attr]
        strip(tab["root"])  # type: ignore[index,call-overload]
    return doc


@settings(max_examples=200, deadline=None)
@given(layouts_trees())
def test_reconciliation_properties(layouts: Layouts) -> None:
    actions = plan_reconciliation(layouts)
    once = apply_reconciliation(layouts, actions)
    assert apply_reconciliation(once, actions) == once
    assert plan_reconciliation(once) == ()
    assert reconcile(layouts) == (once, actions)
    # Only flags change: ids, bindings, views, tree shape, sizes and unknown keys stay.
    assert _without_flags(once) == _without_flags(layouts)
    assert _shape(once) == _shape(layouts)
    for agent in AGENTS:
        flagged = [leaf for leaf in once.leaves_of_agent(agent) if leaf.agent_was_running]
        assert len(flagged) <= 1
        mine = layouts.leaves_of_agent(agent)
        if mine:
            # The host is the one chosen before reconciling, and it kept its flags.
            assert once.host_leaf(agent) == layouts.host_leaf(agent)
            others = [leaf for leaf in once.leaves_of_agent(agent) if leaf != once.host_leaf(agent)]
            assert all(
                not leaf.agent_was_running and leaf.conversation_id is None for leaf in others
            )
    if len({leaf.agent for leaf in layouts.leaves() if leaf.agent}) == len(
        [leaf for leaf in layouts.leaves() if leaf.agent]
    ):
        assert actions == () and once == layouts


@settings(max_examples=100, deadline=None)
@given(layouts_trees())
def test_json_round_trip_property(layouts: Layouts) -> None:
    assert Layouts.from_json(layouts.to_json()) == layouts


@settings(max_examples=100, deadline=None)
@given(layouts_trees(), st.data())
def test_split_then_close_restores_and_close_keeps_the_layout_valid(
    layouts: Layouts, data: st.DataObject
) -> None:
    target = data.draw(st.sampled_from(layouts.leaves()))
    direction = data.draw(st.sampled_from(("row", "column")))
    grown = layouts.split(target.id, direction, "new-leaf", "new-split")
    assert len(grown.leaves()) == len(layouts.leaves()) + 1
    assert grown.close("new-leaf") == layouts
    shrunk = layouts.close(target.id)
    assert Layouts.from_json(shrunk.to_json()) == shrunk  # still a valid layout
    remaining = [leaf.id for leaf in shrunk.leaves()]
    if target.id in remaining:  # it was the tab's only cell: an empty one takes its place
        assert shrunk.find_leaf(target.id) == Leaf(target.id)
    assert set(remaining) - {target.id} == {leaf.id for leaf in layouts.leaves()} - {target.id}


def test_rename_tab_trims_and_keeps_the_rest() -> None:
    layouts = Layouts.from_json(sample_json())
    renamed = layouts.rename_tab("t2", "  Review  ")
    assert [tab.title for tab in renamed.tabs] == [layouts.tabs[0].title, "Review"]
    assert renamed.tabs[1].root == layouts.tabs[1].root
    assert renamed.active_tab == layouts.active_tab


@pytest.mark.parametrize("title", ["", "   ", "x" * 61, "a\nb"])
def test_rename_tab_refuses_a_bad_title(title: str) -> None:
    with pytest.raises(Invalid, match=r"^title:"):
        Layouts.from_json(sample_json()).rename_tab("t1", title)


def test_rename_tab_of_an_unknown_tab() -> None:
    with pytest.raises(NotFound):
        Layouts.from_json(sample_json()).rename_tab("nope", "x")
