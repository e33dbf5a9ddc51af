"""Validation of orchestrator requests: decoded JSON in, one ``Command`` out, or a typed error.

Invariant: every door goes through ``validate_request``, so a request is refused the same way
whatever door it came through: not an object or bad type → ``INVALID`` naming the field; missing,
null or blank required field → ``MISSING_FIELD`` with ``.field`` = its wire name; unknown action →
``INVALID`` listing the known ones; text with no UTF-8 form (a lone surrogate) → ``INVALID``
naming the field. Unknown extra fields (e.g. the file door's ``id`` and
``requester``) are ignored so that older IdeA versions accept newer writers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from idea.domain.commands import (
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
    check_timeout,
)
from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.names import validate_slug
from idea.domain.text import check_text
from idea.domain.work_state import parse_status


def _type_name(value: JsonValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _optional_text(obj: JsonObject, field: str) -> str | None:
    """Absent, null or blank → None (forms send ""); a non-string → ``Invalid``."""
    value = obj.get(field)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Invalid(f"{field} must be a string, got {_type_name(value)}")
    return check_text(value, field) if value.strip() else None


def _required_text(obj: JsonObject, field: str) -> str:
    value = _optional_text(obj, field)
    if value is None:
        raise MissingField(field)
    return value


def _required_slug(obj: JsonObject, field: str) -> str:
    return validate_slug(_required_text(obj, field), field)


def _optional_bool(obj: JsonObject, field: str) -> bool | None:
    value = obj.get(field)
    if value is None or isinstance(value, bool):
        return value
    raise Invalid(f"{field} must be a boolean, got {_type_name(value)}")


def _optional_seconds(obj: JsonObject, field: str) -> float | None:
    value = obj.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Invalid(f"{field} must be a positive number of seconds, got {_type_name(value)}")
    try:
        seconds = float(value)
    except OverflowError:  # an integer too large for a float
        raise Invalid(f"{field} is too large") from None
    return check_timeout(seconds, field)


def _launch(obj: JsonObject) -> LaunchAgent:
    return LaunchAgent(
        name=_required_slug(obj, "name"),
        task=_optional_text(obj, "task"),
        context=_optional_text(obj, "context"),
    )


def _ask(obj: JsonObject) -> AskAgent:
    target_agent = _optional_text(obj, "targetAgent")
    name = _optional_text(obj, "name")
    if target_agent is None and name is None:
        raise MissingField("targetAgent")
    if target_agent is not None and name is not None and target_agent != name:
        raise Invalid("targetAgent and name are both given and disagree; send only targetAgent")
    # Name the field the caller actually used in a slug error.
    target = (
        validate_slug(target_agent, "targetAgent")
        if target_agent is not None
        else validate_slug(name, "name")
    )
    task = _required_text(obj, "task")
    timeout_camel = _optional_seconds(obj, "timeoutS")
    timeout_snake = _optional_seconds(obj, "timeout_s")
    if timeout_camel is not None and timeout_snake is not None and timeout_camel != timeout_snake:
        raise Invalid("timeoutS and timeout_s are both given and disagree; send only timeoutS")
    timeout = timeout_camel if timeout_camel is not None else timeout_snake
    return AskAgent(target=target, task=task, timeout_s=timeout)


def _spawn(obj: JsonObject) -> SpawnAgent:
    name = _required_slug(obj, "name")
    node_id = _optional_text(obj, "nodeId")
    visible = _optional_bool(obj, "visible")
    if visible is None:
        # Naming a cell is asking for a visible agent; otherwise spawn in the background.
        visible = node_id is not None
    return SpawnAgent(
        name=name,
        profile=_optional_text(obj, "profile"),
        context=_optional_text(obj, "context"),
        visible=visible,
        node_id=node_id,
    )


def _one_agent(kind: Callable[..., Command], obj: JsonObject) -> Command:
    """A command whose only field is ``name``, the agent it acts on."""
    return kind(name=_required_slug(obj, "name"))


def _update_context(obj: JsonObject) -> UpdateAgentContext:
    return UpdateAgentContext(
        name=_required_slug(obj, "name"), context=_required_text(obj, "context")
    )


def _create_skill(obj: JsonObject) -> CreateSkill:
    return CreateSkill(
        name=_required_slug(obj, "name"),
        description=_required_text(obj, "description"),
        body=_required_text(obj, "body"),
    )


def _set_work_state(obj: JsonObject) -> SetWorkState:
    return SetWorkState(
        status=parse_status(_required_text(obj, "status"), "status"),
        intent=_optional_text(obj, "intent"),
        ticket=_optional_text(obj, "ticket"),
        progress=_optional_text(obj, "progress"),
    )


def _get_work_state(obj: JsonObject) -> GetProjectWorkState:
    del obj  # no fields
    return GetProjectWorkState()


_PARSERS: dict[str, Callable[[JsonObject], Command]] = {
    LaunchAgent.ACTION: _launch,
    AskAgent.ACTION: _ask,
    SpawnAgent.ACTION: _spawn,
    **{
        kind.ACTION: partial(_one_agent, kind)
        for kind in (StopAgent, AgentChanges, MergeAgent, DiscardAgentChanges)
    },
    UpdateAgentContext.ACTION: _update_context,
    CreateSkill.ACTION: _create_skill,
    SetWorkState.ACTION: _set_work_state,
    GetProjectWorkState.ACTION: _get_work_state,
}

KNOWN_ACTIONS: tuple[str, ...] = tuple(_PARSERS)


def validate_request(obj: JsonValue) -> Command:
    """Turn a decoded request into a ``Command``; raise ``Invalid`` or ``MissingField``."""
    if not isinstance(obj, dict):
        raise Invalid(f"a request must be a JSON object, got {_type_name(obj)}")
    action = _required_text(obj, "action")
    parse = _PARSERS.get(action)
    if parse is None:
        raise Invalid(f"unknown action {action!r}; known actions: {', '.join(KNOWN_ACTIONS)}")
    return parse(obj)


def _envelope_text(obj: JsonValue, field: str) -> str | None:
    if not isinstance(obj, dict):
        return None
    value = obj.get(field)
    return value if isinstance(value, str) and value.strip() else None


def request_id(obj: JsonValue) -> str | None:
    """The file door's ``id`` (names the response file), if it is a non-blank string."""
    return _envelope_text(obj, "id")


def requester(obj: JsonValue) -> str | None:
    """The file door's self-declared ``requester``, if it is a non-blank string."""
    return _envelope_text(obj, "requester")


class OrchestratorRequest:
    """Namespace kept for callers that think in terms of "validate a request"."""

    KNOWN_ACTIONS: tuple[str, ...] = KNOWN_ACTIONS

    @staticmethod
    def validate(obj: JsonValue) -> Command:
        return validate_request(obj)

    @staticmethod
    def request_id(obj: JsonValue) -> str | None:
        return request_id(obj)

    @staticmethod
    def requester(obj: JsonValue) -> str | None:
        return requester(obj)
