"""Composition root: the only place that picks adapters and wires them to the use cases.

``project_services`` opens a project's stores; ``wire_core`` binds the use cases and the command
handlers to any stores (the real ones here, the in-memory fakes in tests); ``open_project`` builds
a whole ``ProjectRuntime``: the real CLIs from the registry, the file door and the MCP listener.
Agents on other hosts are wired in ``bootstrap/hosts.py``.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import shutil
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from idea.app.bootstrap.hosts import host_store, remote_starter, ssh_host_links
from idea.app.cli_version_watch import CliVersionWatch
from idea.app.doctor import DoctorRow, run_doctor
from idea.app.project_host import ProjectHost
from idea.app.runtime import Core, ProjectRuntime, ProjectServices
from idea.app.terminals.epitaphs import TerminalEpitaphs
from idea.app.terminals.screens import TerminalScreens
from idea.application.answer_request import answer_request, error_response
from idea.application.ask_agent import AgentAsker
from idea.application.ask_deadline import DEADLINE_MARGIN_S, AskTimes
from idea.application.ask_lines import AskLines
from idea.application.ask_turn import AgentTurns
from idea.application.chains import Chains
from idea.application.event_bus import EventBus
from idea.application.handlers import HANDLERS, Handler
from idea.application.hibernation import Hibernation
from idea.application.launch_agent import AgentLauncher
from idea.application.live_sessions import LiveSessions
from idea.application.orchestrator_service import BoundHandler, OrchestratorService
from idea.application.ports import (
    AgentStore,
    AskJournal,
    Clock,
    DelegationLog,
    IdGenerator,
    LayoutStore,
    PolicyStore,
    ProfileStore,
    ProjectTrust,
    SkillStore,
    TrustStore,
    Workspaces,
    WorkStateStore,
)
from idea.application.session_ports import SessionStarter
from idea.application.stop_agent import AgentStopper
from idea.application.work_state import RateLimitRows
from idea.application.workspace_trust import WorkspaceTrust
from idea.domain.agent import AgentIdReassigned
from idea.domain.builtin_profiles import builtin_profiles
from idea.domain.commands import Source
from idea.domain.errors import CorruptFile, IdeaError, Invalid
from idea.domain.events import AgentsChanged
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.policy import Policy
from idea.domain.profile import Profile
from idea.endpoint.naming import mcp_endpoint
from idea.infrastructure.clis import CLIS
from idea.infrastructure.clis.starter import CliSessionStarter
from idea.infrastructure.doors.file import FileDoor
from idea.infrastructure.doors.mcp.backend import RuntimeMcpBackend
from idea.infrastructure.doors.mcp.listener import McpListener
from idea.infrastructure.doors.mcp.server import McpConnection
from idea.infrastructure.files.atomic import write_atomic
from idea.infrastructure.files.json_document import encode_json
from idea.infrastructure.processes.executables import detect
from idea.infrastructure.processes.subreaper import Subreaper
from idea.infrastructure.processes.system import SystemClock, UuidGenerator
from idea.infrastructure.remote.links import HostLinks
from idea.infrastructure.stores.agents import MarkdownAgentStore
from idea.infrastructure.stores.ask_journal import JsonlAskJournal
from idea.infrastructure.stores.chat_log import JsonlChatLog
from idea.infrastructure.stores.cli_versions import CliVersions, current_version
from idea.infrastructure.stores.delegation_log import JsonlDelegationLog
from idea.infrastructure.stores.knowledge import MarkdownMemoryStore, MarkdownSkillStore
from idea.infrastructure.stores.layouts import JsonLayoutStore
from idea.infrastructure.stores.paths import IDEAI, ProjectPaths
from idea.infrastructure.stores.policy import JsonPolicyStore
from idea.infrastructure.stores.profiles import JsonProfileStore
from idea.infrastructure.stores.project import JsonProjectStore
from idea.infrastructure.stores.recent_projects import RecentProjects
from idea.infrastructure.stores.trusted_projects import (
    FileFingerprint,
    TrustedProjects,
    canonical_root,
)
from idea.infrastructure.stores.work_state import JsonWorkStateStore
from idea.infrastructure.terminal.launcher import default_terminal_launcher
from idea.infrastructure.terminal.screen import TerminalScreen
from idea.infrastructure.workspaces.worktrees import SETUP_FILE, GitWorktrees


def declared_tool_timeout(policy: Policy) -> float:
    """The MCP tool timeout IdeA declares to the CLIs it starts: the longest ask the policy
    allows (its time in line and its turn) and a margin on each side, so that an ask's own
    deadline always ends first and the caller hears IdeA's TIMEOUT (DESIGN.md §15). Read when
    the project opens: a policy changed later reaches the CLIs at the next open."""
    return policy.queue_wait_s + policy.ask_timeout_s + 2 * DEADLINE_MARGIN_S


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


def project_services(
    root: Path, trusted_projects: TrustStore | None = None, clock: Clock | None = None
) -> ProjectServices:
    """Open (creating ``.ideai/`` on first use) the project in ``root``.

    Raises ``Invalid`` if ``root`` is not a folder, ``CorruptFile`` if ``project.json`` is unusable.
    A project this call creates is trusted (``trusted_projects``: default the user's own list).
    ``clock``: the system's unless a test sets the time.
    """
    root = root.resolve()
    if not root.is_dir():
        raise Invalid(f"project folder {root} does not exist or is not a folder")
    paths = ProjectPaths(root)
    clock, ids = clock or SystemClock(), UuidGenerator()
    problems: list[CorruptFile] = []
    reassigned: list[AgentIdReassigned] = []
    # Only a ``.ideai/`` this call makes is trusted: one that came with the folder (a clone,
    # even without its project.json) is someone else's until this user trusts it.
    created = not paths.ideai.exists()
    info = JsonProjectStore(paths, clock, ids).open_or_create(root.name)
    fingerprint = FileFingerprint(paths.profiles, paths.ideai / SETUP_FILE)
    trust = WorkspaceTrust(
        trusted_projects or TrustedProjects(), canonical_root(root), info.id, fingerprint, clock
    )
    if created:
        trust.grant()  # IdeA made this project here: it runs only what its user adds
    return ProjectServices(
        paths=paths,
        info=info,
        clock=clock,
        ids=ids,
        agents=MarkdownAgentStore(paths, clock, ids, problems.append, reassigned.append),
        profiles=JsonProfileStore(
            paths, clock, builtin_profiles(user_shell()), trust.project_profiles_allowed
        ),
        layouts=JsonLayoutStore(paths, clock, ids),
        # git writes (its hooks run) once the checkout is trusted, even with profiles changed.
        workspaces=GitWorktrees(
            paths, trust.project_profiles_allowed, may_write=lambda: not trust.restricted
        ),
        work_state=JsonWorkStateStore(paths, clock),
        skills=MarkdownSkillStore(paths, clock, problems.append),
        memory=MarkdownMemoryStore(paths, clock, problems.append),
        delegations=JsonlDelegationLog(paths.delegations_log),
        chat_log=JsonlChatLog(paths.chats),
        trust=trust,
        policy=JsonPolicyStore(paths, clock, problems.append),
        asks=JsonlAskJournal(paths.asks_journal),
        hosts=host_store(),
        problems=problems,
        reassigned=reassigned,
    )


def inject(handler: Handler, dependencies: Mapping[str, object]) -> BoundHandler:
    """``handler`` with its keyword-only parameters bound by name from ``dependencies``."""
    names = [
        p.name
        for p in inspect.signature(handler).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    bound = {name: dependencies[name] for name in names}

    async def call(command: Any, caller: Any) -> Any:
        return await handler(command, caller, **bound)

    return call


def wire_core(
    *,
    agents: AgentStore,
    profiles: ProfileStore,
    skills: SkillStore,
    work_state: WorkStateStore,
    layouts: LayoutStore,
    workspaces: Workspaces,
    delegations: DelegationLog,
    starter: SessionStarter,
    clock: Clock,
    ids: IdGenerator,
    trust: ProjectTrust,
    policy: PolicyStore,
    journal: AskJournal,
    ask_timeout_s: float | None = None,
    queue_cap_s: float | None = None,
    caller_timeout_s: float | None = None,
    margin_s: float = DEADLINE_MARGIN_S,
) -> Core:
    """The use cases and the command table over these ports. ``ask_timeout_s`` and
    ``queue_cap_s``, when given, override the project policy's."""
    bus = EventBus()
    sessions = LiveSessions()
    launcher = AgentLauncher(agents, profiles, sessions, starter, bus, clock, trust)
    stopper = AgentStopper(agents, sessions, bus)
    sleeping: list[Hibernation] = []  # made below: it needs the asker, which wakes its agents
    turns = AgentTurns(
        sessions,
        launcher,
        bus,
        wake=lambda agent_id: sleeping[0].wake(agent_id),  # noqa: PLW0108 - bound later
    )
    asker = AgentAsker(
        agents,
        turns,
        AskLines(bus),
        Chains(ids, clock),
        journal,
        clock,
        policy.current,
        AskTimes(ask_timeout_s, queue_cap_s, caller_timeout_s, margin_s),
    )
    hibernation = Hibernation(sessions, asker, stopper, bus, policy.current, clock.monotonic)
    sleeping.append(hibernation)
    RateLimitRows(work_state, bus, clock)  # lives as long as the bus it listens to
    dependencies: dict[str, object] = {
        "agents": agents,
        "profiles": profiles,
        "skills": skills,
        "work_state": work_state,
        "layouts": layouts,
        "workspaces": workspaces,
        "delegations": delegations,
        "sessions": sessions,
        "launcher": launcher,
        "stopper": stopper,
        "asker": asker,
        "hibernation": hibernation,
        "events": bus,
        "clock": clock,
        "ids": ids,
        "policy": policy,
        "trust": trust,
    }
    handlers = {kind: inject(handler, dependencies) for kind, handler in HANDLERS.items()}
    # Every agent runs as the user and could read another's key: no MCP requester is proven.
    orchestrator = OrchestratorService(handlers, bus, delegations, clock, agent_keys_private=False)
    return Core(bus, sessions, launcher, stopper, asker, orchestrator, hibernation)


def default_starter(
    services: ProjectServices,
    with_mcp: bool,
    base_env: Mapping[str, str] | None = None,
    tool_timeout_s: float | None = None,
) -> CliSessionStarter:
    """The real CLIs; ``base_env`` (default: this process's environment) is what they inherit;
    ``tool_timeout_s`` is the MCP tool timeout declared to them (give ``project_runtime`` the
    same, so that their asks end first)."""
    return CliSessionStarter(
        services.paths,
        services.info.id,
        default_terminal_launcher(),
        CLIS,
        base_env=base_env,
        tool_timeout_s=(
            tool_timeout_s
            if tool_timeout_s is not None
            else declared_tool_timeout(services.policy.current())
        ),
        with_mcp=with_mcp,
        folder_of=services.workspaces.folder,
        replies_dir=services.paths.replies,
    )


def project_runtime(
    services: ProjectServices,
    starter: SessionStarter,
    ask_timeout_s: float | None = None,
    tool_timeout_s: float | None = None,
    hosts: HostLinks | None = None,
) -> ProjectRuntime:
    """One project's runtime: its core, its file door and its MCP listener (not started).
    ``tool_timeout_s``: the MCP tool timeout the starter declares to the CLIs; asks from them
    end before it."""
    s = services
    core = wire_core(
        agents=s.agents,
        profiles=s.profiles,
        skills=s.skills,
        work_state=s.work_state,
        layouts=s.layouts,
        workspaces=s.workspaces,
        delegations=s.delegations,
        starter=starter,
        clock=s.clock,
        ids=s.ids,
        trust=s.trust,
        policy=s.policy,
        journal=s.asks,
        ask_timeout_s=ask_timeout_s,
        caller_timeout_s=(
            tool_timeout_s
            if tool_timeout_s is not None
            else declared_tool_timeout(s.policy.current())
        ),
    )

    async def answer_file(request_id: str, body: JsonValue, problem: Invalid | None) -> JsonObject:
        if problem is not None:
            return error_response(request_id, problem)
        return await answer_request(core.orchestrator, s.agents, request_id, body, Source.FILE)

    backend = RuntimeMcpBackend(
        core.orchestrator, s.agents, s.profiles, s.work_state, core.sessions
    )

    def listener(key: bytes) -> McpListener:
        return McpListener(
            mcp_endpoint(s.info.id, str(s.paths.root)),
            key,
            s.info.id,
            backend.is_agent,
            lambda requester, send: McpConnection(backend, requester, send),
        )

    versions = CliVersions()

    def runs(profile: str) -> tuple[str, ...]:
        try:
            found = s.profiles.get(profile)
        except IdeaError:
            return ()
        return detect(found, os.environ.get("PATH"), os.environ.get("HOME")).argv

    watch = CliVersionWatch(core.bus, s.agents, versions.passed, runs, current_version)
    door = FileDoor(s.paths.orchestrator, answer_file)
    epitaphs = TerminalEpitaphs(core.bus, core.sessions, s.clock)
    if hosts is not None:  # the UI shows each remote agent's link
        hosts.on_state(lambda _name, _state: core.bus.publish(AgentsChanged()))
    return ProjectRuntime(
        s, core, door, backend, listener, epitaphs, closing=(watch.close,), hosts=hosts
    )


async def open_project(
    root: Path,
    *,
    starter: SessionStarter | None = None,
    with_mcp: bool = True,
    resume: bool = True,
    file_door: bool = True,
    ask_timeout_s: float | None = None,
    tool_timeout_s: float | None = None,
    clock: Clock | None = None,
) -> ProjectRuntime:
    """Open the project in ``root`` (making it one if needed). Raises ``Conflict`` (open in
    another IdeA process), ``Invalid``, ``CorruptFile`` (project.json), ``Internal``.
    ``tool_timeout_s``: what the starter declares to the CLIs as their MCP tool timeout."""
    services = project_services(root, clock=clock)
    hosts: HostLinks | None = None
    if starter is None:
        timeout = (
            tool_timeout_s
            if tool_timeout_s is not None
            else declared_tool_timeout(services.policy.current())
        )
        hosts = ssh_host_links(services, timeout)
        local = default_starter(services, with_mcp, tool_timeout_s=tool_timeout_s)
        starter = remote_starter(services, local, hosts)
    runtime = project_runtime(services, starter, ask_timeout_s, tool_timeout_s, hosts=hosts)
    try:
        await runtime.open(resume=resume, file_door=file_door, mcp=with_mcp)
    except BaseException:
        await runtime.close()
        raise
    return runtime


async def doctor(
    root: Path, *, live: bool = False, env: Mapping[str, str] | None = None
) -> list[DoctorRow]:
    """``idea doctor`` on the profiles of the project at (or above) ``root``, the built-ins
    where there is none; the CLIs run with ``env`` (default: this process's environment)."""
    base_env = dict(os.environ if env is None else env)
    project = find_project_root(root)
    profiles = (
        project_services(project).profiles.all()
        if project is not None
        else builtin_profiles(user_shell())
    )

    async def open_scratch(folder: Path, wanted: Mapping[str, Profile]) -> ProjectRuntime:
        folder.mkdir(parents=True)
        services = project_services(folder, TrustedProjects(folder.parent / "trusted.json"))
        entries: JsonObject = {name: profile.to_json() for name, profile in wanted.items()}
        write_atomic(services.paths.profiles, encode_json({"profiles": entries}))
        services.trust.grant()  # as it is now, with the profiles under test
        starter = default_starter(services, with_mcp=True, base_env=base_env)
        runtime = project_runtime(services, starter)
        try:
            await runtime.open(resume=False, file_door=False, mcp=True)
        except BaseException:
            await runtime.close()
            raise
        return runtime

    probes = {kind: cli.probe_mcp for kind, cli in CLIS.items()}
    search_path, home = base_env.get("PATH"), base_env.get("HOME")
    return await run_doctor(
        profiles,
        detect=lambda profile: detect(profile, search_path, home),
        open_scratch=open_scratch,
        probes=probes,
        versions=CliVersions(),
        env=base_env,
        live=live,
    )


@contextlib.asynccontextmanager
async def agent_processes_contained() -> AsyncIterator[None]:
    """While the app runs, it is the subreaper of whatever its agents start (Linux): nothing they
    start leaves its process tree. At the end, whatever they left running is killed."""
    reaper = Subreaper.open()
    try:
        yield
    finally:
        await reaper.close()


async def open_host(root: Path) -> ProjectHost:
    """The project in ``root`` as the one this process has open, switchable to others and
    remembered among the user's recent projects."""

    async def opener(folder: Path) -> ProjectRuntime:
        return await open_project(folder)

    return await ProjectHost.open(root, opener, RecentProjects())


def terminal_screens() -> TerminalScreens:
    """The screens the UI server keeps of the terminals it shows: pyte, lazily fed (§12)."""
    return TerminalScreens(TerminalScreen)
