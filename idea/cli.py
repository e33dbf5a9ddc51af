"""The ``idea`` command line: an argv router (DESIGN.md §3).

Everything is imported inside the command that needs it, so that light commands start fast; the
``mcp-server`` bridge is routed before anything else (argparse included) is imported, and only
``idea.bridge`` (stdlib, msgpack, ``idea.endpoint``) is loaded for it. Bad input: one line on
stderr naming the problem, exit 2.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

EXIT_USAGE = 2
EXIT_FAILURE = 1


class _UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    import argparse

    from idea import __version__
    from idea.domain.builtin_profiles import builtin_profile_names

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            # One line, not argparse's usage block: scripts and agents read stderr.
            raise _UsageError(f"{self.prog}: {message}")

    parser = _Parser(prog="idea", description="Run several AI coding agents on one project.")
    parser.add_argument("--version", action="version", version=f"idea {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    # Listed for --help only: main() routes it to idea.bridge before argparse is even imported.
    sub.add_parser("mcp-server", help="stdio MCP bridge to an open project (agents' CLIs start it)")

    init = sub.add_parser("init", help="make a folder an IdeA project (creates .ideai/)")
    init.add_argument("dir", nargs="?", default=".", help="project folder (default: here)")

    open_ = sub.add_parser("open", help="open a project in a window (the default command)")
    open_.add_argument(
        "path",
        nargs="?",
        help="project folder (default: here from a terminal; else the last project opened)",
    )
    open_.add_argument("--port", type=int, default=0, help="UI server port (default: random)")

    serve = sub.add_parser("serve", help="run a project headless until SIGINT/SIGTERM")
    serve.add_argument("path", help="project folder")
    serve.add_argument("--port", type=int, default=0, help="UI server port (default: random)")
    serve.add_argument(
        "--trust", action="store_true", help="trust the project first (as `idea trust` does)"
    )

    trust = sub.add_parser(
        "trust", help="trust a project that came from elsewhere, so that IdeA runs what it defines"
    )
    trust.add_argument("path", nargs="?", default=".", help="project folder (default: here)")

    profiles = sub.add_parser("profiles", help="list the profiles and which CLIs are installed")
    profiles.add_argument(
        "--project", default=".", help="project folder or a folder inside it (default: here)"
    )
    profiles.add_argument("--json", action="store_true", help="machine-readable output")

    doctor = sub.add_parser(
        "doctor", help="check that each profile's CLI works with IdeA (version, structured, MCP)"
    )
    doctor.add_argument(
        "--project", default=".", help="project whose profiles to check (default: here)"
    )
    doctor.add_argument("--json", action="store_true", help="machine-readable output")
    doctor.add_argument(
        "--live", action="store_true", help="also one minimal model turn per CLI (spends tokens)"
    )

    hosts = sub.add_parser("hosts", help="the SSH hosts agents may run on (hosts.json)")
    hosts_sub = hosts.add_subparsers(dest="hosts_command", metavar="ACTION", parser_class=_Parser)
    hosts_list = hosts_sub.add_parser("list", help="list the hosts hosts.json configures")
    hosts_list.add_argument("--json", action="store_true", help="machine-readable output")
    hosts_check = hosts_sub.add_parser(
        "check", help="connect to a host and check that agents can run there"
    )
    hosts_check.add_argument("name", help="the host's name in hosts.json")
    hosts_check.add_argument("--json", action="store_true", help="machine-readable output")

    agent = sub.add_parser("agent", help="manage the project's agents")
    agent.add_argument(
        "--project", default=".", help="project folder or a folder inside it (default: here)"
    )
    agent_sub = agent.add_subparsers(dest="agent_command", metavar="ACTION", parser_class=_Parser)
    new = agent_sub.add_parser("new", help="create an agent")
    new.add_argument("name", help="agent name: a-z, 0-9, '-', '_' (1-64 chars)")
    builtins = ", ".join(builtin_profile_names())
    new.add_argument("--profile", required=True, help=f"{builtins} or a project's")
    new.add_argument("--context-file", help="file holding the agent's context (- = stdin)")
    new.add_argument("--description", help="one line saying what the agent is for")
    new.add_argument("--mode", choices=("terminal", "structured"), help="default: the profile's")
    new.add_argument(
        "--worktree",
        action="store_true",
        help="work in a git worktree of its own (.ideai/worktrees/NAME, branch idea/NAME)",
    )
    new.add_argument(
        "--host", help="run on this host of your hosts.json (idea hosts list); default: here"
    )
    lst = agent_sub.add_parser("list", help="list the agents")
    lst.add_argument("--json", action="store_true", help="machine-readable output")
    return parser


def _utf8_when_piped() -> None:
    """Windows: a piped stdout/stderr defaults to the ANSI code page, where printing a project
    path of another script (``C:\\项目``) raised UnicodeEncodeError and ended ``idea serve``;
    what reads a pipe (scripts, tests, ``--json``) gets UTF-8, as on POSIX. A console takes
    Unicode as is and is left alone."""
    if sys.platform != "win32":
        return
    import io

    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and not stream.isatty():
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["mcp-server"]:
        # The bridge: one per agent CLI, start-up time matters. Nothing else is imported.
        from idea.bridge.main import main as bridge_main

        return bridge_main(args_list[1:])
    if args_list[:1] == ["host"]:
        # What SSH runs on an agent's host: a light relay, or (--daemon) the agents' keeper.
        if "--daemon" in args_list:
            from idea.app.host_daemon import main as daemon_main

            return daemon_main(args_list[1:])
        from idea.bridge.host_relay import main as host_main

        return host_main(args_list[1:])
    from pathlib import Path

    from idea.domain.errors import IdeaError, Internal

    _utf8_when_piped()
    try:
        args = _parser().parse_args(args_list)
        if args.command is None:
            from idea.app.window.desktop import display_available

            if not display_available():
                # No window to open: say so rather than serve a project nobody asked for.
                raise _UsageError(
                    "idea: a command is required without a display (try 'idea serve PATH' "
                    "or 'idea --help')"
                )
            return _open(_window_folder(None), 0)
        if args.command == "open":
            return _open(_window_folder(args.path), args.port)
        if args.command == "init":
            return _init(Path(args.dir))
        if args.command == "serve":
            return _serve(Path(args.path), args.port, trust=args.trust)
        if args.command == "trust":
            return _trust(_require_project(Path(args.path)))
        if args.command == "profiles":
            return _profiles(_require_project(Path(args.project)), as_json=args.json)
        if args.command == "doctor":
            return _doctor(Path(args.project), as_json=args.json, live=args.live)
        if args.command == "hosts":
            if args.hosts_command is None:
                raise _UsageError("idea hosts: an action is required: list or check")
            if args.hosts_command == "list":
                return _hosts_list(as_json=args.json)
            return _hosts_check(args.name, as_json=args.json)
        if args.command == "agent":
            if args.agent_command is None:
                raise _UsageError("idea agent: an action is required: new or list")
            project = _require_project(Path(args.project))
            if args.agent_command == "new":
                return _agent_new(project, args)
            return _agent_list(project, as_json=args.json)
        raise _UsageError(f"idea: unknown command {args.command!r}")
    except _UsageError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except IdeaError as exc:
        print(f"idea: {exc.code}: {exc.message}", file=sys.stderr)
        internal = isinstance(exc, Internal) or exc.code in ("INTERNAL", "CORRUPT_FILE")
        return EXIT_FAILURE if internal else EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def _require_project(start: Path) -> Path:
    from idea.app.bootstrap import find_project_root

    if not start.is_dir():
        raise _UsageError(f"idea: {start} is not a folder")
    root = find_project_root(start)
    if root is None:
        raise _UsageError(f"idea: no IdeA project in {start.resolve()} or above (run 'idea init')")
    return root


def _init(folder: Path) -> int:
    from idea.app.bootstrap import project_services

    if folder.exists() and not folder.is_dir():
        raise _UsageError(f"idea init: {folder} exists and is not a folder")
    existed = (folder / ".ideai" / "project.json").is_file()
    folder.mkdir(parents=True, exist_ok=True)
    services = project_services(folder)
    verb = "Already an IdeA project" if existed else "Initialised IdeA project"
    print(f"{verb}: {services.info.name} ({services.info.id}) in {services.paths.ideai}")
    return 0


def _agent_new(project: Path, args: argparse.Namespace) -> int:
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
            raise _UsageError(f"idea agent new: cannot read --context-file {path}: {exc}") from exc
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


def _agent_list(project: Path, *, as_json: bool) -> int:
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


def _profiles(project: Path, *, as_json: bool) -> int:
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


def _doctor(project: Path, *, as_json: bool, live: bool) -> int:
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


def _hosts_list(*, as_json: bool) -> int:
    import json

    from idea.app.bootstrap.hosts import host_store

    store = host_store()
    hosts = store.all()
    rows = [
        {
            "name": name,
            "ssh": host.ssh_target,
            "identity_file": host.identity_file,
            "root": host.root,
            "idea": host.idea,
        }
        for name, host in sorted(hosts.items())
    ]
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    elif not rows:
        print(f"No host configured (add one to {store.path})")
    else:
        for row in rows:
            print(f"{row['name']:<16} {row['ssh']:<32} {row['root']}")
    return 0


def _hosts_check(name: str, *, as_json: bool) -> int:
    """Exit 0 when every check passes, else 1; an unknown host is a usage error (2)."""
    import asyncio
    import json

    from idea.app.bootstrap.hosts import check_host

    results = asyncio.run(check_host(name))
    if as_json:
        ok = all(r.status == "ok" for r in results)
        report = {"host": name, "ok": ok, "checks": [r.to_json() for r in results]}
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for r in results:
            detail = f"{r.code}: {r.detail}" if r.code else r.detail
            print(f"{r.check:<11} {r.status:<8} {detail}")
    return 0 if all(r.status == "ok" for r in results) else EXIT_FAILURE


def _serve(path: Path, port: int, *, trust: bool) -> int:
    from idea.app.headless import serve_until_signalled

    if trust and path.is_dir():
        _trust(path, quiet=True)
    return _run_project("serve", path, port, serve_until_signalled)


def _trust(project: Path, *, quiet: bool = False) -> int:
    from idea.app.bootstrap import project_services

    services = project_services(project)
    services.trust.grant()
    if not quiet:
        print(f"Trusted {services.paths.root}: IdeA runs what this project defines")
        for name, profile in sorted(services.profiles.project_entries().items()):
            print(f"  profile {name}: {' '.join(profile.command)}")
    return 0


def _window_folder(path: str | None) -> Path:
    """The PATH given, else what ``launch_context`` picks; hides a console made for the window."""
    from pathlib import Path

    from idea.app.launch_context import (
        default_project_folder,
        hide_own_console,
        started_from_terminal,
    )

    from_terminal = started_from_terminal()
    if not from_terminal:
        hide_own_console()
    if path is not None:
        return Path(path)
    if from_terminal:
        return Path(".")
    from idea.infrastructure.stores.recent_projects import RecentProjects, scratch_project_dir

    recent = [entry.root for entry in RecentProjects().all()]
    return default_project_folder(Path.cwd(), recent, scratch_project_dir())


def _open(path: Path, port: int) -> int:
    from idea.app.window.desktop import open_in_window

    return _run_project("open", path, port, open_in_window)


def _run_project(command: str, path: Path, port: int, runner: Callable[..., int]) -> int:
    """``idea serve`` and ``idea open``: check the arguments, then run until closed."""
    if not path.is_dir():
        raise _UsageError(f"idea {command}: {path} is not a folder")
    if not 0 <= port <= 65535:
        raise _UsageError(f"idea {command}: --port must be between 0 and 65535, not {port}")
    return runner(
        path,
        port=port,
        out=lambda line: print(line, flush=True),
        err=lambda line: print(line, file=sys.stderr, flush=True),
    )
