"""Where each piece of a project's state lives under ``<project>/.ideai/`` (DESIGN.md §4)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

IDEAI = ".ideai"
GITIGNORE = "# Written by IdeA: per-machine runtime files and logs stay out of git.\nrun/\nlog/\n"


@dataclass(frozen=True, slots=True)
class ProjectPaths:
    root: Path

    @property
    def ideai(self) -> Path:
        return self.root / IDEAI

    @property
    def project_file(self) -> Path:
        return self.ideai / "project.json"

    @property
    def gitignore(self) -> Path:
        return self.ideai / ".gitignore"

    @property
    def agents(self) -> Path:
        return self.ideai / "agents"

    def agent_file(self, name: str) -> Path:
        return self.agents / f"{name}.md"

    @property
    def profiles(self) -> Path:
        return self.ideai / "profiles.json"

    @property
    def layouts(self) -> Path:
        return self.ideai / "layouts.json"

    @property
    def live_state(self) -> Path:
        return self.ideai / "live-state.json"

    @property
    def skills(self) -> Path:
        return self.ideai / "skills"

    def skill_file(self, name: str) -> Path:
        return self.skills / name / "SKILL.md"

    @property
    def memory(self) -> Path:
        return self.ideai / "memory"

    def memory_file(self, slug: str) -> Path:
        return self.memory / f"{slug}.md"

    @property
    def memory_index(self) -> Path:
        return self.memory / "INDEX.md"

    @property
    def orchestrator(self) -> Path:
        return self.ideai / "orchestrator"

    @property
    def log(self) -> Path:
        return self.ideai / "log"

    @property
    def delegations_log(self) -> Path:
        return self.log / "delegations.jsonl"

    @property
    def orchestrator_done(self) -> Path:
        return self.orchestrator / "done"

    @property
    def run(self) -> Path:
        return self.ideai / "run"

    @property
    def mcp_key(self) -> Path:
        return self.run / "mcp.key"

    def run_dir(self, agent_name: str) -> Path:
        return self.run / agent_name
