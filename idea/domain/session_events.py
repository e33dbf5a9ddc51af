"""What a structured agent session reports during a turn, whatever CLI produced it.

Every turn ends with exactly one ``TurnFinished``; the events before it are optional.
"""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.usage import RateLimit, Usage


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the assistant's text, in order (may be a whole message at once)."""

    text: str

    def to_json(self) -> JsonObject:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class ToolUse:
    tool_id: str
    name: str
    input: JsonValue = None

    def to_json(self) -> JsonObject:
        return {"type": "tool_use", "tool_id": self.tool_id, "name": self.name, "input": self.input}


@dataclass(frozen=True, slots=True)
class ToolResult:
    tool_id: str
    output: str
    is_error: bool = False

    def to_json(self) -> JsonObject:
        return {
            "type": "tool_result",
            "tool_id": self.tool_id,
            "output": self.output,
            "is_error": self.is_error,
        }


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

    def to_json(self) -> JsonObject:
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
