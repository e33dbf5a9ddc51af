"""The ``idea`` command line: an argv router (DESIGN.md §3).

Everything is imported inside the command that needs it, so that light commands start fast; the
``mcp-server`` bridge is routed before anything else (argparse included) is imported, and only
``idea.bridge`` (stdlib, msgpack, ``idea.endpoint``) is loaded for it. ``idea`` and ``idea open``
start their window process before the rest is even imported (it is killed, unseen, if the command
line is refused). Bad input: one line on stderr naming the problem, exit 2.

The grammar is ``parser.py``'s; each family of commands runs in its own module: ``project.py``
(init, trust, serve, open), ``agents.py`` (agent new|list, profiles, doctor), ``hosts.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from idea.app.window.link import WindowLink


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


def _window_first(args_list: list[str]) -> WindowLink | None:
    """``idea`` and ``idea open``: the window process, started before the rest of the command
    line is imported and checked, so that Qt starts while the app does; None for other commands,
    without a display, or if it cannot start (``open_in_window`` then says why)."""
    if args_list[:1] not in ([], ["open"]) or "-h" in args_list or "--help" in args_list:
        return None
    from idea.app.window.desktop import display_available, start_window

    if not display_available():
        return None
    try:
        return start_window(lambda line: print(line, file=sys.stderr, flush=True))
    except OSError:
        return None


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
    if args_list[:1] == ["window-process"]:
        # The window of `idea open`, which spawns it first: nothing of the app is imported.
        from idea.app.window.process import main as window_main

        return window_main()
    window = _window_first(args_list)
    try:
        return _command(args_list, window)
    finally:
        if window is not None:  # a window for a command that failed is never shown
            window.discard()


def _command(args_list: list[str], window: WindowLink | None) -> int:
    """Every other command; ``window``: the window process ``idea open`` started first."""
    from pathlib import Path

    from idea.bridge.relay_common import EXIT_USAGE
    from idea.cli.agents import agent_list, agent_new, check_profiles, list_profiles
    from idea.cli.hosts import hosts_check, hosts_list
    from idea.cli.parser import EXIT_FAILURE, UsageError, parser
    from idea.cli.project import (
        init_project,
        open_window,
        require_project,
        serve_project,
        trust_project,
        window_folder,
    )
    from idea.domain.errors import IdeaError, Internal

    _utf8_when_piped()
    try:
        args = parser().parse_args(args_list)
        if args.command is None:
            from idea.app.window.desktop import display_available

            if not display_available():
                # No window to open: say so rather than serve a project nobody asked for.
                raise UsageError(
                    "idea: a command is required without a display (try 'idea serve PATH' "
                    "or 'idea --help')"
                )
            return open_window(window_folder(None), 0, window)
        if args.command == "open":
            return open_window(window_folder(args.path), args.port, window)
        if args.command == "init":
            return init_project(Path(args.dir))
        if args.command == "serve":
            return serve_project(Path(args.path), args.port, trust=args.trust)
        if args.command == "trust":
            return trust_project(require_project(Path(args.path)))
        if args.command == "profiles":
            return list_profiles(require_project(Path(args.project)), as_json=args.json)
        if args.command == "doctor":
            return check_profiles(Path(args.project), as_json=args.json, live=args.live)
        if args.command == "hosts":
            if args.hosts_command is None:
                raise UsageError("idea hosts: an action is required: list or check")
            if args.hosts_command == "list":
                return hosts_list(as_json=args.json)
            return hosts_check(args.name, as_json=args.json)
        if args.command == "agent":
            if args.agent_command is None:
                raise UsageError("idea agent: an action is required: new or list")
            project = require_project(Path(args.project))
            if args.agent_command == "new":
                return agent_new(project, args)
            return agent_list(project, as_json=args.json)
        raise UsageError(f"idea: unknown command {args.command!r}")
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except IdeaError as exc:
        print(f"idea: {exc.code}: {exc.message}", file=sys.stderr)
        internal = isinstance(exc, Internal) or exc.code in ("INTERNAL", "CORRUPT_FILE")
        return EXIT_FAILURE if internal else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
