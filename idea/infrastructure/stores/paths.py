"""Where each piece of a project's state lives under ``<project>/.ideai/`` (DESIGN.md §4)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

IDEAI = ".ideai"
GITIGNORE = (
    "# Written by IdeA: per-machine runtime files, logs and agents' worktrees stay out of git.\n"
    "run/\nlog/\nworktrees/\n"
)


# Not slotted: cached_property stores each path once (they are asked for on hot paths).
@dataclass(frozen=True)
class ProjectPaths:
    root: Path

    @cached_property
    def ideai(self) -> Path:
        return self.root / IDEAI

    @cached_property
    def project_file(self) -> Path:
        return self.ideai / "project.json"

    @cached_property
    def gitignore(self) -> Path:
        return self.ideai / ".gitignore"

    @cached_property
    def agents(self) -> Path:
        return self.ideai / "agents"

    def agent_file(self, name: str) -> Path:
        return self.agents / f"{name}.md"

    @cached_property
    def profiles(self) -> Path:
        return self.ideai / "profiles.json"

    @cached_property
    def policy(self) -> Path:
        return self.ideai / "policy.json"

    @cached_property
    def asks_journal(self) -> Path:
        return self.run / "asks.jsonl"

    @cached_property
    def layouts(self) -> Path:
        return self.ideai / "layouts.json"

    @cached_property
    def work_state(self) -> Path:
        return self.ideai / "live-state.json"

    @cached_property
    def skills(self) -> Path:
        return self.ideai / "skills"

    def skill_file(self, name: str) -> Path:
        return self.skills / name / "SKILL.md"

    @cached_property
    def memory(self) -> Path:
        return self.ideai / "memory"

    def memory_file(self, slug: str) -> Path:
        return self.memory / f"{slug}.md"

    @cached_property
    def memory_index(self) -> Path:
        return self.memory / "INDEX.md"

    @cached_property
    def orchestrator(self) -> Path:
        return self.ideai / "orchestrator"

    @cached_property
    def log(self) -> Path:
        return self.ideai / "log"

    @cached_property
    def delegations_log(self) -> Path:
        return self.log / "delegations.jsonl"

    @cached_property
    def chats(self) -> Path:
        return self.log / "chats"

    @cached_property
    def orchestrator_done(self) -> Path:
        return self.orchestrator / "done"

    @cached_property
    def run(self) -> Path:
        return self.ideai / "run"

    @cached_property
    def mcp_key(self) -> Path:
        return self.run / "mcp.key"

    @cached_property
    def owner_lock(self) -> Path:
        # Not a slug (it has a dot): no agent's run dir can have this name.
        return self.run / "owner.lock"

    @cached_property
    def edits(self) -> Path:
        # IdeA's writers of agent files and of the policy hold ``run/edits.lock`` (file_version.py).
        return self.run / "edits"

    @cached_property
    def replies(self) -> Path:
        # Not a slug (it has a dot): no agent's run dir can have this name.
        return self.run / "replies.d"

    def run_dir(self, agent_name: str) -> Path:
        return self.run / agent_name
