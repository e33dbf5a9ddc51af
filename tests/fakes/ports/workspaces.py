"""The fake of the ``Workspaces`` port: scripted changes, recorded merges and discards."""

from __future__ import annotations

from pathlib import Path

from idea.domain.agent import Agent, Workspace
from idea.domain.errors import NotFound
from idea.domain.workspace import FileChange, MergeResult, WorkspaceChanges


class FakeWorkspaces:
    def __init__(self, root: Path = Path("/project")) -> None:
        self.root = root
        self.made: list[str] = []  # agents whose worktree was made
        self.merges: list[tuple[str, str]] = []  # (agent, commit message)
        self.discards: list[str] = []
        self.files: dict[str, tuple[FileChange, ...]] = {}  # what each agent changed

    def folder(self, agent: Agent) -> Path:
        if agent.workspace is Workspace.PROJECT:
            return self.root
        if agent.name not in self.made:
            self.made.append(agent.name)
        return self.root / ".ideai" / "worktrees" / agent.name

    def changes(self, agent: Agent) -> WorkspaceChanges:
        self._made(agent)
        files = self.files.get(agent.name, ())
        return WorkspaceChanges(f"idea/{agent.name}", "base0", 1 if files else 0, files, "", False)

    def merge(self, agent: Agent, message: str) -> MergeResult:
        self._made(agent)
        self.merges.append((agent.name, message))
        return MergeResult(
            f"idea/{agent.name}", "main", "commit1", len(self.files.get(agent.name, ()))
        )

    def discard(self, agent: Agent) -> str:
        self._made(agent)
        self.discards.append(agent.name)
        return "base0"

    def exists(self, agent: Agent) -> bool:
        return agent.name in self.made

    def remove(self, agent: Agent) -> None:
        self.made.remove(agent.name)

    def _made(self, agent: Agent) -> None:
        if agent.name not in self.made:
            raise NotFound(
                f"agent {agent.name} has no worktree yet (it is made at its first start)"
            )
