"""``idea init``, ``idea trust``, ``idea serve`` and ``idea open``: the commands that take a
project folder and make, trust or run it."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from idea.cli.parser import UsageError

if TYPE_CHECKING:
    from idea.app.window.link import WindowLink


def require_project(start: Path) -> Path:
    from idea.app.bootstrap import find_project_root

    if not start.is_dir():
        raise UsageError(f"idea: {start} is not a folder")
    root = find_project_root(start)
    if root is None:
        raise UsageError(f"idea: no IdeA project in {start.resolve()} or above (run 'idea init')")
    return root


def init_project(folder: Path) -> int:
    from idea.app.bootstrap import project_services

    if folder.exists() and not folder.is_dir():
        raise UsageError(f"idea init: {folder} exists and is not a folder")
    existed = (folder / ".ideai" / "project.json").is_file()
    folder.mkdir(parents=True, exist_ok=True)
    services = project_services(folder)
    verb = "Already an IdeA project" if existed else "Initialised IdeA project"
    print(f"{verb}: {services.info.name} ({services.info.id}) in {services.paths.ideai}")
    return 0


def serve_project(path: Path, port: int, *, trust: bool) -> int:
    from idea.app.headless import serve_until_signalled

    if trust and path.is_dir():
        trust_project(path, quiet=True)
    return _run_project("serve", path, port, serve_until_signalled)


def trust_project(project: Path, *, quiet: bool = False) -> int:
    from idea.app.bootstrap import project_services

    services = project_services(project)
    services.trust.grant()
    if not quiet:
        print(f"Trusted {services.paths.root}: IdeA runs what this project defines")
        for name, profile in sorted(services.profiles.project_entries().items()):
            print(f"  profile {name}: {' '.join(profile.command)}")
    return 0


def window_folder(path: str | None) -> Path:
    """The PATH given, else what ``launch_context`` picks; hides a console made for the window."""
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


def open_window(path: Path, port: int, window: WindowLink | None) -> int:
    """``window``: the window process if the command line started it already."""
    from idea.app.window.desktop import open_in_window

    return _run_project("open", path, port, functools.partial(open_in_window, window=window))


def _run_project(command: str, path: Path, port: int, runner: Callable[..., int]) -> int:
    """``idea serve`` and ``idea open``: check the arguments, then run until closed."""
    if not path.is_dir():
        raise UsageError(f"idea {command}: {path} is not a folder")
    if not 0 <= port <= 65535:
        raise UsageError(f"idea {command}: --port must be between 0 and 65535, not {port}")
    return runner(
        path,
        port=port,
        out=lambda line: print(line, flush=True),
        err=lambda line: print(line, file=sys.stderr, flush=True),
    )
