"""ProjectRuntime: one open project, all its parts wired, owned by the core asyncio loop.

Open runs reconciliation (DESIGN.md §7) in order and BEFORE any session is resumed; close takes a
snapshot of the running cells, then stops every session (whole process trees) and every watcher.
Everything here runs on one event loop; other threads only hand work to it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from idea.app.bootstrap import ProjectServices, project_services
from idea.app.mcp_backend import RuntimeMcpBackend
from idea.application.answer_request import answer_request, error_response
from idea.application.ask_agent import AskAgent
from idea.application.event_bus import EventBus
from idea.application.launch_agent import LaunchAgent
from idea.application.live_sessions import LiveSessions
from idea.application.orchestrator_service import OrchestratorService
from idea.application.reconcile_at_open import reconcile_layouts, reconcile_live_state
from idea.application.resume_sessions import ResumeReport, resume_sessions
from idea.application.session_ports import SessionStarter
from idea.application.snapshot_running_agents import snapshot_running_agents
from idea.application.stop_agent import StopAgent
from idea.domain.commands import Source
from idea.domain.errors import CorruptFile, Invalid
from idea.domain.events import StoreFileQuarantined
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.layout import Layouts
from idea.domain.profile import AdapterKind
from idea.endpoint.naming import mcp_endpoint
from idea.infrastructure.atomic_file import remove_stale_temps
from idea.infrastructure.chat_log import JsonlChatLog
from idea.infrastructure.claude_session import start_claude_session
from idea.infrastructure.codex_session import start_codex_session
from idea.infrastructure.delegation_log import JsonlDelegationLog
from idea.infrastructure.file_door import FileDoor
from idea.infrastructure.gemini_session import start_gemini_session
from idea.infrastructure.leftovers import kill_leftover_processes
from idea.infrastructure.mcp_listener import McpListener
from idea.infrastructure.mcp_server import McpConnection
from idea.infrastructure.process_tree import ProcessRecord
from idea.infrastructure.project_key import ensure_project_key
from idea.infrastructure.project_lock import ProjectLock
from idea.infrastructure.session_starter import CliSessionStarter
from idea.infrastructure.terminal_injection import TERMINAL_INJECTORS
from idea.infrastructure.terminal_launcher import default_terminal_launcher

log = logging.getLogger(__name__)
T = TypeVar("T")

ASK_TIMEOUT_S = 300.0
# MCP tool calls must be allowed to outlast the longest ask (turn + some queueing).
TOOL_TIMEOUT_S = ASK_TIMEOUT_S * 2


@dataclass
class OpenReport:
    duplicate_cells_cleared: int = 0
    orphan_rows_set_idle: list[str] = field(default_factory=list)
    leftover_processes_killed: list[ProcessRecord] = field(default_factory=list)
    resumed: ResumeReport | None = None


def default_starter(
    services: ProjectServices, with_mcp: bool, base_env: Mapping[str, str] | None = None
) -> CliSessionStarter:
    """The real CLIs; ``base_env`` (default: this process's environment) is what they inherit."""
    return CliSessionStarter(
        services.paths,
        services.info.id,
        default_terminal_launcher(),
        {
            AdapterKind.CLAUDE: start_claude_session,
            AdapterKind.CODEX: start_codex_session,
            AdapterKind.GEMINI: start_gemini_session,
        },
        terminal_injectors=TERMINAL_INJECTORS,
        base_env=base_env,
        tool_timeout_s=TOOL_TIMEOUT_S,
        with_mcp=with_mcp,
    )


class ProjectRuntime:
    def __init__(
        self,
        services: ProjectServices,
        starter: SessionStarter,
        ask_timeout_s: float = ASK_TIMEOUT_S,
    ) -> None:
        self.services = services
        self.bus = EventBus()
        self.sessions = LiveSessions()
        self.delegations = JsonlDelegationLog(services.paths.delegations_log)
        self.chat_log = JsonlChatLog(services.paths.chats)
        s = services
        self.launch = LaunchAgent(s.agents, s.profiles, self.sessions, starter, self.bus, s.clock)
        self.stop_agent = StopAgent(s.agents, self.sessions, self.bus)
        self.ask = AskAgent(
            s.agents, self.sessions, self.launch, self.bus, default_timeout_s=ask_timeout_s
        )
        self.orchestrator = OrchestratorService(
            s.agents,
            s.profiles,
            s.skills,
            s.live_state,
            self.sessions,
            self.launch,
            self.stop_agent,
            self.ask,
            self.bus,
            self.delegations,
            s.clock,
            s.ids,
        )
        self.file_door = FileDoor(services.paths.orchestrator, self._answer_file)
        self.mcp_backend = RuntimeMcpBackend(
            self.orchestrator, s.agents, s.profiles, s.live_state, self.sessions
        )
        self.listener: McpListener | None = None
        self.report = OpenReport()
        self._closed = False
        self._lock: ProjectLock | None = None

    @classmethod
    async def open(
        cls,
        root: Path,
        *,
        starter: SessionStarter | None = None,
        with_mcp: bool = True,
        resume: bool = True,
        file_door: bool = True,
        ask_timeout_s: float = ASK_TIMEOUT_S,
    ) -> ProjectRuntime:
        """Open the project in ``root`` (making it one if needed). Raises ``Conflict`` (open in
        another IdeA process), ``Invalid``, ``CorruptFile`` (project.json), ``Internal``."""
        services = project_services(root)
        runtime = cls(services, starter or default_starter(services, with_mcp), ask_timeout_s)
        try:
            await runtime._open(resume=resume, file_door=file_door, mcp=with_mcp)
        except BaseException:
            await runtime.close()
            raise
        return runtime

    async def _open(self, *, resume: bool, file_door: bool, mcp: bool) -> None:
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
        # §7 step 2: nothing is live yet, so every busy row is an orphan.
        self.report.orphan_rows_set_idle = self._retry_once(
            lambda: reconcile_live_state(s.live_state, self.sessions.is_agent_live, s.clock)
        )
        # §7 step 3: processes a crashed run left behind.
        self.report.leftover_processes_killed = kill_leftover_processes(s.paths)
        for problem in s.problems:
            self._quarantined(problem)
        # The endpoint is up before any CLI starts: they connect to it at start-up.
        if mcp:
            self.listener = McpListener(
                mcp_endpoint(s.info.id),
                key,
                s.info.id,
                self.mcp_backend.is_agent,
                lambda requester, send: McpConnection(self.mcp_backend, requester, send),
            )
            await self.listener.start()
        # §7 step 4: resume, one session per agent.
        if resume:
            self.report.resumed = await resume_sessions(layouts.layouts, s.agents, self.launch)
        if file_door:
            await self.file_door.start()

    async def close(self) -> None:
        """Snapshot, stop every session and watcher; idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._lock is None:
            return  # never owned the project (another IdeA has it): touch nothing
        try:
            await self.file_door.stop()
            try:
                snapshot_running_agents(self.services.layouts, self.sessions)
            except CorruptFile as exc:
                self._quarantined(exc)
            await self.ask.close()
            await self.stop_agent.stop_all("project closed")
            if self.listener is not None:
                await self.listener.stop()
        finally:
            self._lock.release()

    def layouts(self) -> Layouts:
        return self.services.layouts.load()

    async def _answer_file(
        self, request_id: str, body: JsonValue, problem: Invalid | None
    ) -> JsonObject:
        if problem is not None:
            return error_response(request_id, problem)
        return await answer_request(
            self.orchestrator, self.services.agents, request_id, body, Source.FILE
        )

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
