"""Request validation: one behaviour for every door (DESIGN.md §6)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idea.domain.commands import (
    COMMAND_TYPES,
    AgentChanges,
    AskAgent,
    Command,
    CreateSkill,
    DiscardAgentChanges,
    GetProjectWorkState,
    LaunchAgent,
    MergeAgent,
    SetWorkState,
    SpawnAgent,
    StopAgent,
    UpdateAgentContext,
    command_target,
)
from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.names import SLUG_RE
from idea.domain.orchestrator_request import (
    KNOWN_ACTIONS,
    OrchestratorRequest,
    request_id,
    requester,
    validate_request,
)
from idea.domain.outcome import OrchestratorOutcome
from idea.domain.work_state import Status

# The smallest valid request of every action, with the command it must become.
MINIMAL: dict[str, tuple[JsonObject, Command]] = {
    "agent.run": ({"action": "agent.run", "name": "dev"}, LaunchAgent("dev")),
    "agent.message": (
        {"action": "agent.message", "targetAgent": "architect", "task": "review the plan"},
        AskAgent("architect", "review the plan"),
    ),
    "agent.spawn": ({"action": "agent.spawn", "name": "qa"}, SpawnAgent("qa")),
    "agent.stop": ({"action": "agent.stop", "name": "qa"}, StopAgent("qa")),
    "agent.context.update": (
        {"action": "agent.context.update", "name": "qa", "context": "You test."},
        UpdateAgentContext("qa", "You test."),
    ),
    "skill.create": (
        {"action": "skill.create", "name": "deploy", "description": "d", "body": "b"},
        CreateSkill("deploy", "d", "b"),
    ),
    "workstate.set": (
        {"action": "workstate.set", "status": "working"},
        SetWorkState(Status.WORKING),
    ),
    "workstate.get": ({"action": "workstate.get"}, GetProjectWorkState()),
    "agent.changes": ({"action": "agent.changes", "name": "dev"}, AgentChanges("dev")),
    "agent.merge": ({"action": "agent.merge", "name": "dev"}, MergeAgent("dev")),
    "agent.discard": ({"action": "agent.discard", "name": "dev"}, DiscardAgentChanges("dev")),
}

REQUIRED: list[tuple[str, str]] = [
    ("agent.run", "name"),
    ("agent.message", "targetAgent"),
    ("agent.message", "task"),
    ("agent.spawn", "name"),
    ("agent.stop", "name"),
    ("agent.context.update", "name"),
    ("agent.context.update", "context"),
    ("skill.create", "name"),
    ("skill.create", "description"),
    ("skill.create", "body"),
    ("workstate.set", "status"),
    ("agent.changes", "name"),
    ("agent.merge", "name"),
    ("agent.discard", "name"),
]
REQUIRED += [(action, "action") for action in MINIMAL]

# Every field that names an agent or a skill, with a request to plant a bad value in.
NAME_FIELDS: list[tuple[str, str]] = [
    ("agent.run", "name"),
    ("agent.message", "targetAgent"),
    ("agent.spawn", "name"),
    ("agent.stop", "name"),
    ("agent.context.update", "name"),
    ("skill.create", "name"),
    ("agent.changes", "name"),
    ("agent.merge", "name"),
    ("agent.discard", "name"),
]
BAD_NAMES = ["../x", "a/b", "a" * 65, "Upper", "-lead", ".hidden", "a b", "a\\b"]

# Commands with every optional field set, so the round trip covers them too.
FULL: list[Command] = [
    LaunchAgent("dev", task="fix the bug", context="You are a developer."),
    AskAgent("architect", "  keep my spaces  ", timeout_s=12.5),
    SpawnAgent("qa", profile="claude", context="You test.", visible=True, node_id="leaf-1"),
    SetWorkState(Status.BLOCKED, intent="merge", ticket="T-12", progress="3/5"),
]


def test_the_table_covers_every_known_action() -> None:
    assert set(MINIMAL) == set(KNOWN_ACTIONS)
    assert {type(command) for _, command in MINIMAL.values()} == set(COMMAND_TYPES)
    assert {cls.ACTION for cls in COMMAND_TYPES} == set(KNOWN_ACTIONS)


@pytest.mark.parametrize("action", sorted(MINIMAL))
def test_each_action_validates_to_its_command(action: str) -> None:
    request, expected = MINIMAL[action]
    command = validate_request(request)
    assert type(command) is type(expected)
    assert command == expected
    assert OrchestratorRequest.validate(request) == expected


def test_agent_run_keeps_task_and_context_apart() -> None:
    command = validate_request(
        {"action": "agent.run", "name": "dev", "task": "do it", "context": "role"}
    )
    assert command == LaunchAgent("dev", task="do it", context="role")


@pytest.mark.parametrize(("action", "field"), REQUIRED)
@pytest.mark.parametrize("how", ["absent", "null", "empty", "blank"])
def test_missing_or_empty_required_field_is_named(action: str, field: str, how: str) -> None:
    request = dict(MINIMAL[action][0])
    if how == "absent":
        del request[field]
    else:
        request[field] = {"null": None, "empty": "", "blank": " \t\n"}[how]
    with pytest.raises(MissingField) as caught:
        validate_request(request)
    assert caught.value.code == "MISSING_FIELD"
    assert caught.value.field == field
    assert field in caught.value.message


def test_ask_accepts_name_instead_of_target_agent() -> None:
    command = validate_request({"action": "agent.message", "name": "architect", "task": "t"})
    assert command == AskAgent("architect", "t")


def test_ask_with_neither_target_agent_nor_name_names_target_agent() -> None:
    with pytest.raises(MissingField) as caught:
        validate_request({"action": "agent.message", "name": "", "task": "t"})
    assert caught.value.field == "targetAgent"


def test_ask_with_disagreeing_target_agent_and_name_is_invalid() -> None:
    with pytest.raises(Invalid, match="targetAgent"):
        validate_request({"action": "agent.message", "targetAgent": "a", "name": "b", "task": "t"})
    same: JsonObject = {"action": "agent.message", "targetAgent": "a", "name": "a", "task": "t"}
    assert validate_request(same) == AskAgent("a", "t")


@pytest.mark.parametrize("action", ["agent.launch", "AGENT.RUN", "agent.run ", "shell.exec"])
def test_unknown_action_is_invalid_and_lists_known_ones(action: str) -> None:
    with pytest.raises(Invalid) as caught:
        validate_request({"action": action, "name": "dev"})
    assert caught.value.code == "INVALID"
    assert repr(action) in caught.value.message
    assert all(known in caught.value.message for known in KNOWN_ACTIONS)


@pytest.mark.parametrize(("action", "field"), NAME_FIELDS)
@pytest.mark.parametrize("bad", BAD_NAMES)
def test_bad_names_are_invalid(action: str, field: str, bad: str) -> None:
    request = {**MINIMAL[action][0], field: bad}
    with pytest.raises(Invalid) as caught:
        validate_request(request)
    assert caught.value.code == "INVALID"
    assert field in caught.value.message


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_bad_name_through_the_name_alias_of_ask_is_invalid(bad: str) -> None:
    with pytest.raises(Invalid, match="name"):
        validate_request({"action": "agent.message", "name": bad, "task": "t"})


@pytest.mark.parametrize("bad", [*BAD_NAMES, ""])
def test_commands_refuse_bad_names_when_built_directly(bad: str) -> None:
    # On the wire an empty name is MISSING_FIELD; a command built in code still refuses it.
    for build in (LaunchAgent, StopAgent, SpawnAgent):
        with pytest.raises(Invalid):
            build(bad)
    with pytest.raises(Invalid):
        AskAgent(bad, "task")
    with pytest.raises(Invalid):
        CreateSkill(bad, "d", "b")


@pytest.mark.parametrize("value", [None, [], ["agent.run"], "agent.run", 3, 2.5, True])
def test_non_object_request_is_invalid(value: JsonValue) -> None:
    with pytest.raises(Invalid) as caught:
        validate_request(value)
    assert caught.value.code == "INVALID"


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ({"action": 3}, "action"),
        ({"action": ["agent.run"]}, "action"),
        ({"action": "agent.run", "name": 5}, "name"),
        ({"action": "agent.run", "name": "dev", "task": ["x"]}, "task"),
        ({"action": "agent.run", "name": "dev", "context": {"a": 1}}, "context"),
        ({"action": "agent.message", "targetAgent": True, "task": "t"}, "targetAgent"),
        ({"action": "agent.message", "targetAgent": "a", "task": 1}, "task"),
        ({"action": "agent.spawn", "name": "qa", "visible": "yes"}, "visible"),
        ({"action": "agent.spawn", "name": "qa", "visible": 1}, "visible"),
        ({"action": "agent.spawn", "name": "qa", "profile": 1}, "profile"),
        ({"action": "agent.spawn", "name": "qa", "nodeId": 7}, "nodeId"),
        ({"action": "skill.create", "name": "s", "description": 1, "body": "b"}, "description"),
        ({"action": "workstate.set", "status": 3}, "status"),
        ({"action": "workstate.set", "status": "idle", "progress": 0.5}, "progress"),
    ],
)
def test_wrong_types_are_invalid_naming_the_field(request_: JsonObject, field: str) -> None:
    with pytest.raises(Invalid) as caught:
        validate_request(request_)
    assert caught.value.code == "INVALID"
    assert field in caught.value.message


@pytest.mark.parametrize("status", ["busy", "Working", "IDLE", "done"])
def test_bad_workstate_status_is_invalid(status: str) -> None:
    with pytest.raises(Invalid) as caught:
        validate_request({"action": "workstate.set", "status": status})
    assert caught.value.code == "INVALID"
    assert "status" in caught.value.message


@pytest.mark.parametrize("status", ["working", "waiting", "blocked", "idle"])
def test_every_workstate_status_is_accepted(status: str) -> None:
    command = validate_request({"action": "workstate.set", "status": status})
    assert command == SetWorkState(Status(status))


@pytest.mark.parametrize("field", ["timeoutS", "timeout_s"])
@pytest.mark.parametrize(
    "value", [0, -1, 0.0, -0.5, "10", True, False, [], float("inf"), 10**400, 86_401, 1e9]
)
def test_timeout_must_be_a_positive_number(field: str, value: JsonValue) -> None:
    request: JsonObject = {"action": "agent.message", "targetAgent": "a", "task": "t", field: value}
    with pytest.raises(Invalid) as caught:
        validate_request(request)
    assert caught.value.code == "INVALID"
    assert field in caught.value.message


def test_nan_timeout_is_invalid() -> None:
    with pytest.raises(Invalid):
        validate_request(
            json.loads('{"action":"agent.message","name":"a","task":"t","timeoutS":NaN}')
        )


@pytest.mark.parametrize("field", ["timeoutS", "timeout_s"])
@pytest.mark.parametrize(("value", "seconds"), [(5, 5.0), (0.25, 0.25), (None, None)])
def test_timeout_accepts_both_spellings(
    field: str, value: JsonValue, seconds: float | None
) -> None:
    request: JsonObject = {"action": "agent.message", "targetAgent": "a", "task": "t", field: value}
    command = validate_request(request)
    assert isinstance(command, AskAgent)
    assert command.timeout_s == seconds


def test_disagreeing_timeouts_are_invalid() -> None:
    request: JsonObject = {
        "action": "agent.message",
        "targetAgent": "a",
        "task": "t",
        "timeoutS": 5,
        "timeout_s": 6,
    }
    with pytest.raises(Invalid, match="timeoutS"):
        validate_request(request)


def test_ask_agent_refuses_a_bad_timeout_when_built_directly() -> None:
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(Invalid):
            AskAgent("a", "t", timeout_s=bad)


def test_spawn_with_a_node_is_visible_unless_told_otherwise() -> None:
    command = validate_request({"action": "agent.spawn", "name": "qa", "nodeId": "leaf-1"})
    assert command == SpawnAgent("qa", visible=True, node_id="leaf-1")
    with pytest.raises(Invalid, match="nodeId"):
        validate_request({"action": "agent.spawn", "name": "qa", "nodeId": "n", "visible": False})
    visible = validate_request({"action": "agent.spawn", "name": "qa", "visible": True})
    assert visible == SpawnAgent("qa", visible=True)


def test_blank_optional_text_counts_as_absent() -> None:
    command = validate_request(
        {"action": "agent.spawn", "name": "qa", "profile": "", "context": "  ", "nodeId": ""}
    )
    assert command == SpawnAgent("qa")


def test_envelope_fields_are_ignored_by_validate_and_readable_by_helpers() -> None:
    request: JsonObject = {
        "id": "req-42",
        "requester": "main",
        "action": "agent.stop",
        "name": "qa",
        "comment": "unknown fields are ignored too",
    }
    assert validate_request(request) == StopAgent("qa")
    assert request_id(request) == "req-42"
    assert requester(request) == "main"
    assert OrchestratorRequest.request_id(request) == "req-42"
    assert OrchestratorRequest.requester(request) == "main"


@pytest.mark.parametrize("value", [None, 3, "", "  ", ["x"]])
def test_envelope_helpers_return_none_for_absent_or_non_text(value: JsonValue) -> None:
    request: JsonObject = {"action": "workstate.get", "id": value, "requester": value}
    assert request_id(request) is None
    assert requester(request) is None
    assert request_id([1, 2]) is None
    assert requester("not an object") is None


ALL_COMMANDS: list[Command] = [command for _, command in MINIMAL.values()] + FULL


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=lambda c: type(c).__name__)
def test_to_wire_round_trips_through_json(command: Command) -> None:
    wire = command.to_wire()
    assert wire["action"] == type(command).ACTION
    decoded = json.loads(json.dumps(wire))
    assert validate_request(decoded) == command


def test_agent_message_round_trip_keeps_the_wire_names() -> None:
    text = json.dumps(
        {"action": "agent.message", "targetAgent": "architect", "task": "go", "timeoutS": 30}
    )
    command = validate_request(json.loads(text))
    assert command == AskAgent("architect", "go", timeout_s=30.0)
    assert json.loads(json.dumps(command.to_wire())) == {
        "action": "agent.message",
        "targetAgent": "architect",
        "task": "go",
        "timeoutS": 30.0,
    }


@given(
    target=st.from_regex(SLUG_RE, fullmatch=True),
    task=st.text(min_size=1).filter(str.strip),
    timeout=st.none() | st.floats(min_value=1e-6, max_value=86_400),
)
def test_agent_message_round_trip_property(target: str, task: str, timeout: float | None) -> None:
    command = AskAgent(target, task, timeout_s=timeout)
    assert validate_request(json.loads(json.dumps(command.to_wire()))) == command


def test_command_target_names_what_the_command_is_about() -> None:
    assert command_target(AskAgent("architect", "t")) == "architect"
    assert command_target(StopAgent("qa")) == "qa"
    assert command_target(CreateSkill("deploy", "d", "b")) == "deploy"
    assert command_target(SetWorkState(Status.IDLE)) is None
    assert command_target(GetProjectWorkState()) is None


def test_outcome_json_has_a_stable_shape() -> None:
    assert OrchestratorOutcome("launched dev").to_json() == {
        "detail": "launched dev",
        "reply": None,
        "data": None,
    }
    board: JsonObject = {"agents": {"a1": {"status": "idle"}}}
    outcome = OrchestratorOutcome("asked", reply="done", data=board)
    assert json.loads(json.dumps(outcome.to_json())) == {
        "detail": "asked",
        "reply": "done",
        "data": board,
    }


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ({"action": "agent.message", "targetAgent": "dev", "task": "a\ud800b"}, "task"),
        ({"action": "agent.context.update", "name": "dev", "context": "\udfff"}, "context"),
        ({"action": "skill.create", "name": "s", "description": "d", "body": "\ud83d"}, "body"),
        ({"action": "workstate.set", "status": "idle", "intent": "x\udc00"}, "intent"),
    ],
)
def test_text_with_a_lone_surrogate_is_invalid_naming_the_field(
    request_: JsonObject, field: str
) -> None:
    # JSON carries it as a "\ud800" escape; no store could write it as UTF-8.
    with pytest.raises(Invalid, match=f"^{field}: not valid Unicode text"):
        validate_request(json.loads(json.dumps(request_)))


def test_text_with_a_surrogate_pair_is_fine() -> None:
    escaped = '{"action": "agent.message", "targetAgent": "dev", "task": "\\ud83d\\ude00"}'
    assert validate_request(json.loads(escaped)) == AskAgent("dev", "\N{GRINNING FACE}")
