"""Composition root: the only place that picks adapters and wires them to the use cases."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from idea.domain.builtin_profiles import builtin_profiles
from idea.domain.errors import CorruptFile, Invalid
from idea.domain.project import ProjectInfo
from idea.infrastructure.agent_store import MarkdownAgentStore
from idea.infrastructure.knowledge_store import MarkdownMemoryStore, MarkdownSkillStore
from idea.infrastructure.layout_store import JsonLayoutStore
from idea.infrastructure.live_state_store import JsonLiveStateStore
from idea.infrastructure.profile_store import JsonProfileStore
from idea.infrastructure.project_paths import IDEAI, ProjectPaths
from idea.infrastructure.project_store import JsonProjectStore
from idea.infrastructure.system import SystemClock, UuidGenerator


def user_shell() -> str:
    """The user's shell: ``$SHELL`` on POSIX, PowerShell on Windows."""
    if os.name == "nt":
        return shutil.which("pwsh") or shutil.which("powershell") or "powershell.exe"
    return os.environ.get("SHELL") or shutil.which("bash") or "/bin/sh"


def find_project_root(start: Path) -> Path | None:
    """``start`` or its nearest ancestor holding ``.ideai/project.json``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / IDEAI / "project.json").is_file():
            return folder
    return None


@dataclass
class ProjectServices:
    """The stores of one project, wired to the real clock and id generator."""

    paths: ProjectPaths
    info: ProjectInfo
    clock: SystemClock
    ids: UuidGenerator
    agents: MarkdownAgentStore
    profiles: JsonProfileStore
    layouts: JsonLayoutStore
    live_state: JsonLiveStateStore
    skills: MarkdownSkillStore
    memory: MarkdownMemoryStore
    problems: list[CorruptFile] = field(default_factory=list)


def project_services(root: Path) -> ProjectServices:
    """Open (creating ``.ideai/`` on first use) the project in ``root``.

    Raises ``Invalid`` if ``root`` is not a folder, ``CorruptFile`` if ``project.json`` is unusable.
    """
    root = root.resolve()
    if not root.is_dir():
        raise Invalid(f"project folder {root} does not exist or is not a folder")
    paths = ProjectPaths(root)
    clock, ids = SystemClock(), UuidGenerator()
    problems: list[CorruptFile] = []
    info = JsonProjectStore(paths, clock, ids).open_or_create(root.name)
    return ProjectServices(
        paths=paths,
        info=info,
        clock=clock,
        ids=ids,
        agents=MarkdownAgentStore(paths, clock, ids, problems.append),
        profiles=JsonProfileStore(paths, clock, builtin_profiles(user_shell())),
        layouts=JsonLayoutStore(paths, clock, ids),
        live_state=JsonLiveStateStore(paths, clock),
        skills=MarkdownSkillStore(paths, clock, problems.append),
        memory=MarkdownMemoryStore(paths, clock, problems.append),
        problems=problems,
    )
