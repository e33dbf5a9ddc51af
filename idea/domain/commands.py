"""Orchestrator commands: what any door (UI, request file, MCP) may ask the orchestrator to do.

Invariant: a command that exists is valid. Names are slugs, required text is non-blank, optional
text is ``None`` or non-blank, and ``to_wire()`` yields a request that validates back to an equal
command (``idea.domain.orchestrator_request``). Wire names follow DESIGN.md §6 exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, TypeAlias

from idea.domain.errors import Invalid, MissingField
from idea.domain.json_types import JsonObject
from idea.domain.names import validate_slug
from idea.domain.work_state import Status, parse_status


class Source(StrEnum):
    """The door a command came through (reported in ``OrchestratorRequestProcessed``)."""

    UI = "ui"
    FILE = "file"
    MCP = "mcp"


# No ask waits longer than a day, whatever a caller asks for (DESIGN.md §15: every ask has a
# deadline; an agent's CLI gets a shorter one, below its MCP tool timeout).
TIMEOUT_MAX_S = 24 * 3600.0


def check_timeout(value: float, field: str) -> float:
    """Return ``value`` if it is a finite number of seconds above zero and at most a day, else
    raise ``Invalid``."""
    # bool is an int subclass; ``true`` seconds is a client bug, not one second.
    if isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise Invalid(f"{field} must be a positive number of seconds, got {value!r}")
    if value > TIMEOUT_MAX_S:
        raise Invalid(f"{field} must be at most {TIMEOUT_MAX_S:,.0f} seconds, got {value!r}")
    return value


def _require_text(value: str, field: str) -> None:
    if not value.strip():
        raise MissingField(field)


def _check_optional_text(value: str | None, field: str) -> None:
    # Blank optional text is normalised to None by the parser; refusing it here keeps the
    # round trip exact (a blank value could not come back equal).
    if value is not None and not value.strip():
        raise Invalid(f"{field} must be omitted rather than blank")


def _put_optional(wire: JsonObject, field: str, value: str | None) -> None:
    if value is not None:
        wire[field] = value


@dataclass(frozen=True, slots=True)
class LaunchAgent:
    """Start ``name`` (fire and forget). ``task``/``context`` seed a NEW agent's context only."""

    ACTION: ClassVar[str] = "agent.run"

    name: str
    task: str | None = None
    context: str | None = None

    def __post_init__(self) -> None:
        validate_slug(self.name, "name")
        _check_optional_text(self.task, "task")
        _check_optional_text(self.context, "context")

    def to_wire(self) -> JsonObject:
        wire: JsonObject = {"action": self.ACTION, "name": self.name}
        _put_optional(wire, "task", self.task)
        _put_optional(wire, "context", self.context)
        return wire


@dataclass(frozen=True, slots=True)
class AskAgent:
    """Send ``task`` to ``target`` and wait for its reply; ``timeout_s`` None = service default."""

    ACTION: ClassVar[str] = "agent.message"

    target: str
    task: str
    timeout_s: float | None = None

    def __post_init__(self) -> None:
        validate_slug(self.target, "targetAgent")
        _require_text(self.task, "task")
        if self.timeout_s is not None:
            check_timeout(self.timeout_s, "timeoutS")

    def to_wire(self) -> JsonObject:
        wire: JsonObject = {"action": self.ACTION, "targetAgent": self.target, "task": self.task}
        if self.timeout_s is not None:
            wire["timeoutS"] = self.timeout_s
        return wire


@dataclass(frozen=True, slots=True)
class SpawnAgent:
    """Create/start ``name``; ``visible`` opens it in a cell (``node_id`` picks which one)."""

    ACTION: ClassVar[str] = "agent.spawn"

    name: str
    profile: str | None = None
    context: str | None = None
    visible: bool = False
    node_id: str | None = None

    def __post_init__(self) -> None:
        validate_slug(self.name, "name")
        _check_optional_text(self.profile, "profile")
        _check_optional_text(self.context, "context")
        _check_optional_text(self.node_id, "nodeId")
        # A cell id only makes sense for a visible spawn; a background one has no cell.
        if self.node_id is not None and not self.visible:
            raise Invalid("nodeId requires visible to be true")

    def to_wire(self) -> JsonObject:
        wire: JsonObject = {"action": self.ACTION, "name": self.name}
        _put_optional(wire, "profile", self.profile)
        _put_optional(wire, "context", self.context)
        wire["visible"] = self.visible
        _put_optional(wire, "nodeId", self.node_id)
        return wire


@dataclass(frozen=True, slots=True)
class _OneAgentCommand:
    """A command whose only field is the agent it acts on (each subclass names its ACTION)."""

    ACTION: ClassVar[str]

    name: str

    def __post_init__(self) -> None:
        validate_slug(self.name, "name")

    def to_wire(self) -> JsonObject:
        return {"action": self.ACTION, "name": self.name}


@dataclass(frozen=True, slots=True)
class StopAgent(_OneAgentCommand):
    """Stop ``name``'s live session (its whole process tree)."""

    ACTION: ClassVar[str] = "agent.stop"


@dataclass(frozen=True, slots=True)
class UpdateAgentContext:
    """Replace the body (role/context) of ``name``'s definition."""

    ACTION: ClassVar[str] = "agent.context.update"

    name: str
    context: str

    def __post_init__(self) -> None:
        validate_slug(self.name, "name")
        _require_text(self.context, "context")

    def to_wire(self) -> JsonObject:
        return {"action": self.ACTION, "name": self.name, "context": self.context}


@dataclass(frozen=True, slots=True)
class CreateSkill:
    """Write ``skills/<name>/SKILL.md``."""

    ACTION: ClassVar[str] = "skill.create"

    name: str
    description: str
    body: str

    def __post_init__(self) -> None:
        validate_slug(self.name, "name")
        _require_text(self.description, "description")
        _require_text(self.body, "body")

    def to_wire(self) -> JsonObject:
        return {
            "action": self.ACTION,
            "name": self.name,
            "description": self.description,
            "body": self.body,
        }


@dataclass(frozen=True, slots=True)
class SetWorkState:
    """Set the CALLER's own board row; the caller's identity comes from the door, not here."""

    ACTION: ClassVar[str] = "workstate.set"

    status: Status
    intent: str | None = None
    ticket: str | None = None
    progress: str | None = None

    def __post_init__(self) -> None:
        parse_status(self.status, "status")
        _check_optional_text(self.intent, "intent")
        _check_optional_text(self.ticket, "ticket")
        _check_optional_text(self.progress, "progress")

    def to_wire(self) -> JsonObject:
        wire: JsonObject = {"action": self.ACTION, "status": self.status.value}
        _put_optional(wire, "intent", self.intent)
        _put_optional(wire, "ticket", self.ticket)
        _put_optional(wire, "progress", self.progress)
        return wire


@dataclass(frozen=True, slots=True)
class GetProjectWorkState:
    """Read the whole work-state board of the project."""

    ACTION: ClassVar[str] = "workstate.get"

    def to_wire(self) -> JsonObject:
        return {"action": self.ACTION}


@dataclass(frozen=True, slots=True)
class AgentChanges(_OneAgentCommand):
    """What ``name`` changed in its own worktree (DESIGN.md §14)."""

    ACTION: ClassVar[str] = "agent.changes"


@dataclass(frozen=True, slots=True)
class MergeAgent(_OneAgentCommand):
    """Merge ``name``'s worktree branch into the project's current branch."""

    ACTION: ClassVar[str] = "agent.merge"


@dataclass(frozen=True, slots=True)
class DiscardAgentChanges(_OneAgentCommand):
    """Reset ``name``'s worktree back to where its branch left the project's."""

    ACTION: ClassVar[str] = "agent.discard"


Command: TypeAlias = (
    LaunchAgent
    | AskAgent
    | SpawnAgent
    | StopAgent
    | UpdateAgentContext
    | CreateSkill
    | SetWorkState
    | GetProjectWorkState
    | AgentChanges
    | MergeAgent
    | DiscardAgentChanges
)

COMMAND_TYPES: tuple[type[Command], ...] = (
    LaunchAgent,
    AskAgent,
    SpawnAgent,
    StopAgent,
    UpdateAgentContext,
    CreateSkill,
    SetWorkState,
    GetProjectWorkState,
    AgentChanges,
    MergeAgent,
    DiscardAgentChanges,
)


def command_target(command: Command) -> str | None:
    """The agent or skill a command is about, as logged in ``OrchestratorRequestProcessed``."""
    if isinstance(command, AskAgent):
        return command.target
    if isinstance(command, SetWorkState | GetProjectWorkState):
        return None
    return command.name
