"""``idea agent new|list``, ``idea profiles`` and ``idea doctor``: a project's agents, the
profiles they run with, and whether each profile's CLI works with IdeA."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from idea.cli.parser import UsageError

if TYPE_CHECKING:
    import argparse
    from pathlib import Path


def agent_new(project: Path, args: argparse.Namespace) -> int:
    from pathlib import Path

    from idea.app.bootstrap import project_services
    from idea.application.create_agent import NewAgent, create_agent
    from idea.domain.agent import Workspace
    from idea.domain.profile import Mode

    context = ""
    if args.context_file == "-":
        context = sys.stdin.read()
    elif args.context_file:
        path = Path(args.context_file)
        try:
            context = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"idea agent new: cannot read --context-file {path}: {exc}") from exc
    services = project_services(project)
    agent = create_agent(
        services.agents,
        services.profiles,
        services.ids,
        NewAgent(
            name=args.name,
            profile=args.profile,
            context=context,
            description=args.description,
            mode=Mode(args.mode) if args.mode else None,
            workspace=Workspace.WORKTREE if args.worktree else Workspace.PROJECT,
            host=args.host,
        ),
    )
    where = f", in its own worktree (branch idea/{agent.name})" if args.worktree else ""
    where += f", on host {agent.host}" if agent.host else ""
    print(f"Created agent {agent.name} ({agent.id}) with profile {agent.profile}{where}")
    return 0


def agent_list(project: Path, *, as_json: bool) -> int:
    import json

    from idea.app.bootstrap import project_services

    services = project_services(project)
    agents = services.agents.all()
    profiles = services.profiles.all()
    rows = []
    for agent in agents:
        profile = profiles.get(agent.profile)
        mode = agent.mode or (profile.default_mode if profile else None)
        rows.append(
            {
                "id": agent.id,
                "name": agent.name,
                "profile": agent.profile,
                "mode": mode.value if mode else None,
                "description": agent.description,
            }
        )
    for problem in services.problems:
        print(f"idea: warning: {problem.message}", file=sys.stderr)
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        for row in rows:
            print(f"{row['name']:<24} {row['profile']:<10} {row['mode'] or '?':<11} {row['id']}")
    return 0


def list_profiles(project: Path, *, as_json: bool) -> int:
    import json

    from idea.app.bootstrap import project_services
    from idea.infrastructure.processes.executables import detect_all

    services = project_services(project)
    profiles = services.profiles.all()
    found = detect_all(profiles)
    rows = [
        {
            "name": name,
            "command": list(profile.command),
            "structured": profile.structured.value if profile.structured else None,
            "executable": found[name].path,
            "runs": list(found[name].argv) or None,
            "found": found[name].via or None,
            "problem": found[name].reason or None,
        }
        for name, profile in sorted(profiles.items())
    ]
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        for row in rows:
            runs = row["runs"]
            where = f"{' '.join(runs)}  ({row['found']})" if runs else f"unusable: {row['problem']}"
            print(f"{row['name']:<12} {row['structured'] or 'terminal':<10} {where}")
    return 0


def check_profiles(project: Path, *, as_json: bool, live: bool) -> int:
    """Exit 0 when every usable profile passes; a line per failure with what to do."""
    import asyncio
    import json

    from idea.app.bootstrap import doctor

    rows = asyncio.run(doctor(project, live=live))
    if as_json:
        print(json.dumps([row.to_json() for row in rows], ensure_ascii=False, indent=2))
    else:
        print(f"{'profile':<12} {'version':<12} {'structured':<11} {'mcp':<8} {'live':<8} found")
        for row in rows:
            version = row.version or "-"
            print(
                f"{row.profile:<12} {version:<12} {row.structured:<11} {row.mcp:<8} "
                f"{row.live:<8} {' '.join(row.runs) or row.detail}"
            )
    failures = [row for row in rows if row.failed]
    for row in failures:
        print(f"FAIL {row.fix()}", file=sys.stderr)
    return 1 if failures else 0
