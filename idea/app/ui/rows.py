"""What the UI is sent about the open project (ui/API.md's shapes): the project, its trust, its
agents' rows and its profiles' rows, each built from the runtime's stores as they are now.

Each shape is a ``TypedDict`` beside the function that builds it: mypy holds the builder to it,
and ``idea.app.ui.typegen`` writes it into ui/src as the TypeScript type of the same name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypedDict, cast

from idea import __version__
from idea.app.runtime import ProjectRuntime
from idea.domain.agent import Agent, Workspace
from idea.domain.builtin_profiles import builtin_profile_names
from idea.domain.errors import IdeaError
from idea.domain.json_types import JsonObject
from idea.domain.profile import Mode, Profile
from idea.domain.trust import TrustState
from idea.domain.work_state import Status
from idea.infrastructure.files.atomic import read_text
from idea.infrastructure.processes.executables import DetectedCli
from idea.infrastructure.stores.recent_projects import scratch_project_dir
from idea.infrastructure.workspaces.worktrees import SETUP_FILE, GitWorktrees

MODES: tuple[Mode, ...] = (Mode.TERMINAL, Mode.STRUCTURED)
SETUP_SHOWN_MAX = 8000
LinkState = Literal["up", "reconnecting", "lost", "closed"]  # remote/link.py's LinkState


class ProjectInfo(TypedDict):
    id: str
    name: str
    root: str
    created_at_ms: int
    version: str  # IdeA's
    scratch: bool  # the scratch project (no folder was chosen)


class RecentProject(TypedDict):
    root: str
    name: str
    opened_at_ms: int
    current: bool
    exists: bool


class WouldRun(TypedDict):
    profile: str
    command: list[str]
    overrides_builtin: bool


class GitHooks(TypedDict):
    dir: str
    names: list[str]


class TrustInfo(TypedDict):
    state: TrustState
    root: str | None
    would_run: list[WouldRun]
    resume: list[str]
    worktree_setup: str | None
    git_hooks: GitHooks | None


class PolicyJson(TypedDict):
    """``policy.json``'s fields (DESIGN.md §15); unknown ones a newer IdeA wrote come too."""

    version: Literal[1]
    max_depth: int
    ask_timeout_s: float
    queue_wait_s: float
    hibernate_after_s: float | None  # None: never
    chain_token_budget: int | None  # None: no budget


class PolicyInfo(TypedDict):
    policy: PolicyJson
    problem: str | None
    version: str  # the file's ("" without one), for policy.set


class LostAsk(TypedDict):
    code: Literal["LOST"]
    message: str
    target: str | None
    requester: str | None
    chain_id: str | None
    started_at_ms: int | None


class ProfileRow(TypedDict):
    name: str
    command: list[str]
    description: str
    structured: str | None
    default_mode: Mode
    modes: list[Mode]
    permission_modes: list[str]
    models: list[str]
    installed: bool
    path: str | None
    runs: list[str] | None
    problem: str | None


class LastExit(TypedDict):
    exit_code: int
    at_ms: int


class AgentRow(TypedDict):
    id: str
    name: str
    profile: str
    mode: Mode | None
    configured_mode: Mode | None
    model: str | None
    permission_mode: str | None
    description: str | None
    workspace: Workspace
    asks_from: list[str]  # ["*"]: anyone; else agent names (the user always may)
    live: bool
    node_id: str | None
    status: Status
    hibernated: bool  # stopped for idling, conversation kept: a chat message resumes it
    host: str | None  # the machine its CLI runs on (DESIGN.md §16); None: this one
    link: LinkState | None  # the link to that host; None before the first connection
    last_exit: LastExit | None  # its terminal ended by itself


class AgentWithContext(AgentRow):
    """A row with the agent's context (up to 512 Ki characters: ``agents.list`` leaves it out)."""

    context: str


class AgentDetail(AgentWithContext):
    """``agents.get``: the row with its context and its file's ``version`` (for agents.update)."""

    version: str


def project_json(runtime: ProjectRuntime) -> ProjectInfo:
    info = runtime.services.info
    root = runtime.services.paths.root
    return {
        "id": info.id,
        "name": info.name,
        "root": str(root),
        "created_at_ms": info.created_at_ms,
        "version": __version__,
        "scratch": same_folder(root, scratch_project_dir()),
    }


def same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def is_dir(path: str) -> bool:
    try:
        return Path(path).is_dir()
    except OSError:
        return False


def trust_json(runtime: ProjectRuntime) -> TrustInfo:
    """The trust state and exactly what the project would run once trusted (DESIGN.md §13)."""
    s = runtime.services
    builtins = builtin_profile_names()
    would_run: list[WouldRun] = [
        {"profile": name, "command": list(profile.command), "overrides_builtin": name in builtins}
        for name, profile in sorted(s.profiles.project_entries().items())
    ]
    resume = [agent.name for agent in runtime.would_resume()]
    setup = read_text(s.paths.ideai / SETUP_FILE)
    return {
        "state": s.trust.state(),
        "root": s.trust.root,
        "would_run": would_run,
        "resume": resume,
        # Run in each new agent worktree (DESIGN.md §14), shown whole up to a bound.
        "worktree_setup": setup[:SETUP_SHOWN_MAX] if setup is not None else None,
        # What a merge would run once trusted (DESIGN.md §18): git's hooks in the repository.
        "git_hooks": git_hooks_json(s.workspaces),
    }


def git_hooks_json(workspaces: GitWorktrees) -> GitHooks | None:
    """``{dir, names}``: the repository's hooks folder and the hooks in it; ``None`` outside
    git (or when git cannot say: the banner then lists none, and nothing ran)."""
    try:
        found = workspaces.hooks()
    except IdeaError:
        return None
    if found is None:
        return None
    folder, names = found
    return {"dir": str(folder), "names": [*names]}


def policy_json(runtime: ProjectRuntime) -> PolicyInfo:
    """The delegation policy in force, why the file's own was set aside, if it was, and the
    file's ``version`` (for ``policy.set``)."""
    s = runtime.services
    policy, version = s.policy.current_versioned()
    path = str(s.paths.policy)
    problem = next((p.message for p in reversed(s.problems) if p.path == path), None)
    shown = cast(PolicyJson, policy.to_json())
    return {"policy": shown, "problem": problem, "version": version}


def lost_ask_rows(runtime: ProjectRuntime) -> list[LostAsk]:
    """``problems.list`` rows of the asks in flight when IdeA last ended (DESIGN.md §15)."""
    names = {a.id: a.name for a in runtime.services.agents.all()}
    rows: list[LostAsk] = []
    for lost in runtime.report.lost_asks:
        requester = lost.get("requester")
        who = names.get(requester, requester) if isinstance(requester, str) else None
        target = lost.get("target")
        # The log's own values, passed on as they are (a LOST row was written by this IdeA).
        row: JsonObject = {
            "code": "LOST",
            "message": (
                f"an ask from {who or 'you'} to {target} was in flight when IdeA last "
                "ended; its answer is lost"
            ),
            "target": target,
            "requester": who,
            "chain_id": lost.get("chain_id"),
            "started_at_ms": lost.get("started_at_ms"),
        }
        rows.append(cast(LostAsk, row))
    return rows


def profile_row(name: str, profile: Profile, cli: DetectedCli) -> ProfileRow:
    return {
        "name": name,
        "command": list(profile.command),
        "description": profile.description,
        "structured": profile.structured.value if profile.structured else None,
        "default_mode": profile.default_mode,
        "modes": [m for m in MODES if profile.supports(m)],
        "permission_modes": list(profile.permission_modes),
        "models": list(profile.known_models),
        "installed": cli.path is not None,
        "path": cli.path,
        "runs": list(cli.argv) or None,
        "problem": cli.reason or None,
    }


def row_with_context(row: AgentRow, agent: Agent) -> AgentWithContext:
    return {**row, "context": agent.context}


def agent_rows(runtime: ProjectRuntime, agents: list[Agent]) -> list[AgentRow]:
    """``AgentRow``s, without the agents' contexts (``row_with_context`` adds it)."""
    s = runtime.services
    profiles = s.profiles.all()
    live = {a.agent_id: a for a in runtime.sessions.live_agents()}
    work_rows = s.work_state.load().rows
    rows: list[AgentRow] = []
    for agent in agents:
        profile = profiles.get(agent.profile)
        running = live.get(agent.id)
        mode = running.mode if running else agent.mode or (profile and profile.default_mode)
        row = work_rows.get(agent.id)
        shown: AgentRow = {
            "id": agent.id,
            "name": agent.name,
            "profile": agent.profile,
            "mode": mode or None,
            "configured_mode": agent.mode,
            "model": agent.model,
            "permission_mode": agent.permission_mode,
            "description": agent.description,
            "workspace": agent.workspace,
            "asks_from": list(agent.asks_from),
            "live": running is not None,
            "node_id": running.node_id if running else None,
            "status": row.status if row else Status.IDLE,
            "hibernated": runtime.core.hibernation.is_asleep(agent.id),
            # Its host (DESIGN.md §16) and the link's state: up, reconnecting, lost, closed;
            # None before the first connection.
            "host": agent.host,
            "link": None
            if agent.host is None or runtime.hosts is None
            else cast(LinkState, runtime.hosts.state(agent.host)),
            "last_exit": None
            if (e := runtime.epitaphs.of(agent.id)) is None
            else {"exit_code": e.exit_code, "at_ms": e.at_ms},
        }
        rows.append(shown)
    return rows
