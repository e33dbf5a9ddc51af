"""ProjectRuntime: one open project, all its parts wired, owned by the core asyncio loop.

Open runs reconciliation (DESIGN.md §7) in order and BEFORE any session is resumed; close takes a
snapshot of the running cells, then stops every session (whole process trees) and every watcher.
Everything here runs on one event loop; other threads only hand work to it. ``app/bootstrap/``
builds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from idea.app.terminals.epitaphs import TerminalEpitaphs
from idea.application.ask_agent import AgentAsker
from idea.application.event_bus import EventBus
from idea.application.hibernation import Hibernation
from idea.application.launch_agent import AgentLauncher
from idea.application.live_sessions import LiveSessions
from idea.application.orchestrator_service import OrchestratorService
from idea.application.ports import Clock, HostStore
from idea.application.reconcile_at_open import (
    reconcile_layouts,
    reconcile_lost_asks,
    reconcile_work_state,
)
from idea.application.resume_sessions import ResumeReport, resume_sessions
from idea.application.snapshot_running_agents import snapshot_running_agents
from idea.application.stop_agent import AgentStopper
from idea.application.workspace_trust import WorkspaceTrust
from idea.domain.agent import Agent, AgentIdReassigned
from idea.domain.errors import CorruptFile, IdeaError
from idea.domain.events import AsksLost, ProjectTrustChanged, StoreFileQuarantined
from idea.domain.json_types import JsonObject
from idea.domain.layout import Layouts
from idea.domain.project import ProjectInfo
from idea.domain.trust import TrustState
from idea.infrastructure.doors.file import FileDoor
from idea.infrastructure.doors.mcp.backend import RuntimeMcpBackend
from idea.infrastructure.doors.mcp.listener import McpListener
from idea.infrastructure.files.atomic import remove_stale_temps
from idea.infrastructure.processes.leftovers import kill_leftover_processes
from idea.infrastructure.processes.system import UuidGenerator
from idea.infrastructure.processes.tree import ProcessRecord
from idea.infrastructure.remote.links import HostLinks
from idea.infrastructure.stores.agents import MarkdownAgentStore
from idea.infrastructure.stores.ask_journal import JsonlAskJournal
from idea.infrastructure.stores.chat_log import JsonlChatLog
from idea.infrastructure.stores.delegation_log import JsonlDelegationLog
from idea.infrastructure.stores.knowledge import MarkdownMemoryStore, MarkdownSkillStore
from idea.infrastructure.stores.layouts import JsonLayoutStore
from idea.infrastructure.stores.mcp_secret import ensure_project_key
from idea.infrastructure.stores.paths import ProjectPaths
from idea.infrastructure.stores.policy import JsonPolicyStore
from idea.infrastructure.stores.profiles import JsonProfileStore
from idea.infrastructure.stores.project_lock import ProjectLock
from idea.infrastructure.stores.work_state import JsonWorkStateStore
from idea.infrastructure.workspaces.worktrees import MERGING, GitWorktrees

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class ProjectServices:
    """The stores of one project, wired to the real clock and id generator."""

    paths: ProjectPaths
    info: ProjectInfo
    clock: Clock
    ids: UuidGenerator
    agents: MarkdownAgentStore
    profiles: JsonProfileStore
    layouts: JsonLayoutStore
    workspaces: GitWorktrees
    work_state: JsonWorkStateStore
    skills: MarkdownSkillStore
    memory: MarkdownMemoryStore
    delegations: JsonlDelegationLog
    chat_log: JsonlChatLog
    trust: WorkspaceTrust
    policy: JsonPolicyStore
    asks: JsonlAskJournal  # the asks in flight (DESIGN.md §15)
    hosts: HostStore  # the user's hosts.json: where agents may run besides here (§16)
    problems: list[CorruptFile] = field(default_factory=list)
    reassigned: list[AgentIdReassigned] = field(default_factory=list)  # copied agent files


@dataclass(frozen=True, slots=True)
class Core:
    """The application wired: one bus, the live sessions, the use cases, the dispatcher."""

    bus: EventBus
    sessions: LiveSessions
    launcher: AgentLauncher
    stopper: AgentStopper
    asker: AgentAsker
    orchestrator: OrchestratorService
    hibernation: Hibernation


@dataclass
class OpenReport:
    duplicate_cells_cleared: int = 0
    orphan_rows_set_idle: list[str] = field(default_factory=list)
    leftover_processes_killed: list[ProcessRecord] = field(default_factory=list)
    resumed: ResumeReport | None = None
    agent_ids_reassigned: list[AgentIdReassigned] = field(default_factory=list)
    worktrees: list[str] = field(default_factory=list)  # what reconciling them did
    lost_asks: list[JsonObject] = field(default_factory=list)  # in flight when it last ended
    restricted: bool = False  # opened restricted (DESIGN.md §13): nothing resumed, no file door


class ProjectRuntime:
    def __init__(
        self,
        services: ProjectServices,
        core: Core,
        file_door: FileDoor,
        mcp_backend: RuntimeMcpBackend,
        listener: Callable[[bytes], McpListener],
        epitaphs: TerminalEpitaphs,
        closing: Sequence[Callable[[], Awaitable[None]]] = (),
        hosts: HostLinks | None = None,
    ) -> None:
        self._closing = tuple(closing)  # what else ends with the project (watchers)
        # The links to the hosts its remote agents run on (DESIGN.md §16): ended after them.
        self.hosts = hosts
        self.epitaphs = epitaphs  # what each terminal agent said last when it exited by itself
        self.services = services
        self.core = core
        self.bus = core.bus
        self.sessions = core.sessions
        self.launch = core.launcher
        self.stop_agent = core.stopper
        self.ask = core.asker
        self.orchestrator = core.orchestrator
        self.delegations = services.delegations
        self.chat_log = services.chat_log
        self.file_door = file_door
        self.mcp_backend = mcp_backend
        self._listener = listener
        self.listener: McpListener | None = None
        self.report = OpenReport()
        self._closed = False
        self._lock: ProjectLock | None = None
        self._resume = self._door = self._door_started = False
        self._resumable: Layouts | None = None
        self._hibernating: asyncio.Task[None] | None = None

    async def open(self, *, resume: bool, file_door: bool, mcp: bool) -> None:
        """Reconcile, then start the endpoint, resume sessions and the file door.

        Raises ``Conflict`` (the project is open in another IdeA process), ``Internal``."""
        s = self.services
        # First: reconciling would take another IdeA's live agents for a crash's leftovers.
        self._lock = ProjectLock.acquire(s.paths.owner_lock, s.info.name)
        key = ensure_project_key(s.paths.mcp_key)
        for folder in (s.paths.ideai, s.paths.agents, s.paths.memory):
            if folder.is_dir():
                remove_stale_temps(folder)
        # §7 step 1: one host cell per agent.
        layouts = self._retry_once(lambda: reconcile_layouts(s.layouts))
        self.report.duplicate_cells_cleared = len(layouts.cleared)
        # One id per agent file, before any session or row is looked up by id (a copied file).
        s.agents.all()
        self.report.agent_ids_reassigned = list(s.reassigned)
        # §7 step 2: nothing is live yet, so every busy row is an orphan.
        self.report.orphan_rows_set_idle = self._retry_once(
            lambda: reconcile_work_state(s.work_state, self.sessions.is_agent_live, s.clock)
        )
        await s.work_state.flushed()
        # §7 step 3: processes a crashed run left behind.
        self.report.leftover_processes_killed = kill_leftover_processes(s.paths)
        # Asks in flight when the app last ended: logged LOST (file asks are answered again).
        self.report.lost_asks = reconcile_lost_asks(s.asks, s.delegations, s.clock)
        if self.report.lost_asks:
            self.bus.publish(AsksLost(len(self.report.lost_asks)))
        # Agents' worktrees: ones deleted by hand, locks and a merge a crash cut short (§14).
        await self._reconcile_worktrees()
        for problem in s.problems:
            self._quarantined(problem)
        self._hibernating = asyncio.create_task(
            self.core.hibernation.run(), name=f"hibernation-{s.info.name}"
        )
        # The endpoint is up before any CLI starts: they connect to it at start-up.
        if mcp:
            self.listener = self._listener(key)
            await self.listener.start()
        self._resume, self._door = resume, file_door
        self._resumable = layouts.layouts
        if s.trust.restricted:
            # A project from elsewhere: shown, but nothing it defines runs until it is trusted.
            self.report.restricted = True
            log.warning("%s is restricted: nothing runs until it is trusted", s.paths.root)
            return
        await self._start_what_the_project_runs()

    async def trust(self) -> None:
        """The user trusts the project as it is now: what a trusted open would have started
        (resumed agents, the file door) starts. Raises ``Internal`` (the trust file)."""
        was_restricted = self.services.trust.restricted
        self.services.trust.grant()
        if was_restricted and not self._closed:
            # What the open left for trust (DESIGN.md §18): a merge cut short, worktree records.
            await self._reconcile_worktrees()
        self.bus.publish(ProjectTrustChanged(TrustState.TRUSTED.value))
        if was_restricted and not self._closed:
            await self._start_what_the_project_runs()

    async def _reconcile_worktrees(self) -> None:
        """In a restricted project this only says what waits for trust (no git write)."""
        s = self.services
        if not (s.paths.ideai / "worktrees").is_dir() and not (s.paths.run / MERGING).exists():
            return
        try:
            self.report.worktrees = await asyncio.to_thread(s.workspaces.reconcile)
        except IdeaError as exc:
            log.warning("could not reconcile the agents' worktrees: %s", exc.message)
        for action in self.report.worktrees:
            log.warning("worktrees: %s", action)

    async def _start_what_the_project_runs(self) -> None:
        # §7 step 4: resume, one session per agent.
        if self._resume and self._resumable is not None:
            layouts, self._resumable = self._resumable, None
            self.report.resumed = await resume_sessions(layouts, self.services.agents, self.launch)
        if self._door and not self._door_started:
            self._door_started = True
            await self.file_door.start()

    async def close(self) -> None:
        """Snapshot, stop every session and watcher; idempotent."""
        if self._closed:
            return
        self._closed = True
        for close in self._closing:
            await close()
        if self._hibernating is not None:
            self._hibernating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._hibernating
        self.core.hibernation.close()
        if self._lock is None:
            return  # never owned the project (another IdeA has it): touch nothing
        try:
            await self.file_door.stop()
            try:
                # Restricted, nothing ran: the cells the project says were running stay so.
                if not self.report.restricted or self._resumable is None:
                    asleep = {
                        agent_id: (a.node_id, a.conversation_id)
                        for agent_id, a in self.core.hibernation.asleep().items()
                    }
                    snapshot_running_agents(self.services.layouts, self.sessions, asleep)
            except CorruptFile as exc:
                self._quarantined(exc)
            await self.ask.close()
            await self.orchestrator.close()
            await self.stop_agent.stop_all("project closed")
            if self.hosts is not None:
                await self.hosts.close()
            if self.listener is not None:
                await self.listener.stop()
        finally:
            with contextlib.suppress(IdeaError):  # the store has logged why
                await self.services.work_state.flushed()  # before another IdeA may open it
            self._lock.release()

    def would_resume(self) -> list[Agent]:
        """The agents whose cells were running when the project was last closed."""
        ids = {leaf.agent for leaf in self.layouts().leaves() if leaf.agent_was_running}
        return [agent for agent in self.services.agents.all() if agent.id in ids]

    def layouts(self) -> Layouts:
        return self.services.layouts.load()

    def _retry_once(self, step: Callable[[], T]) -> T:
        """A store file that did not parse is moved aside; the step then runs on defaults."""
        try:
            return step()
        except CorruptFile as exc:
            self._quarantined(exc)
            return step()

    def _quarantined(self, problem: CorruptFile) -> None:
        """Every file moved aside is kept in ``services.problems`` (the UI lists them)."""
        known = {p.quarantined_to for p in self.services.problems}
        if problem.quarantined_to not in known:
            self.services.problems.append(problem)
        log.warning("%s", problem.message)
        self.bus.publish(StoreFileQuarantined(problem.path, problem.quarantined_to, problem.reason))
