"""Agents: singletons defined by ``.ideai/agents/<name>.md`` (front matter + context body).

``Agent.from_markdown(name, text)`` and ``to_markdown()`` round-trip: known fields, unknown front
matter keys (kept in ``extra``) and the body, byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from idea.domain import frontmatter
from idea.domain.errors import Invalid
from idea.domain.frontmatter import FrontMatter
from idea.domain.names import validate_slug
from idea.domain.policy import ANYONE, parse_asks_from, render_asks_from
from idea.domain.profile import Mode

_KNOWN = (
    "id",
    "name",
    "profile",
    "mode",
    "model",
    "description",
    "workspace",
    "asks_from",
    "permission_mode",
    "host",
)
# An agent's context is read on each launch and shown in the UI's editor: a role, instructions,
# not a data file. Bounded so that one file cannot exceed a UI client's message bound.
CONTEXT_MAX_CHARS = 512 * 1024
# A model name reaches its CLI as one flag value: one line, bounded.
MODEL_MAX_CHARS = 200


class Workspace(StrEnum):
    """Where an agent's CLI works (DESIGN.md §14): the project folder, or a git worktree of its
    own (``.ideai/worktrees/<agent>`` on branch ``idea/<agent>``)."""

    PROJECT = "project"
    WORKTREE = "worktree"


@dataclass(frozen=True, slots=True)
class Agent:
    id: str
    name: str
    profile: str
    mode: Mode | None = None
    model: str | None = None
    description: str | None = None
    context: str = ""
    extra: FrontMatter = field(default_factory=dict)
    workspace: Workspace = Workspace.PROJECT
    # Who may ask it (DESIGN.md §15): ("*",) anyone, else these agents' names; the user always.
    asks_from: tuple[str, ...] = (ANYONE,)
    # How its CLI asks for permissions (``Profile.permission_modes``); None: as the CLI is set up.
    permission_mode: str | None = None
    # The machine its CLI runs on: a host of the user's ``hosts.json`` (DESIGN.md §16); None:
    # this one.
    host: str | None = None

    def __post_init__(self) -> None:
        validate_slug(self.name, "agent name")
        validate_slug(self.profile, "profile")
        if self.host is not None:
            validate_slug(self.host, f"agent {self.name}: field 'host'")
        if not self.id:
            raise Invalid("agent id must not be empty")
        if len(self.context) > CONTEXT_MAX_CHARS:
            raise Invalid(
                f"agent {self.name}: field 'context' holds {len(self.context):,} characters; "
                f"an agent's context holds at most {CONTEXT_MAX_CHARS:,}"
            )

    def renamed(self, name: str) -> Agent:
        return replace(self, name=name)

    def with_context(self, context: str) -> Agent:
        return replace(self, context=context)

    def front_matter(self) -> FrontMatter:
        front: FrontMatter = {"id": self.id, "name": self.name, "profile": self.profile}
        if self.mode is not None:
            front["mode"] = self.mode.value
        if self.model is not None:
            front["model"] = self.model
        if self.description is not None:
            front["description"] = self.description
        if self.workspace is not Workspace.PROJECT:
            front["workspace"] = self.workspace.value
        if self.asks_from != (ANYONE,):
            front["asks_from"] = render_asks_from(self.asks_from)
        if self.permission_mode is not None:
            front["permission_mode"] = self.permission_mode
        if self.host is not None:
            front["host"] = self.host
        front.update(self.extra)
        return front

    def to_markdown(self) -> str:
        return frontmatter.render(self.front_matter(), self.context)

    @staticmethod
    def from_markdown(name: str, text: str, new_id: str | None = None) -> Agent:
        """Parse an agent file; ``name`` (the file stem) wins over the front matter's ``name``.

        ``new_id`` is used when the file has no ``id`` (a hand-written agent).
        Raises ``Invalid`` naming the field that is wrong or missing.
        """
        doc = frontmatter.parse(text)
        front = doc.front
        agent_id = _scalar(front, "id") or new_id
        if not agent_id:
            raise Invalid(f"agent {name}: front matter field 'id' is missing")
        profile = _scalar(front, "profile")
        if not profile:
            raise Invalid(f"agent {name}: front matter field 'profile' is missing")
        mode_text = _scalar(front, "mode")
        try:
            mode = Mode(mode_text) if mode_text else None
        except ValueError:
            raise Invalid(
                f"agent {name}: field 'mode' must be terminal or structured, not {mode_text!r}"
            ) from None
        workspace_text = _scalar(front, "workspace")
        try:
            workspace = Workspace(workspace_text) if workspace_text else Workspace.PROJECT
        except ValueError:
            raise Invalid(
                f"agent {name}: field 'workspace' must be project or worktree, "
                f"not {workspace_text!r}"
            ) from None
        return Agent(
            id=agent_id,
            name=name,
            profile=profile,
            workspace=workspace,
            asks_from=parse_asks_from(
                _scalar(front, "asks_from"), f"agent {name}: field 'asks_from'"
            ),
            mode=mode,
            model=_scalar(front, "model"),
            permission_mode=_scalar(front, "permission_mode") or None,
            host=_scalar(front, "host") or None,
            description=_scalar(front, "description"),
            context=doc.body,
            extra={k: v for k, v in front.items() if k not in _KNOWN},
        )


@dataclass(frozen=True, slots=True)
class AgentIdReassigned:
    """Two agent files carried one id (a copied file): the copy was given an id of its own.

    Without it the two would be one agent: one session, one work-state row, one history."""

    name: str  # the copy
    original: str  # the agent that kept the id
    old_id: str
    new_id: str

    @property
    def message(self) -> str:
        return (
            f"agents/{self.name}.md had the id of agents/{self.original}.md (a copy?); "
            f"it is now an agent of its own, with a new id"
        )

    def to_dict(self) -> dict[str, str]:
        return {"code": "CONFLICT", "message": self.message, "agent": self.name}


def check_host(host: str | None, workspace: Workspace) -> str | None:
    """``host`` if an agent may run there; raises ``Invalid`` (field ``host``): not a host name,
    or with a worktree of its own (an agent on another host works in that host's checkout)."""
    if host is None:
        return None
    try:
        validate_slug(host, "host")
    except Invalid as exc:
        raise Invalid(exc.message, "host") from None
    if workspace is Workspace.WORKTREE:
        raise Invalid("host: an agent on another host works in its checkout there", "host")
    return host


def validate_model(value: str | None) -> str | None:
    """The model name to save (None: the CLI's default). Raises ``Invalid`` (field ``model``)."""
    if value is None or not value.strip():
        return None
    model = value.strip()
    if len(model) > MODEL_MAX_CHARS or any(ch.isspace() or not ch.isprintable() for ch in model):
        raise Invalid(
            f"model: {model[:40]!r} is not a model name: one word of at most "
            f"{MODEL_MAX_CHARS} printable characters",
            "model",
        )
    return model


def _scalar(front: FrontMatter, key: str) -> str | None:
    value = front.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Invalid(f"front matter field '{key}' must be a single value")
    return value
