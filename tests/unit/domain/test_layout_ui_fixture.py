"""The layouts the UI's unit tests read (``ui/src/model/testdata/layouts.json``) are what the domain
makes and stores: each step is the previous one with its ``layouts.apply`` op applied, and each
survives the ``layouts.json`` round trip unchanged. So the TypeScript tests cannot drift from the
server. After a deliberate change to the domain, rewrite the file with
``python -m tests.unit.domain.test_layout_ui_fixture``.
"""

from __future__ import annotations

import json
from pathlib import Path

from idea.domain.json_types import JsonObject
from idea.domain.layout import Layouts

FIXTURE = Path(__file__).resolve().parents[3] / "ui" / "src" / "model" / "testdata" / "layouts.json"


def _apply(layouts: Layouts, op: JsonObject, new_ids: JsonObject) -> Layouts:
    """One ``layouts.apply`` op with the ids the server would have made (``new_ids``)."""
    name = op["op"]
    if name == "split":
        return layouts.split(
            str(op["leaf_id"]),
            op["direction"],  # type: ignore[arg-type]
            str(new_ids["leaf_id"]),
            str(new_ids["split_id"]),
        )
    if name == "close":
        return layouts.close(str(op["leaf_id"]))
    if name == "resize":
        return layouts.resize(str(op["split_id"]), op["sizes"])  # type: ignore[arg-type]
    if name == "bind":
        return layouts.bind(str(op["leaf_id"]), op["agent_id"], op["view"])  # type: ignore[arg-type]
    raise AssertionError(f"op {name!r} has no step here")


# (what the user does, the op the UI sends, the ids the server makes)
_STEPS: list[tuple[str, JsonObject, JsonObject]] = [
    ("split a right", {"op": "split", "leaf_id": "a", "direction": "row"},
     {"leaf_id": "b", "split_id": "s1"}),
    ("split b down", {"op": "split", "leaf_id": "b", "direction": "column"},
     {"leaf_id": "c", "split_id": "s2"}),
    ("split a right again", {"op": "split", "leaf_id": "a", "direction": "row"},
     {"leaf_id": "d", "split_id": "s3"}),
    ("resize s1", {"op": "resize", "split_id": "s1", "sizes": [2, 1, 1]}, {}),
    ("close d", {"op": "close", "leaf_id": "d"}, {}),
    ("close a", {"op": "close", "leaf_id": "a"}, {}),
    ("close b", {"op": "close", "leaf_id": "b"}, {}),
    ("bind c", {"op": "bind", "leaf_id": "c", "agent_id": "agent-1", "view": "chat"}, {}),
    ("close c, the last cell", {"op": "close", "leaf_id": "c"}, {}),
]  # fmt: skip


def build() -> JsonObject:
    """The fixture: a new project's layouts, then one entry per step."""
    layouts = Layouts.empty("t1", "a")
    start = layouts.to_json()
    # A key from a newer IdeA rides along: the server keeps it, so the UI sees it too.
    start["x_newer"] = {"kept": True}
    layouts = Layouts.from_json(start)
    steps: list[JsonObject] = []
    for name, op, new_ids in _STEPS:
        layouts = _apply(layouts, op, new_ids)
        steps.append(
            {
                "name": name,
                "op": op,
                "new_ids": new_ids,
                "layouts": layouts.to_json(),
                "leaves": [leaf.id for leaf in layouts.leaves()],
            }
        )
    return {"start": start, "steps": steps}


def test_the_ui_fixture_is_what_the_domain_makes() -> None:
    stored = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert stored == build()


def test_every_layout_of_the_fixture_survives_the_store_round_trip() -> None:
    stored = json.loads(FIXTURE.read_text(encoding="utf-8"))
    for entry in [{"layouts": stored["start"]}, *stored["steps"]]:
        assert Layouts.from_json(entry["layouts"]).to_json() == entry["layouts"]


if __name__ == "__main__":
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(build(), indent=2) + "\n", encoding="utf-8")
