"""Ports: what the use cases need from the outside world, as small ``typing.Protocol``s.

Adapters live in ``idea.infrastructure``; fakes in ``tests/fakes``. Every method documents the
``IdeaError`` subclasses it raises; anything else escaping an adapter is a bug.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from idea.domain.agent import Agent
from idea.domain.errors import CorruptFile
from idea.domain.host import Host
from idea.domain.json_types import JsonObject
from idea.domain.knowledge import MemoryNote, Skill
from idea.domain.layout import Layouts
from idea.domain.policy import Policy
from idea.domain.profile import Profile
from idea.domain.project import ProjectInfo
from idea.domain.trust import TrustEntry
from idea.domain.work_state import WorkState
from idea.domain.workspace import MergeResult, WorkspaceChanges


class Clock(Protocol):
    def now_ms(self) -> int:
        """Wall-clock milliseconds since the epoch (timestamps written to disk)."""
        ...

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin, for durations and deadlines."""
        ...


class IdGenerator(Protocol):
    def new_id(self) -> str:
        """A fresh unique id (uuid4 text in production)."""
        ...


CorruptionReporter = Callable[[CorruptFile], None]
"""Told about every file moved aside because it did not parse (the UI surfaces them)."""


class ProjectStore(Protocol):
    def open_or_create(self, name: str) -> ProjectInfo:
        """Read ``project.json``, creating ``.ideai/`` with a fresh id on first open.

        Raises ``CorruptFile`` (moved aside) or ``Internal`` (I/O).
        """
        ...


class AgentStore(Protocol):
    def all(self) -> list[Agent]:
        """Every agent, by name; unreadable files are moved aside and reported, not raised."""
        ...

    def get(self, name: str) -> Agent:
        """Raises ``NotFound``, ``Invalid`` (bad name), ``CorruptFile``."""
        ...

    def get_versioned(self, name: str) -> tuple[Agent, str]:
        """The agent and its file's version (what ``save`` and ``rename`` compare with); a
        change between the two reads gives an older version, never a newer one. Raises as
        ``get``."""
        ...

    def get_by_id(self, agent_id: str) -> Agent:
        """Raises ``NotFound``."""
        ...

    def exists(self, name: str) -> bool: ...

    def save(self, agent: Agent, expected_version: str | None = None) -> None:
        """Create or replace ``<name>.md`` atomically. Raises ``Conflict`` with ``changed``
        (nothing written) when ``expected_version`` is given and the file's version is another
        (None: whatever is there is replaced), ``Conflict`` if another agent already has that
        name, ``Internal`` (I/O)."""
        ...

    def rename(self, old_name: str, new_name: str, expected_version: str | None = None) -> Agent:
        """Raises ``NotFound``, ``Conflict`` (with ``changed``: ``old_name``'s file is not at
        ``expected_version``; nothing written), ``Conflict`` (new name taken), ``Invalid``."""
        ...

    def delete(self, name: str) -> None:
        """Raises ``NotFound``."""
        ...


class ProfileStore(Protocol):
    def all(self) -> dict[str, Profile]:
        """Built-ins, overridden or extended by ``profiles.json``.

        Raises ``CorruptFile``, ``Invalid``.
        """
        ...

    def get(self, name: str) -> Profile:
        """Raises ``NotFound`` (listing the known profiles)."""
        ...


class LayoutStore(Protocol):
    def load(self) -> Layouts:
        """The saved layouts, or the default one. Raises ``CorruptFile`` (moved aside)."""
        ...

    def save(self, layouts: Layouts) -> None: ...


class WorkStateStore(Protocol):
    def load(self) -> WorkState:
        """Raises ``CorruptFile`` (moved aside)."""
        ...

    def update(self, change: Callable[[WorkState], WorkState]) -> WorkState:
        """Read, change and write back as one step (no lost update within the process); the
        write may still be on its way when this returns (``flushed``)."""
        ...

    async def flushed(self) -> None:
        """Once every update made so far is on disk. Raises ``Internal`` (the write failed:
        its updates are dropped)."""
        ...


class SkillStore(Protocol):
    def all(self) -> list[Skill]: ...

    def get(self, name: str) -> Skill:
        """Raises ``NotFound``."""
        ...

    def save(self, skill: Skill) -> None: ...


class MemoryStore(Protocol):
    def all(self) -> list[MemoryNote]: ...

    def get(self, slug: str) -> MemoryNote:
        """Raises ``NotFound``."""
        ...

    def save(self, note: MemoryNote) -> None:
        """Write the note, then ``INDEX.md`` so the index always lists every note."""
        ...

    def delete(self, slug: str) -> None:
        """Raises ``NotFound``; rewrites ``INDEX.md``."""
        ...


class DelegationLog(Protocol):
    """``.ideai/log/delegations.jsonl``: one line per processed orchestrator command."""

    def append(self, record: JsonObject) -> None:
        """Never raises: a log that cannot be written must not fail the command."""
        ...

    def recent(self, limit: int) -> list[JsonObject]:
        """The last ``limit`` records, oldest first."""
        ...


class Workspaces(Protocol):
    """Where agents work: the project folder, or a git worktree of their own (DESIGN.md §14).
    Blocking (git runs): callers use a worker thread."""

    def folder(self, agent: Agent) -> Path:
        """Its working folder, a worktree made at first use. Raises ``Invalid``, ``Conflict``."""
        ...

    def changes(self, agent: Agent) -> WorkspaceChanges:
        """Raises ``NotFound`` (no worktree yet), ``Invalid``."""
        ...

    def merge(self, agent: Agent, message: str) -> MergeResult:
        """Raises ``Conflict`` (listing the files; the project untouched), ``NotFound``."""
        ...

    def discard(self, agent: Agent) -> str:
        """Back to where its branch left the project's; that commit. Raises ``NotFound``."""
        ...

    def exists(self, agent: Agent) -> bool:
        """Whether its first start made it a worktree."""
        ...

    def summary(self, agent: Agent) -> tuple[int, int]:
        """(files changed, commits ahead of the project's branch); (0, 0) before it exists."""
        ...

    def remove(self, agent: Agent) -> None:
        """Its worktree and its branch, gone (the agent is deleted and the user said so)."""
        ...


class TrustStore(Protocol):
    """The projects this user trusts, one entry per checkout (its canonical root)."""

    def get(self, root: str) -> TrustEntry | None:
        """Never raises on a corrupt file (it is moved aside; nothing is trusted)."""
        ...

    def put(self, entry: TrustEntry) -> None:
        """Raises ``Internal`` when the file cannot be written."""
        ...


class ProjectTrust(Protocol):
    """What the use cases ask of workspace trust (``application/workspace_trust.py``)."""

    def require(self, what: str) -> None:
        """Raises ``Untrusted`` (naming ``what``) while the project is restricted."""
        ...


class AskJournal(Protocol):
    """``.ideai/run/asks.jsonl``: the asks in flight, so that a crash cannot hide one (§15).
    Writing never raises."""

    def started(self, ask_id: str, record: JsonObject) -> None: ...

    def ended(self, ask_id: str, record: JsonObject) -> None: ...

    def unfinished(self) -> list[JsonObject]:
        """The start records of asks that never ended (read at open), oldest first."""
        ...

    def reset(self) -> None:
        """Forget what the file holds (after reconciliation)."""
        ...


class PolicyStore(Protocol):
    """``.ideai/policy.json`` (DESIGN.md §15)."""

    def current(self) -> Policy:
        """The policy as the file says now; the defaults when absent or unusable (the file is
        then moved aside and reported)."""
        ...

    def current_versioned(self) -> tuple[Policy, str]:
        """The policy and its file's version (what ``save`` compares with; "" when there is no
        file); a change between the two reads gives an older version, never a newer one."""
        ...

    def save(self, policy: Policy, expected_version: str | None = None) -> None:
        """Raises ``Conflict`` with ``changed`` (nothing written) when ``expected_version`` is
        given and the file's version is another (None: whatever is there is replaced),
        ``Internal`` (I/O)."""
        ...


class HostStore(Protocol):
    """The SSH hosts this user set up, ``hosts.json`` in the user's config folder (§16)."""

    def all(self) -> dict[str, Host]:
        """Every host by name (none when the file is absent). Raises ``Invalid`` (the file is
        unusable: the message names the file and the field), ``Internal`` (I/O)."""
        ...

    def get(self, name: str) -> Host:
        """Raises ``NotFound`` (naming the configured hosts), ``Invalid``, ``Internal``."""
        ...
