"""What an agent changed in its own worktree (DESIGN.md §14): the values the doors return."""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.json_types import JsonObject

# A diff is shown, not stored: past this many characters it is cut, and the cut is said.
DIFF_MAX_CHARS = 512 * 1024


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    status: str  # added | modified | deleted | renamed
    additions: int
    deletions: int

    def to_json(self) -> JsonObject:
        return {
            "path": self.path,
            "status": self.status,
            "additions": self.additions,
            "deletions": self.deletions,
        }


@dataclass(frozen=True, slots=True)
class WorkspaceChanges:
    branch: str
    base: str  # the commit the agent's work is compared with (where its branch left the project's)
    ahead: int  # the agent's commits not in the project's branch
    files: tuple[FileChange, ...]
    diff: str
    truncated: bool  # the diff was cut at DIFF_MAX_CHARS

    def to_json(self) -> JsonObject:
        return {
            "branch": self.branch,
            "base": self.base,
            "ahead": self.ahead,
            "files": [f.to_json() for f in self.files],
            "diff": self.diff,
            "truncated": self.truncated,
        }


@dataclass(frozen=True, slots=True)
class MergeResult:
    branch: str
    into: str  # the project's branch
    commit: str  # the project's HEAD after the merge
    files: int  # how many files the merge changed

    def to_json(self) -> JsonObject:
        return {
            "branch": self.branch,
            "into": self.into,
            "commit": self.commit,
            "files": self.files,
        }
