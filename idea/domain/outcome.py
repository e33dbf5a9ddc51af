"""What a processed orchestrator command reports: its outcome, and for an ask, its trace.

Invariant: ``detail`` is a short human acknowledgement; ``reply`` is set only by ``AskAgent`` (the
target's final text); ``data`` carries structured results (the work state, agent list). Failures are
``IdeaError``s, never an outcome.

``AskTrace`` is where one ask sits in the ask tree (DESIGN.md §15) and what it cost: its own id,
the id of the ask its requester was serving when it asked (None: a root ask), its chain and depth,
how long it waited for its turn and the turn's usage. It is a value: an ask's trace grows as the
ask goes (ids at admission, the wait when its turn starts, the usage when the turn ends), each
step a new value, so a failed or cancelled ask is logged with what was known of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.usage import Usage, UsageJson


@dataclass(frozen=True, slots=True)
class OrchestratorOutcome:
    detail: str
    reply: str | None = None
    data: JsonValue = None

    def to_json(self) -> JsonObject:
        # Every key is always present so clients read one stable shape.
        return {"detail": self.detail, "reply": self.reply, "data": self.data}


class AskTraceJson(TypedDict):
    """An ask's keys on its delegation log row (``DelegationJson``, orchestrator_service.py)."""

    ask_id: str
    parent_ask_id: str | None
    chain_id: str
    depth: int
    usage: UsageJson | None  # the answering turn's
    queued_ms: int | None


@dataclass(frozen=True, slots=True)
class AskTrace:
    ask_id: str
    chain_id: str
    depth: int  # root = 1
    parent_ask_id: str | None = None  # the ask being served when this one was made
    queued_ms: int | None = None  # accepted to its turn starting (or to its end, if it never did)
    usage: Usage | None = None  # its turn's, when the CLI said

    def to_json(self) -> AskTraceJson:
        """The fields of the ask's delegation log row (ui/API.md)."""
        return {
            "ask_id": self.ask_id,
            "parent_ask_id": self.parent_ask_id,
            "chain_id": self.chain_id,
            "depth": self.depth,
            "usage": None if self.usage is None else self.usage.to_json(),
            "queued_ms": self.queued_ms,
        }
