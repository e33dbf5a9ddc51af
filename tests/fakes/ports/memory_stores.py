"""In-memory fakes of the store ports, with the same errors as the real stores."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from idea.domain.agent import Agent
from idea.domain.builtin_profiles import builtin_profiles
from idea.domain.errors import ChangedOnDisk, Conflict, NotFound
from idea.domain.host import Host, unknown_host
from idea.domain.knowledge import MemoryNote, Skill
from idea.domain.layout import Layouts
from idea.domain.names import validate_slug
from idea.domain.profile import Profile
from idea.domain.work_state import WorkState


class InMemoryAgentStore:
    def __init__(self, *agents: Agent) -> None:
        self.agents: dict[str, Agent] = {a.name: a for a in agents}

    def all(self) -> list[Agent]:
        return [self.agents[name] for name in sorted(self.agents)]

    def get(self, name: str) -> Agent:
        validate_slug(name, "agent name")
        if name not in self.agents:
            raise NotFound(f"no agent named '{name}'")
        return self.agents[name]

    def get_versioned(self, name: str) -> tuple[Agent, str]:
        return self.get(name), self.version(name)

    def version(self, name: str) -> str:
        """Like the real store's: the hash of the agent's file form; "" for no agent."""
        agent = self.agents.get(name)
        return "" if agent is None else hashlib.sha256(agent.to_markdown().encode()).hexdigest()

    def check(self, name: str, expected: str | None, yours: Agent) -> None:
        version = self.version(name)
        if expected is not None and expected != version:
            on_disk = self.agents[name].to_markdown() if name in self.agents else ""
            changed = ChangedOnDisk(f"agents/{name}.md", version, on_disk, yours.to_markdown())
            raise Conflict.changed_on_disk(changed)

    def get_by_id(self, agent_id: str) -> Agent:
        for agent in self.agents.values():
            if agent.id == agent_id:
                return agent
        raise NotFound(f"no agent with id '{agent_id}'")

    def exists(self, name: str) -> bool:
        return name in self.agents

    def save(self, agent: Agent, expected_version: str | None = None) -> None:
        self.check(agent.name, expected_version, agent)
        current = self.agents.get(agent.name)
        if current is not None and current.id != agent.id:
            raise Conflict(f"an agent named '{agent.name}' already exists")
        self.agents[agent.name] = agent

    def rename(self, old_name: str, new_name: str, expected_version: str | None = None) -> Agent:
        agent = self.get(old_name)
        self.check(old_name, expected_version, agent.renamed(new_name))
        if new_name in self.agents and new_name != old_name:
            raise Conflict(f"an agent named '{new_name}' already exists")
        del self.agents[old_name]
        self.agents[new_name] = agent.renamed(new_name)
        return self.agents[new_name]

    def delete(self, name: str) -> None:
        self.get(name)
        del self.agents[name]


class InMemoryProfileStore:
    def __init__(self, profiles: dict[str, Profile] | None = None) -> None:
        self.profiles = profiles if profiles is not None else builtin_profiles("/bin/sh")

    def all(self) -> dict[str, Profile]:
        return dict(self.profiles)

    def get(self, name: str) -> Profile:
        if name not in self.profiles:
            raise NotFound(f"no profile named '{name}'")
        return self.profiles[name]


class InMemoryHostStore:
    def __init__(self, *hosts: Host) -> None:
        self.hosts: dict[str, Host] = {h.name: h for h in hosts}

    def all(self) -> dict[str, Host]:
        return dict(self.hosts)

    def get(self, name: str) -> Host:
        if name not in self.hosts:
            raise unknown_host(name, self.hosts)
        return self.hosts[name]


class InMemoryLayoutStore:
    def __init__(self, layouts: Layouts | None = None) -> None:
        self.layouts = layouts or Layouts.empty("tab-1", "leaf-1")
        self.saves = 0

    def load(self) -> Layouts:
        return self.layouts

    def save(self, layouts: Layouts) -> None:
        self.layouts = layouts
        self.saves += 1


class InMemoryWorkStateStore:
    def __init__(self, state: WorkState | None = None) -> None:
        self.state = state or WorkState()

    def load(self) -> WorkState:
        return self.state

    def update(self, change: Callable[[WorkState], WorkState]) -> WorkState:
        self.state = change(self.state)
        return self.state

    async def flushed(self) -> None:
        pass


class InMemorySkillStore:
    def __init__(self) -> None:
        self.skills: dict[str, Skill] = {}

    def all(self) -> list[Skill]:
        return [self.skills[k] for k in sorted(self.skills)]

    def get(self, name: str) -> Skill:
        if name not in self.skills:
            raise NotFound(f"no skill named '{name}'")
        return self.skills[name]

    def save(self, skill: Skill) -> None:
        self.skills[skill.name] = skill


class InMemoryMemoryStore:
    def __init__(self) -> None:
        self.notes: dict[str, MemoryNote] = {}

    def all(self) -> list[MemoryNote]:
        return [self.notes[k] for k in sorted(self.notes)]

    def get(self, slug: str) -> MemoryNote:
        if slug not in self.notes:
            raise NotFound(f"no memory note '{slug}'")
        return self.notes[slug]

    def save(self, note: MemoryNote) -> None:
        self.notes[note.slug] = note

    def delete(self, slug: str) -> None:
        self.get(slug)
        del self.notes[slug]
