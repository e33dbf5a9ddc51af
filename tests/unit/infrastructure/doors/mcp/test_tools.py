"""The MCP tools are one registry line each: arguments, input schema and parser come from the
declared fields of the tool's command, under the fields' attribute names."""

from __future__ import annotations

import pytest

from idea.domain import commands as c
from idea.domain.builtin_profiles import builtin_profile_names
from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject
from idea.domain.wire_fields import SLUG_RULE, fields_of
from idea.infrastructure.doors.mcp.tools import TOOLS, TOOLS_BY_NAME, Tool

COMMAND_TOOLS = [tool for tool in TOOLS if tool.command_type is not None]


@pytest.mark.parametrize("tool", COMMAND_TOOLS, ids=lambda t: t.name)
def test_a_tools_arguments_are_its_commands_fields_by_attribute_name(tool: Tool) -> None:
    assert tool.command_type is not None
    declared = [f for f in fields_of(tool.command_type) if f.attr not in tool.omit]
    schema = tool.input_schema()
    assert list(schema["properties"]) == [f.attr for f in declared]
    assert schema.get("required", []) == [f.attr for f in declared if f.required]
    assert schema["additionalProperties"] is False
    assert tool.action == tool.command_type.ACTION


def test_the_ask_and_spawn_schemas_say_what_they_always_said() -> None:
    assert TOOLS_BY_NAME["idea_ask_agent"].input_schema() == {
        "type": "object",
        "properties": {
            "target": {
                "type": "string",
                "description": f"name of the agent to ask ({SLUG_RULE})",
                "minLength": 1,
            },
            "task": {
                "type": "string",
                "description": "the complete task or question, self-contained",
                "minLength": 1,
            },
            "timeout_s": {
                "type": "number",
                "minimum": 1,
                "description": "seconds the agent may take to answer, at most 86,400 (default: "
                "the project policy's ask_timeout_s, 300 unless set)",
            },
        },
        "required": ["target", "task"],
        "additionalProperties": False,
    }
    profiles = ", ".join(builtin_profile_names())
    assert TOOLS_BY_NAME["idea_spawn_agent"].input_schema() == {
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "description": f"agent name ({SLUG_RULE})",
                "minLength": 1,
            },
            "profile": {
                "type": "string",
                "description": f"CLI profile of a NEW agent: {profiles} or a project profile "
                "(default claude)",
            },
            "context": {
                "type": "string",
                "description": "role and instructions of a NEW agent (Markdown)",
            },
        },
        "required": ["name"],
        "additionalProperties": False,
    }


def test_a_value_that_spells_a_wire_name_is_quoted_as_sent() -> None:
    # The old door renamed wire names back to argument names in the message text, the caller's
    # own value included ("target 'target!'").
    ask = TOOLS_BY_NAME["idea_ask_agent"]
    with pytest.raises(Invalid) as caught:
        ask.command({"target": "targetAgent!", "task": "x"})
    assert caught.value.message.startswith("target 'targetAgent!' is not valid")
    with pytest.raises(Invalid) as caught:
        ask.command({"target": "a", "task": "x", "timeout_s": "timeoutS"})
    assert caught.value.message == "timeout_s must be a positive number of seconds, got string"


@pytest.mark.parametrize(
    "arguments",
    [
        {"targetAgent": "bob", "task": "x"},
        {"name": "bob", "task": "x"},
        {"target": "bob", "task": "x", "timeoutS": 5},
    ],
)
def test_wire_names_and_aliases_are_not_arguments(arguments: JsonObject) -> None:
    with pytest.raises(Invalid, match="unknown argument") as caught:
        TOOLS_BY_NAME["idea_ask_agent"].command(arguments)
    assert "expected: target, task, timeout_s" in caught.value.message


def test_a_missing_argument_is_named_as_the_model_knows_it() -> None:
    with pytest.raises(MissingField) as caught:
        TOOLS_BY_NAME["idea_ask_agent"].command({"task": "x"})
    assert caught.value.field == "target"


def test_an_omitted_field_keeps_its_default() -> None:
    command = TOOLS_BY_NAME["idea_spawn_agent"].command({"name": "bob"})
    assert command == c.SpawnAgent("bob", visible=False)


def test_omitting_a_field_the_command_lacks_fails_at_the_registry_line() -> None:
    with pytest.raises(ValueError, match="no field cell"):
        Tool("idea_x", "x", c.SpawnAgent, omit=("cell",))


def test_the_agent_list_takes_no_argument_and_no_command() -> None:
    tool = TOOLS_BY_NAME["idea_list_agents"]
    assert tool.action is None and tool.arguments == ()
    assert tool.input_schema() == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }
    with pytest.raises(Invalid, match="expected: none"):
        tool.check_arguments({"agent": "bob"})
