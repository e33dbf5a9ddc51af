"""The ``idea`` command line's grammar (DESIGN.md §3, a contract scripts, tests and the agents'
CLIs depend on), and what a bad command line is.

Invariant: a bad command line, wherever it is found (argparse or a command checking its
arguments), raises ``UsageError`` with one line naming the problem; ``idea.cli.main`` prints it
and exits ``EXIT_USAGE``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    import argparse

EXIT_FAILURE = 1


class UsageError(Exception):
    pass


def parser() -> argparse.ArgumentParser:
    import argparse

    from idea import __version__
    from idea.domain.builtin_profiles import builtin_profile_names

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            # One line, not argparse's usage block: scripts and agents read stderr.
            raise UsageError(f"{self.prog}: {message}")

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
