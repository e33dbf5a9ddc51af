"""Orchestrator commands: what any door (UI, request file, MCP) may ask the orchestrator to do.

Invariant: a command that exists is valid. Each field is declared once, with its wire name, its
kind and its description (``idea.domain.wire_fields``); its checks, ``to_wire()``, the parser
(``idea.domain.orchestrator_request``), the MCP tools' input schemas and the wire form's JSON Schema
all derive from that declaration. Names are slugs, required text is non-blank, optional text is
``None`` or non-blank, and ``to_wire()`` yields a request that validates back to an equal command.
Wire names follow DESIGN.md §6 exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, ClassVar, TypeAlias, cast, get_args

from idea.domain.builtin_profiles import DEFAULT_PROFILE, builtin_profile_names
from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject
from idea.domain.wire_fields import (
    check_fields,
    choice,
    fields_of,
    flag,
    seconds,
    slug,
    text,
    wire_form,
)
from idea.domain.work_state import Status

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


class Source(StrEnum):
    """The door a command came through (reported in ``OrchestratorRequestProcessed``)."""

    UI = "ui"
    FILE = "file"
    MCP = "mcp"


# No ask waits longer than a day, whatever a caller asks for (DESIGN.md §15: every ask has a
# deadline; an agent's CLI gets a shorter one, below its MCP tool timeout).
TIMEOUT_MAX_S = 24 * 3600.0
# What one turn of an ask may take when neither the caller nor the project's policy says.
DEFAULT_ASK_TIMEOUT_S = 300.0


class _Command:
    """What every command shares: its wire ``ACTION``, the checks of its declared fields and its
    wire form, both derived from the fields (``idea.domain.wire_fields``)."""

    __slots__ = ()
    ACTION: ClassVar[str]

    def __post_init__(self) -> None:
        check_fields(cast("DataclassInstance", self))

    def to_wire(self) -> JsonObject:
        return {"action": self.ACTION, **wire_form(cast("DataclassInstance", self))}


# The field every command that acts on one agent declares.
AgentName: TypeAlias = Annotated[str, slug("agent name")]
# What only a NEW agent takes from a spawn or a first run.
NewAgentContext: TypeAlias = Annotated[
    str | None, text("role and instructions of a NEW agent (Markdown)")
]


@dataclass(frozen=True, slots=True)
class LaunchAgent(_Command):
    """Start ``name`` (fire and forget). ``task``/``context`` seed a NEW agent's context only."""

    ACTION: ClassVar[str] = "agent.run"

    name: AgentName
    task: Annotated[str | None, text("a first task for a NEW agent")] = None
    context: NewAgentContext = None


@dataclass(frozen=True, slots=True)
class AskAgent(_Command):
    """Send ``task`` to ``target`` and wait for its reply; ``timeout_s`` None = service default."""

    ACTION: ClassVar[str] = "agent.message"

    target: Annotated[str, slug("name of the agent to ask", wire="targetAgent", aliases=("name",))]
    task: Annotated[str, text("the complete task or question, self-contained")]
    timeout_s: Annotated[
        float | None,
        seconds(
            f"seconds the agent may take to answer, at most {TIMEOUT_MAX_S:,.0f} (default: the "
            f"project policy's ask_timeout_s, {DEFAULT_ASK_TIMEOUT_S:g} unless set)",
            wire="timeoutS",
            aliases=("timeout_s",),
            maximum=TIMEOUT_MAX_S,
            minimum=1,
        ),
    ] = None


@dataclass(frozen=True, slots=True)
class SpawnAgent(_Command):
    """Create/start ``name``; ``visible`` opens it in a cell (``node_id`` picks which one)."""

    ACTION: ClassVar[str] = "agent.spawn"

    name: AgentName
    # Before ``visible``: naming a cell is asking for a visible agent, so it sets its default.
    node_id: Annotated[str | None, text("the cell to open the agent in", wire="nodeId")] = None
    visible: Annotated[
        bool,
        flag("open the agent in a cell (default: whether nodeId is given)", implied_by="node_id"),
    ] = False
    profile: Annotated[
        str | None,
        text(
            f"CLI profile of a NEW agent: {', '.join(builtin_profile_names())} or a project "
            f"profile (default {DEFAULT_PROFILE})"
        ),
    ] = None
    context: NewAgentContext = None

    def __post_init__(self) -> None:
        check_fields(self)
        # A cell id only makes sense for a visible spawn; a background one has no cell.
        if self.node_id is not None and not self.visible:
            raise Invalid("nodeId requires visible to be true")


@dataclass(frozen=True, slots=True)
class _OneAgentCommand(_Command):
    """A command whose only field is the agent it acts on (each subclass names its ACTION)."""

    name: AgentName


@dataclass(frozen=True, slots=True)
class StopAgent(_OneAgentCommand):
    """Stop ``name``'s live session (its whole process tree)."""

    ACTION: ClassVar[str] = "agent.stop"


@dataclass(frozen=True, slots=True)
class UpdateAgentContext(_Command):
    """Replace the body (role/context) of ``name``'s definition."""

    ACTION: ClassVar[str] = "agent.context.update"

    name: AgentName
    context: Annotated[str, text("the new context, replacing the old one entirely")]


@dataclass(frozen=True, slots=True)
class CreateSkill(_Command):
    """Write ``skills/<name>/SKILL.md``."""

    ACTION: ClassVar[str] = "skill.create"

    name: Annotated[str, slug("skill name")]
    description: Annotated[str, text("one line: what the skill does and when to use it")]
    body: Annotated[str, text("the skill's instructions (Markdown)")]


@dataclass(frozen=True, slots=True)
class SetWorkState(_Command):
    """Set the CALLER's own work-state row; the caller's identity comes from the door, not here."""

    ACTION: ClassVar[str] = "workstate.set"

    status: Annotated[Status, choice(Status, "working, waiting (on someone), blocked or idle")]
    intent: Annotated[str | None, text("what you are trying to achieve, one line")] = None
    ticket: Annotated[str | None, text("the ticket or issue you work on")] = None
    progress: Annotated[str | None, text("where you are, one line")] = None


@dataclass(frozen=True, slots=True)
class GetProjectWorkState(_Command):
    """Read the whole work state of the project."""

    ACTION: ClassVar[str] = "workstate.get"


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


# The one list of commands, in the order error messages list their actions.
Command: TypeAlias = (
    LaunchAgent
    | AskAgent
    | SpawnAgent
    | StopAgent
    | AgentChanges
    | MergeAgent
    | DiscardAgentChanges
    | UpdateAgentContext
    | CreateSkill
    | SetWorkState
    | GetProjectWorkState
)

COMMAND_TYPES: tuple[type[Command], ...] = get_args(Command)


def command_target(command: Command) -> str | None:
    """The agent or skill a command is about, as logged in ``OrchestratorRequestProcessed``: the
    name it declares (its slug field), or None for a command about no one (the work state)."""
    for field in fields_of(type(command)):
        if field.spec.kind == "slug":
            name: str = getattr(command, field.attr)
            return name
    return None
