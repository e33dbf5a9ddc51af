"""The success result of an orchestrator command, identical whatever door asked.

Invariant: ``detail`` is a short human acknowledgement; ``reply`` is set only by ``AskAgent`` (the
target's final text); ``data`` carries structured results (board JSON, agent list). Failures are
``IdeaError``s, never an outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.json_types import JsonObject, JsonValue


@dataclass(frozen=True, slots=True)
class OrchestratorOutcome:
    detail: str
    reply: str | None = None
    data: JsonValue = None

    def to_json(self) -> JsonObject:
        # Every key is always present so clients read one stable shape.
        return {"detail": self.detail, "reply": self.reply, "data": self.data}
