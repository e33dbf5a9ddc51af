"""Validation of orchestrator requests: decoded JSON in, one ``Command`` out, or a typed error.

Invariant: every door reads a command through its declared fields (``idea.domain.wire_fields``):
the file door and the UI through ``validate_request`` (wire names), the MCP tools through the same
parser under their argument names. So a request is refused the same way whatever door it came
through: not an object or bad type → ``INVALID`` naming the field; missing, null or blank required
field → ``MISSING_FIELD`` with ``.field`` = its name; unknown action → ``INVALID`` listing the known
ones; text with no UTF-8 form (a lone surrogate) → ``INVALID`` naming the field. Unknown extra
fields (e.g. the file door's ``id`` and ``requester``) are ignored so that older IdeA versions
accept newer writers.
"""

from __future__ import annotations

from idea.domain.commands import COMMAND_TYPES, Command
from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.wire_fields import object_schema, parse, read_required_text, type_name

COMMANDS_BY_ACTION: dict[str, type[Command]] = {kind.ACTION: kind for kind in COMMAND_TYPES}

KNOWN_ACTIONS: tuple[str, ...] = tuple(COMMANDS_BY_ACTION)


def validate_request(obj: JsonValue) -> Command:
    """Turn a decoded request into a ``Command``; raise ``Invalid`` or ``MissingField``."""
    if not isinstance(obj, dict):
        raise Invalid(f"a request must be a JSON object, got {type_name(obj)}")
    action = read_required_text(obj, "action")
    kind = COMMANDS_BY_ACTION.get(action)
    if kind is None:
        raise Invalid(f"unknown action {action!r}; known actions: {', '.join(KNOWN_ACTIONS)}")
    return parse(kind, obj)


def json_schema(kind: type[Command]) -> JsonObject:
    """The JSON Schema of ``kind``'s wire form, as ``to_wire()`` writes it: a closed object with
    its ``action`` and its fields under their wire names. ``validate_request`` is more lenient
    (aliases, blank optional text, unknown envelope fields)."""
    schema = object_schema(kind)
    properties: JsonObject = {"action": {"const": kind.ACTION}}
    fields = schema["properties"]
    assert isinstance(fields, dict)
    properties.update(fields)
    required = schema.get("required", [])
    assert isinstance(required, list)
    return {
        "title": kind.__name__,
        "description": (kind.__doc__ or "").strip(),
        **schema,
        "properties": properties,
        "required": ["action", *required],
    }


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
