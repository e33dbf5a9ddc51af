"""What a structured agent session reports during a turn, whatever CLI produced it.

Every turn ends with exactly one ``TurnFinished``; the events before it are optional. Each
``to_json`` returns its ``...Entry`` shape: the entry a chat shows (the UI is sent it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.usage import RateLimit, RateLimitJson, Usage, UsageJson


class TextEntry(TypedDict):
    type: Literal["text"]
    text: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the assistant's text, in order (may be a whole message at once)."""

    text: str

    def to_json(self) -> TextEntry:
        return {"type": "text", "text": self.text}


class ToolUseEntry(TypedDict):
    type: Literal["tool_use"]
    tool_id: str
    name: str
    input: object


@dataclass(frozen=True, slots=True)
class ToolUse:
    tool_id: str
    name: str
    input: JsonValue = None

    def to_json(self) -> ToolUseEntry:
        return {"type": "tool_use", "tool_id": self.tool_id, "name": self.name, "input": self.input}


class ToolResultEntry(TypedDict):
    type: Literal["tool_result"]
    tool_id: str
    output: str
    is_error: bool


@dataclass(frozen=True, slots=True)
class ToolResult:
    tool_id: str
    output: str
    is_error: bool = False

    def to_json(self) -> ToolResultEntry:
        return {
            "type": "tool_result",
            "tool_id": self.tool_id,
            "output": self.output,
            "is_error": self.is_error,
        }


class FinalEntry(TypedDict):
    type: Literal["final"]
    text: str
    is_error: bool
    error: str | None
    conversation_id: str | None
    # Written always; a chat log an older IdeA wrote may lack them.
    usage: NotRequired[UsageJson | None]
    rate_limit: NotRequired[RateLimitJson | None]
    interrupted: NotRequired[bool]  # it failed because it was interrupted


@dataclass(frozen=True, slots=True)
class TurnFinished:
    """The turn is over: ``text`` is the final answer, ``is_error`` a failure the CLI reported.

    ``usage``: what this turn (not the CLI's whole process) cost, when the CLI said;
    ``rate_limit``: the failure was the CLI's rate limit or spent quota."""

    text: str
    is_error: bool = False
    error: str | None = None
    conversation_id: str | None = None
    usage: Usage | None = None
    rate_limit: RateLimit | None = None
    # The turn failed because someone interrupted it (``AgentSession.interrupt``): not a failure
    # of the agent's to show as one.
    interrupted: bool = False

    def to_json(self) -> FinalEntry:
        return {
            "type": "final",
            "text": self.text,
            "is_error": self.is_error,
            "error": self.error,
            "conversation_id": self.conversation_id,
            "usage": None if self.usage is None else self.usage.to_json(),
            "rate_limit": None if self.rate_limit is None else self.rate_limit.to_json(),
            "interrupted": self.interrupted,
        }


SessionEvent = TextDelta | ToolUse | ToolResult | TurnFinished


def session_event_from_json(obj: JsonValue) -> SessionEvent:
    """The event ``to_json`` wrote (a remote host's); raises ``Invalid`` naming what is wrong."""
    if not isinstance(obj, dict):
        raise Invalid("a session event must be an object")
    kind = obj.get("type")
    if kind == "text":
        return TextDelta(_text(obj, "text"))
    if kind == "tool_use":
        return ToolUse(_text(obj, "tool_id"), _text(obj, "name"), obj.get("input"))
    if kind == "tool_result":
        return ToolResult(_text(obj, "tool_id"), _text(obj, "output"), obj.get("is_error") is True)
    if kind == "final":
        usage = obj.get("usage")
        limit = obj.get("rate_limit")
        return TurnFinished(
            text=_text(obj, "text"),
            is_error=obj.get("is_error") is True,
            error=_optional_text(obj, "error"),
            conversation_id=_optional_text(obj, "conversation_id"),
            usage=Usage.of(
                usage.get("input_tokens", 0),
                usage.get("output_tokens", 0),
                usage.get("cache_read_tokens", 0),
                usage.get("cache_write_tokens", 0),
                usage.get("cost_usd"),
            )
            if isinstance(usage, dict)
            else None,
            rate_limit=_rate_limit(limit) if isinstance(limit, dict) else None,
            interrupted=obj.get("interrupted") is True,
        )
    raise Invalid(f"unknown session event type {str(kind)[:40]!r}", "type")


def _rate_limit(obj: JsonObject) -> RateLimit:
    resets = obj.get("resets_at_ms")
    if not isinstance(resets, int) or isinstance(resets, bool):
        resets = None
    return RateLimit(_text(obj, "reason"), resets)


def _text(obj: JsonObject, key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise Invalid(f"session event field '{key}' must be a string", key)
    return value


def _optional_text(obj: JsonObject, key: str) -> str | None:
    return None if obj.get(key) is None else _text(obj, key)
