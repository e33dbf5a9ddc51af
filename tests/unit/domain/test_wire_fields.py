"""Declared wire fields: one declaration per field gives the parser, the checks, the wire form and
the JSON Schema, for the commands and for any record declared the same way."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

import pytest

from idea.domain.commands import (
    COMMAND_TYPES,
    AskAgent,
    Command,
    LaunchAgent,
    SetWorkState,
    SpawnAgent,
)
from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.orchestrator_request import json_schema, validate_request
from idea.domain.wire_fields import (
    SLUG_RULE,
    choice,
    fields_of,
    flag,
    object_schema,
    parse,
    seconds,
    slug,
    text,
    wire_form,
)
from tests.unit.domain.test_orchestrator_request import ALL_COMMANDS, MINIMAL


class Color(StrEnum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Paint:
    """A record declared like a command, to test the machinery on its own."""

    target: Annotated[str, slug("what to paint", wire="targetName", aliases=("name",))]
    color: Annotated[Color, choice(Color, "its colour")]
    wait_s: Annotated[
        float | None, seconds("how long to wait", wire="waitS", maximum=10, minimum=1)
    ] = None
    note: Annotated[str | None, text("a note")] = None
    cell: Annotated[str | None, text("where")] = None
    shown: Annotated[bool, flag("show it", implied_by="cell")] = False
    dry: Annotated[bool, flag("do not paint")] = False


def conforms(value: JsonValue, schema: JsonObject) -> bool:
    """The JSON Schema keywords the declarations emit, checked by hand."""
    if "const" in schema:
        return value == schema["const"]
    kind = schema.get("type")
    if kind == "object":
        if not isinstance(value, dict):
            return False
        properties = schema["properties"]
        assert isinstance(properties, dict)
        required = schema.get("required", [])
        assert isinstance(required, list)
        if any(key not in value for key in required):
            return False
        if schema.get("additionalProperties") is False and set(value) - set(properties):
            return False
        return all(
            conforms(item, properties[key]) for key, item in value.items() if key in properties
        )
    if kind == "string":
        ok = isinstance(value, str) and len(value) >= int(schema.get("minLength", 0))
    elif kind == "boolean":
        ok = isinstance(value, bool)
    elif kind == "number":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and value >= schema.get("minimum", -math.inf)
    else:
        raise AssertionError(kind)
    return ok and ("enum" not in schema or value in schema["enum"])


# -- the commands -----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=lambda c: type(c).__name__)
def test_the_wire_form_of_every_command_conforms_to_its_schema(command: Command) -> None:
    schema = json_schema(type(command))
    assert conforms(json.loads(json.dumps(command.to_wire())), schema)
    assert schema["title"] == type(command).__name__
    assert schema["properties"]["action"] == {"const": type(command).ACTION}


@pytest.mark.parametrize("kind", COMMAND_TYPES, ids=lambda k: k.__name__)
def test_each_schema_lists_the_wire_names_and_the_required_ones(kind: type[Command]) -> None:
    schema = json_schema(kind)
    declared = fields_of(kind)
    assert list(schema["properties"]) == ["action", *(f.wire for f in declared)]
    assert schema["required"] == ["action", *(f.wire for f in declared if f.required)]
    assert schema["additionalProperties"] is False
    # The smallest valid request of the action is valid under its schema too.
    request, _ = MINIMAL[kind.ACTION]
    assert conforms(request, schema)


def test_the_schemas_carry_the_schema_facts() -> None:
    ask = json_schema(AskAgent)["properties"]
    assert isinstance(ask, dict)
    assert ask["targetAgent"] == {
        "type": "string",
        "description": f"name of the agent to ask ({SLUG_RULE})",
        "minLength": 1,
    }
    assert ask["timeoutS"]["type"] == "number" and ask["timeoutS"]["minimum"] == 1
    status = json_schema(SetWorkState)["properties"]["status"]
    assert status["enum"] == ["working", "waiting", "blocked", "idle"]
    spawn = json_schema(SpawnAgent)["properties"]
    assert spawn["visible"]["type"] == "boolean"
    assert "minLength" not in spawn["profile"]


def test_the_union_and_the_tuple_of_commands_are_one_list() -> None:
    assert len(COMMAND_TYPES) == len(set(COMMAND_TYPES)) == 11
    assert all(hasattr(kind, "ACTION") for kind in COMMAND_TYPES)


# -- the machinery, on a record of its own --------------------------------------------------------


def test_parse_reads_every_kind_under_its_wire_name() -> None:
    paint = parse(
        Paint,
        {"targetName": "wall", "color": "red", "waitS": 2, "note": "n", "cell": "c", "dry": True},
    )
    assert paint == Paint("wall", Color.RED, wait_s=2.0, note="n", cell="c", shown=True, dry=True)
    assert wire_form(paint) == {
        "targetName": "wall",
        "color": "red",
        "waitS": 2.0,
        "note": "n",
        "cell": "c",
        "shown": True,
        "dry": True,
    }
    assert parse(Paint, wire_form(paint)) == paint


def test_absent_optional_fields_take_their_default_and_are_not_written() -> None:
    paint = parse(Paint, {"targetName": "wall", "color": "blue", "note": "  ", "waitS": None})
    assert paint == Paint("wall", Color.BLUE)
    assert wire_form(paint) == {
        "targetName": "wall",
        "color": "blue",
        "shown": False,
        "dry": False,
    }


def test_an_implied_flag_follows_the_field_it_names_unless_given() -> None:
    assert parse(Paint, {"targetName": "w", "color": "red", "cell": "c"}).shown is True
    assert parse(Paint, {"targetName": "w", "color": "red"}).shown is False
    given = parse(Paint, {"targetName": "w", "color": "red", "cell": "c", "shown": False})
    assert given.shown is False


def test_an_alias_is_read_and_a_disagreement_is_invalid() -> None:
    assert parse(Paint, {"name": "wall", "color": "red"}).target == "wall"
    agreeing = {"targetName": "wall", "name": "wall", "color": "red"}
    assert parse(Paint, agreeing).target == "wall"
    with pytest.raises(Invalid) as caught:
        parse(Paint, {"targetName": "wall", "name": "door", "color": "red"})
    assert caught.value.message == (
        "targetName and name are both given and disagree; send only targetName"
    )


def test_a_required_field_missing_under_every_key_names_the_canonical_one() -> None:
    with pytest.raises(MissingField) as caught:
        parse(Paint, {"name": " ", "color": "red"})
    assert caught.value.field == "targetName"
    with pytest.raises(MissingField) as caught:
        parse(Paint, {"targetName": "w"})
    assert caught.value.field == "color"


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"name": "Bad!", "color": "red"}, "name 'Bad!' is not valid"),
        ({"targetName": "w", "color": "green"}, "color must be one of red, blue, not 'green'"),
        ({"targetName": "w", "color": 3}, "color must be a string, got number"),
        ({"targetName": "w", "color": "red", "waitS": 11}, "waitS must be at most 10 seconds"),
        ({"targetName": "w", "color": "red", "waitS": "1"}, "waitS must be a positive number"),
        ({"targetName": "w", "color": "red", "dry": "yes"}, "dry must be a boolean, got string"),
        ({"targetName": "w", "color": "red", "note": "\ud800"}, "note: not valid Unicode text"),
    ],
)
def test_errors_name_the_key_the_caller_used(obj: JsonObject, message: str) -> None:
    with pytest.raises(Invalid) as caught:
        parse(Paint, obj)
    assert caught.value.message.startswith(message), caught.value.message


def test_under_argument_names_the_attribute_names_are_read_and_named() -> None:
    arguments: JsonObject = {"target": "wall", "color": "red", "wait_s": 3}
    assert parse(Paint, arguments, "argument") == Paint("wall", Color.RED, wait_s=3.0)
    with pytest.raises(Invalid, match=r"^target 'Bad!' is not valid"):
        parse(Paint, {"target": "Bad!", "color": "red"}, "argument")
    with pytest.raises(Invalid, match=r"^wait_s must be a positive number"):
        parse(Paint, {"target": "w", "color": "red", "wait_s": 0}, "argument")
    # Wire names and aliases are not arguments.
    for key in ("targetName", "name"):
        with pytest.raises(MissingField) as caught:
            parse(Paint, {key: "wall", "color": "red"}, "argument")
        assert caught.value.field == "target"


def test_the_object_schema_under_argument_names_and_with_omissions() -> None:
    schema = object_schema(Paint, "argument", omit=("cell", "shown"))
    assert list(schema["properties"]) == ["target", "color", "wait_s", "note", "dry"]
    assert schema["required"] == ["target", "color"]
    assert schema["additionalProperties"] is False
    with pytest.raises(ValueError, match="no field colour"):
        object_schema(Paint, omit=("colour",))


def test_a_record_with_no_required_field_has_no_required_list() -> None:
    @dataclass(frozen=True, slots=True)
    class Empty:
        pass

    assert object_schema(Empty) == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


@dataclass(frozen=True, slots=True)
class Undeclared:
    name: str


@dataclass(frozen=True, slots=True)
class DeclaredTwice:
    name: Annotated[str, slug("a"), text("b")]


@pytest.mark.parametrize("kind", [Undeclared, DeclaredTwice])
def test_a_field_not_declared_exactly_once_is_a_bug(kind: type[Undeclared]) -> None:
    with pytest.raises(TypeError, match="not declared once"):
        fields_of(kind)


@dataclass(frozen=True, slots=True)
class ImpliedTooEarly:
    shown: Annotated[bool, flag("show it", implied_by="cell")] = False
    cell: Annotated[str | None, text("where")] = None


def test_a_flag_implied_by_a_later_field_is_a_bug() -> None:
    with pytest.raises(TypeError, match="implied by a field not declared before it"):
        fields_of(ImpliedTooEarly)


# -- the checks of a command built in code --------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "error", "mention"),
    [
        (lambda: AskAgent("Bad!", "t"), Invalid, "targetAgent 'Bad!'"),
        (lambda: AskAgent("a", " "), MissingField, "'task'"),
        (lambda: AskAgent("a", "t", timeout_s=0.0), Invalid, "timeoutS must be a positive"),
        (lambda: LaunchAgent("a", task=" "), Invalid, "task must be omitted rather than blank"),
        (lambda: SpawnAgent("a", node_id="n"), Invalid, "nodeId requires visible"),
        (lambda: SetWorkState("busy"), Invalid, "status must be one of"),
    ],
)
def test_a_command_built_in_code_is_checked_by_its_declaration(
    build: object, error: type[Exception], mention: str
) -> None:
    assert callable(build)
    with pytest.raises(error) as caught:
        build()
    assert mention in str(caught.value)


def test_a_valid_command_round_trips_through_the_parser_and_its_schema() -> None:
    command = SpawnAgent("qa", node_id="leaf-1", visible=True, profile="codex")
    wire = command.to_wire()
    assert wire == {
        "action": "agent.spawn",
        "name": "qa",
        "nodeId": "leaf-1",
        "visible": True,
        "profile": "codex",
    }
    assert validate_request(wire) == command
