"""Domain events: facts the application publishes after something happened, pushed to the UI.

Invariant: an event is an immutable, small record (ids, names, counts; never a whole reply or a
file's content; a prompt clipped to ``PROMPT_MAX_CHARS``) and ``to_json()`` gives a JSON object
whose ``"type"`` is the class name, read from the class. ``DomainEvent`` is the one list of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypeAlias, get_args

from idea.domain.commands import Source
from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, json_object
from idea.domain.profile import Mode
from idea.domain.usage import RateLimit, Usage
from idea.domain.work_state import Status, parse_status

PREVIEW_MAX_CHARS = 200
PROMPT_MAX_CHARS = 8000


@dataclass(frozen=True, slots=True)
class AgentLaunched:
    agent_id: str
    agent_name: str
    mode: Mode
    node_id: str | None = None  # None = background session, no cell
    conversation_id: str | None = None

    def to_json(self) -> JsonObject:
        return {
            "type": type(self).__name__,
            "agent_id": self.agent_id,
            "agent_name": self.agent_name,
            "mode": self.mode.value,
            "node_id": self.node_id,
            "conversation_id": self.conversation_id,
        }


@dataclass(frozen=True, slots=True)
class AgentStopped:
    agent_id: str
    agent_name: str
    reason: str

    def to_json(self) -> JsonObject:
        return {
            "type": type(self).__name__,
            "agent_id": self.agent_id,
            "agent_name": self.agent_name,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class AgentReplied:
    """An ask was answered. Carries the reply's size and a preview, not the reply itself."""

    PREVIEW_MAX: ClassVar[int] = PREVIEW_MAX_CHARS

    agent_id: str
    agent_name: str
    requester_id: str | None
    reply_chars: int
    preview: str
    ask_id: str | None = None  # the ask answered, and the one its requester was serving
    parent_ask_id: str | None = None

    def __post_init__(self) -> None:
        if self.reply_chars < 0:
            raise Invalid(f"reply_chars must be >= 0, got {self.reply_chars}")
        if len(self.preview) > PREVIEW_MAX_CHARS:
            raise Invalid(f"preview must be at most {PREVIEW_MAX_CHARS} characters")

    @classmethod
    def of_reply(
        cls,
        agent_id: str,
        agent_name: str,
        requester_id: str | None,
        reply: str,
        ask_id: str | None = None,
        parent_ask_id: str | None = None,
    ) -> AgentReplied:
        """Build the event from a full reply, truncating the preview with an ellipsis."""
        preview = reply
        if len(reply) > PREVIEW_MAX_CHARS:
            preview = reply[: PREVIEW_MAX_CHARS - 1] + "…"
        return cls(agent_id, agent_name, requester_id, len(reply), preview, ask_id, parent_ask_id)

    def to_json(self) -> JsonObject:
        return {
            "type": type(self).__name__,
            "agent_id": self.agent_id,
            "agent_name": self.agent_name,
            "requester_id": self.requester_id,
            "reply_chars": self.reply_chars,
            "preview": self.preview,
            "ask_id": self.ask_id,
            "parent_ask_id": self.parent_ask_id,
        }


@dataclass(frozen=True, slots=True)
class OrchestratorRequestProcessed:
    """Published for EVERY processed command, whatever the door and the outcome."""

    source: Source
    requester_id: str | None
    action: str
    target: str | None
    ok: bool
    duration_ms: int
    code: str | None = None  # the IdeaError code when not ok
    chain_id: str | None = None  # an ask's delegation chain and depth (DESIGN.md §15)
    depth: int | None = None
    ask_id: str | None = None  # an ask's own id, and the one its requester was serving
    parent_ask_id: str | None = None

    def __post_init__(self) -> None:
        # ok and code must tell the same story, or the delegation log lies.
        if self.ok == (self.code is not None):
            raise Invalid("code must be set exactly when ok is false")
        if self.duration_ms < 0:
            raise Invalid(f"duration_ms must be >= 0, got {self.duration_ms}")

    def to_json(self) -> JsonObject:
        return {
            "type": type(self).__name__,
            "source": self.source.value,
            "requester_id": self.requester_id,
            "action": self.action,
            "target": self.target,
            "ok": self.ok,
            "duration_ms": self.duration_ms,
            "code": self.code,
            "chain_id": self.chain_id,
            "depth": self.depth,
            "ask_id": self.ask_id,
            "parent_ask_id": self.parent_ask_id,
        }


@dataclass(frozen=True, slots=True)
class WorkStateChanged:
    agent_id: str
    status: Status

    def __post_init__(self) -> None:
        parse_status(self.status, "status")

    def to_json(self) -> JsonObject:
        return {"type": type(self).__name__, "agent_id": self.agent_id, "status": self.status.value}


@dataclass(frozen=True, slots=True)
class AgentTurnStarted:
    """A structured agent began a turn on a task (an ask from the UI, an agent or a file)."""

    agent_id: str
    agent_name: str
    requester_id: str | None
    prompt: str
    prompt_chars: int
    chain_id: str | None = None  # the delegation chain the ask belongs to (DESIGN.md §15)
    depth: int | None = None
    ask_id: str | None = None  # the ask the turn serves, and the one its requester was serving
    parent_ask_id: str | None = None

    @classmethod
    def of_prompt(
        cls,
        agent_id: str,
        agent_name: str,
        requester_id: str | None,
        prompt: str,
        chain_id: str | None = None,
        depth: int | None = None,
        ask_id: str | None = None,
        parent_ask_id: str | None = None,
    ) -> AgentTurnStarted:
        shown = prompt if len(prompt) <= PROMPT_MAX_CHARS else prompt[: PROMPT_MAX_CHARS - 1] + "…"
        return cls(
            agent_id,
            agent_name,
            requester_id,
            shown,
            len(prompt),
            chain_id,
            depth,
            ask_id,
            parent_ask_id,
        )

    def to_json(self) -> JsonObject:
        return {
            "type": type(self).__name__,
            "agent_id": self.agent_id,
            "agent_name": self.agent_name,
            "requester_id": self.requester_id,
            "prompt": self.prompt,
            "prompt_chars": self.prompt_chars,
            "chain_id": self.chain_id,
            "depth": self.depth,
            "ask_id": self.ask_id,
            "parent_ask_id": self.parent_ask_id,
        }


@dataclass(frozen=True, slots=True)
class AgentQueueChanged:
    """How many asks an agent holds (the running turn included) changed."""

    agent_id: str
    queued: int

    def to_json(self) -> JsonObject:
        return {"type": type(self).__name__, "agent_id": self.agent_id, "queued": self.queued}


@dataclass(frozen=True, slots=True)
class AgentTurnFinished:
    agent_id: str
    ok: bool
    usage: Usage | None = None  # what the turn cost, when its CLI said
    chain_id: str | None = None
    ask_id: str | None = None  # the ask the turn served, and the one its requester was serving
    parent_ask_id: str | None = None

    def to_json(self) -> JsonObject:
        return {
            "type": type(self).__name__,
            "agent_id": self.agent_id,
            "ok": self.ok,
            "usage": None if self.usage is None else json_object(self.usage.to_json()),
            "chain_id": self.chain_id,
            "ask_id": self.ask_id,
            "parent_ask_id": self.parent_ask_id,
        }


@dataclass(frozen=True, slots=True)
class AgentRateLimited:
    """The agent's CLI refused a turn for a rate limit or a spent quota; its row is ``blocked``."""

    agent_id: str
    agent_name: str
    reason: str
    resets_at_ms: int | None = None

    @property
    def limit(self) -> RateLimit:
        return RateLimit(self.reason, self.resets_at_ms)

    def to_json(self) -> JsonObject:
        return {
            "type": type(self).__name__,
            "agent_id": self.agent_id,
            "agent_name": self.agent_name,
            "reason": self.reason,
            "resets_at_ms": self.resets_at_ms,
        }


@dataclass(frozen=True, slots=True)
class AgentHibernated:
    """A structured agent idle for the policy's ``hibernate_after_s`` was stopped; its
    conversation is kept and the next ask or chat message resumes it."""

    agent_id: str
    agent_name: str
    conversation_id: str | None

    def to_json(self) -> JsonObject:
        return {
            "type": type(self).__name__,
            "agent_id": self.agent_id,
            "agent_name": self.agent_name,
            "conversation_id": self.conversation_id,
        }


@dataclass(frozen=True, slots=True)
class AgentsChanged:
    """The set of agent definitions changed; the UI reloads the list."""

    def to_json(self) -> JsonObject:
        return {"type": type(self).__name__}


@dataclass(frozen=True, slots=True)
class LayoutChanged:
    """The layouts changed; the UI reloads them."""

    def to_json(self) -> JsonObject:
        return {"type": type(self).__name__}


@dataclass(frozen=True, slots=True)
class StoreFileQuarantined:
    """A state file did not parse and was moved aside (never overwritten)."""

    path: str
    quarantined_to: str
    reason: str

    def to_json(self) -> JsonObject:
        return {
            "type": type(self).__name__,
            "path": self.path,
            "quarantined_to": self.quarantined_to,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class ProjectTrustChanged:
    """The user trusted the project (or its profiles changed): the UI reloads its trust banner."""

    state: str

    def to_json(self) -> JsonObject:
        return {"type": type(self).__name__, "state": self.state}


@dataclass(frozen=True, slots=True)
class CliVersionChanged:
    """A launch ran a CLI whose version is not the one that last passed ``idea doctor``."""

    profile: str
    previous: str
    current: str

    def to_json(self) -> JsonObject:
        return {
            "type": type(self).__name__,
            "profile": self.profile,
            "previous": self.previous,
            "current": self.current,
        }


@dataclass(frozen=True, slots=True)
class AsksLost:
    """At open: asks that were in flight when the app last ended (logged ``LOST``)."""

    count: int

    def to_json(self) -> JsonObject:
        return {"type": type(self).__name__, "count": self.count}


DomainEvent: TypeAlias = (
    AgentLaunched
    | AgentStopped
    | AgentReplied
    | OrchestratorRequestProcessed
    | WorkStateChanged
    | AgentTurnStarted
    | AgentQueueChanged
    | AgentTurnFinished
    | AgentsChanged
    | LayoutChanged
    | StoreFileQuarantined
    | ProjectTrustChanged
    | CliVersionChanged
    | AgentRateLimited
    | AgentHibernated
    | AsksLost
)

EVENT_TYPES: tuple[type[DomainEvent], ...] = get_args(DomainEvent)
