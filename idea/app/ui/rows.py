"""What the UI is sent about the open project (ui/API.md's shapes): the project, its trust, its
agents' rows and its profiles' rows, each built from the runtime's stores as they are now."""

from __future__ import annotations

from pathlib import Path

from idea import __version__
from idea.app.runtime import ProjectRuntime
from idea.domain.agent import Agent
from idea.domain.builtin_profiles import builtin_profile_names
from idea.domain.errors import IdeaError
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.profile import Mode, Profile
from idea.infrastructure.files.atomic import read_text
from idea.infrastructure.processes.executables import DetectedCli
from idea.infrastructure.stores.recent_projects import scratch_project_dir
from idea.infrastructure.workspaces.worktrees import SETUP_FILE, GitWorktrees

MODES: tuple[Mode, ...] = (Mode.TERMINAL, Mode.STRUCTURED)
SETUP_SHOWN_MAX = 8000


def project_json(runtime: ProjectRuntime) -> JsonObject:
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


def trust_json(runtime: ProjectRuntime) -> JsonObject:
    """The trust state and exactly what the project would run once trusted (DESIGN.md §13)."""
    s = runtime.services
    builtins = builtin_profile_names()
    would_run: list[JsonValue] = [
        {"profile": name, "command": list(profile.command), "overrides_builtin": name in builtins}
        for name, profile in sorted(s.profiles.project_entries().items())
    ]
    resume: list[JsonValue] = [agent.name for agent in runtime.would_resume()]
    setup = read_text(s.paths.ideai / SETUP_FILE)
    return {
        "state": s.trust.state().value,
        "root": s.trust.root,
        "would_run": would_run,
        "resume": resume,
        # Run in each new agent worktree (DESIGN.md §14), shown whole up to a bound.
        "worktree_setup": setup[:SETUP_SHOWN_MAX] if setup is not None else None,
        # What a merge would run once trusted (DESIGN.md §18): git's hooks in the repository.
        "git_hooks": git_hooks_json(s.workspaces),
    }


def git_hooks_json(workspaces: GitWorktrees) -> JsonObject | None:
    """``{dir, names}``: the repository's hooks folder and the hooks in it; ``None`` outside
    git (or when git cannot say: the banner then lists none, and nothing ran)."""
    try:
        found = workspaces.hooks()
    except IdeaError:
        return None
    if found is None:
        return None
    folder, names = found
    listed: list[JsonValue] = [*names]
    return {"dir": str(folder), "names": listed}


def policy_json(runtime: ProjectRuntime) -> JsonObject:
    """The delegation policy in force, why the file's own was set aside, if it was, and the
    file's ``version`` (for ``policy.set``)."""
    s = runtime.services
    policy, version = s.policy.current_versioned()
    path = str(s.paths.policy)
    problem = next((p.message for p in reversed(s.problems) if p.path == path), None)
    return {"policy": policy.to_json(), "problem": problem, "version": version}


def lost_ask_rows(runtime: ProjectRuntime) -> list[JsonValue]:
    """``problems.list`` rows of the asks in flight when IdeA last ended (DESIGN.md §15)."""
    names = {a.id: a.name for a in runtime.services.agents.all()}
    rows: list[JsonValue] = []
    for lost in runtime.report.lost_asks:
        requester = lost.get("requester")
        who = names.get(requester, requester) if isinstance(requester, str) else None
        target = lost.get("target")
        rows.append(
            {
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
        )
    return rows


def profile_row(name: str, profile: Profile, cli: DetectedCli) -> JsonObject:
    return {
        "name": name,
        "command": list(profile.command),
        "description": profile.description,
        "structured": profile.structured.value if profile.structured else None,
        "default_mode": profile.default_mode.value,
        "modes": [m.value for m in MODES if profile.supports(m)],
        "permission_modes": list(profile.permission_modes),
        "models": list(profile.known_models),
        "installed": cli.path is not None,
        "path": cli.path,
        "runs": list(cli.argv) or None,
        "problem": cli.reason or None,
    }


def agent_rows(
    runtime: ProjectRuntime, agents: list[Agent], *, with_context: bool = True
) -> list[JsonObject]:
    """``AgentRow``s, with each agent's ``context`` unless ``with_context`` is False."""
    s = runtime.services
    profiles = s.profiles.all()
    live = {a.agent_id: a for a in runtime.sessions.live_agents()}
    board_rows = s.work_state.load().rows
    rows: list[JsonObject] = []
    for agent in agents:
        profile = profiles.get(agent.profile)
        running = live.get(agent.id)
        mode = running.mode if running else agent.mode or (profile and profile.default_mode)
        row = board_rows.get(agent.id)
        context: JsonObject = {"context": agent.context} if with_context else {}
        rows.append(
            {
                "id": agent.id,
                "name": agent.name,
                "profile": agent.profile,
                "mode": mode.value if mode else None,
                "configured_mode": agent.mode.value if agent.mode else None,
                "model": agent.model,
                "permission_mode": agent.permission_mode,
                "description": agent.description,
                **context,
                "workspace": agent.workspace.value,
                "asks_from": list(agent.asks_from),
                "live": running is not None,
                "node_id": running.node_id if running else None,
                "status": row.status.value if row else "idle",
                "hibernated": runtime.core.hibernation.is_asleep(agent.id),
                # Its host (DESIGN.md §16) and the link's state: up, reconnecting, lost, closed;
                # None before the first connection.
                "host": agent.host,
                "link": None
                if agent.host is None or runtime.hosts is None
                else runtime.hosts.state(agent.host),
                "last_exit": None if (e := runtime.epitaphs.of(agent.id)) is None else e.to_json(),
            }
        )
    return rows
