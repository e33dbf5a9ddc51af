"""Test worlds built through the composition root's own wiring (``bootstrap.wire_core``) with the
fakes of every port: cosmicpython's ``bootstrap_test_app``. No test wires use cases by hand."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from idea.app.bootstrap import project_services, wire_core
from idea.app.runtime import Core
from idea.application.ask_deadline import DEFAULT_QUEUE_CAP_S, DEFAULT_TURN_TIMEOUT_S
from idea.domain.agent import Agent
from idea.domain.layout import Layouts
from idea.domain.policy import Policy
from tests.fakes.ports.clock import FakeClock, SequentialIds
from tests.fakes.ports.governance import InMemoryPolicyStore, MemoryAskJournal
from tests.fakes.ports.memory_log import MemoryDelegationLog
from tests.fakes.ports.memory_stores import (
    InMemoryAgentStore,
    InMemoryLayoutStore,
    InMemoryProfileStore,
    InMemorySkillStore,
    InMemoryWorkStateStore,
)
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.fakes.ports.trust import FakeTrust
from tests.fakes.ports.workspaces import FakeWorkspaces


@dataclass
class AppWorld:
    agents: InMemoryAgentStore
    profiles: InMemoryProfileStore
    skills: InMemorySkillStore
    work_state: InMemoryWorkStateStore
    layouts: InMemoryLayoutStore
    workspaces: FakeWorkspaces
    log: MemoryDelegationLog
    clock: FakeClock
    starter: FakeSessionStarter
    trust: FakeTrust
    policy: InMemoryPolicyStore
    journal: MemoryAskJournal
    core: Core
    events: list[object] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.bus = self.core.bus
        self.sessions = self.core.sessions
        self.launch = self.core.launcher
        self.stop = self.core.stopper
        self.ask = self.core.asker
        self.service = self.core.orchestrator
        self.bus.subscribe(self.events.append)

    async def close(self) -> None:
        await self.ask.close()
        await self.service.close()
        await self.stop.stop_all("test over")


def bootstrap_test_app(
    *agents: Agent,
    starter: FakeSessionStarter | None = None,
    ask_timeout_s: float = DEFAULT_TURN_TIMEOUT_S,
    queue_cap_s: float = DEFAULT_QUEUE_CAP_S,
    layouts: Layouts | None = None,
    caller_timeout_s: float | None = None,
    margin_s: float = 0.2,
    policy: Policy | None = None,
) -> AppWorld:
    """The application over in-memory stores, a fake clock and fake CLIs; the layout is one tab
    with one empty cell, ``leaf-1``, unless ``layouts`` says otherwise."""
    stores = {
        "agents": InMemoryAgentStore(*agents),
        "profiles": InMemoryProfileStore(),
        "skills": InMemorySkillStore(),
        "work_state": InMemoryWorkStateStore(),
        "layouts": InMemoryLayoutStore(layouts),
        "workspaces": FakeWorkspaces(),
        "log": MemoryDelegationLog(),
        "clock": FakeClock(),
        "starter": starter or FakeSessionStarter(),
        "trust": FakeTrust(),
        "policy": InMemoryPolicyStore(policy),
        "journal": MemoryAskJournal(),
    }
    core = wire_core(
        agents=stores["agents"],
        profiles=stores["profiles"],
        skills=stores["skills"],
        work_state=stores["work_state"],
        layouts=stores["layouts"],
        workspaces=stores["workspaces"],
        delegations=stores["log"],
        starter=stores["starter"],
        clock=stores["clock"],
        ids=SequentialIds("new"),
        trust=stores["trust"],
        policy=stores["policy"],
        journal=stores["journal"],
        ask_timeout_s=ask_timeout_s,
        queue_cap_s=queue_cap_s,
        caller_timeout_s=caller_timeout_s,
        margin_s=margin_s,
    )
    return AppWorld(core=core, **stores)


def trust_project(root: Path) -> None:
    """The test user trusts a project the test made by hand (as `idea trust` does): a `.ideai/`
    written before IdeA first opened the folder is otherwise treated as someone else's."""
    project_services(root).trust.grant()
