"""ui/src/model/api.gen.ts is generated from the Python declarations: it must be the one they give
now (else a renamed field would reach the user instead of breaking the UI's build)."""

import dataclasses
from pathlib import Path

import pytest

from idea.app.ui import typegen
from idea.app.ui.api import HANDLERS, declared
from idea.app.ui.params import FieldSpec, field_specs, read_params
from idea.domain.errors import Invalid, MissingField
from idea.domain.events import EVENT_TYPES

pytestmark = pytest.mark.timeout(60)


def test_the_committed_file_is_the_generated_one():
    committed = typegen.OUT.read_text(encoding="utf-8")
    assert committed == typegen.render(), "ui/src/model/api.gen.ts is stale: run `make ui-types`"


def test_check_mode_fails_on_a_stale_file_and_passes_on_a_fresh_one(tmp_path: Path):
    target = tmp_path / "api.gen.ts"
    target.write_text("// stale\n", encoding="utf-8")
    assert typegen.main(["--check", str(target)]) == 1
    assert typegen.main([str(target)]) == 0
    assert typegen.main(["--check", str(target)]) == 0


def test_every_method_and_every_event_is_typed():
    text = typegen.render()
    for handler in HANDLERS:
        declared(handler)  # its params and result are annotated
    for event in EVENT_TYPES:
        assert f"  {event.__name__}: {event.__name__};" in text
        for field in dataclasses.fields(event):  # a field added to an event reaches ui/src
            assert f"  {field.name}: " in text.split(f"export type {event.__name__} = ", 1)[1]


@dataclasses.dataclass(frozen=True, slots=True)
class _Probe:
    name: str
    note: str | None = None


def test_params_are_read_by_their_declaration_and_refused_naming_the_field():
    assert read_params(_Probe, {"name": "a", "extra": 1}) == _Probe("a")
    with pytest.raises(MissingField) as missing:
        read_params(_Probe, {"note": "x"})
    assert missing.value.to_dict()["field"] == "name"
    with pytest.raises(Invalid):
        read_params(_Probe, {"name": "a", "note": 3})
    specs = field_specs(_Probe)
    assert [(s.name, s.required) for s in specs] == [("name", True), ("note", False)]
    assert all(isinstance(s, FieldSpec) for s in specs)
