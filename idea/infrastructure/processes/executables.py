"""Find the real executable of a profile's CLI: an absolute path, never a shim.

On Windows npm installs ``.cmd``/``.ps1`` shims that cannot be spawned without a shell (and
``cmd /c`` mangles arguments); the real ``.exe`` is looked up beside them in ``node_modules``.
On POSIX the npm ``bin`` symlink is resolved to its target (a native binary or a script with a
shebang, both directly executable).
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from idea.domain.profile import Profile

_SHIM_SUFFIXES = (".cmd", ".bat", ".ps1")
# Where the npm packages of the built-in CLIs keep their native Windows binaries.
_MAX_SEARCH_DEPTH = 8


@dataclass(frozen=True, slots=True)
class DetectedCli:
    profile: str
    command: str
    path: str | None  # absolute path of the real executable, None if not found
    reason: str = ""  # why it was not found


def resolve_executable(command: str, search_path: str | None = None) -> DetectedCli:
    """Locate ``command`` (a name on PATH or a path). ``profile`` is left empty."""
    found = shutil.which(command, path=search_path)
    if found is None:
        return DetectedCli("", command, None, f"'{command}' is not on PATH")
    path = Path(found).resolve()
    if sys.platform == "win32" and path.suffix.lower() in _SHIM_SUFFIXES:
        real = _exe_behind_shim(path, Path(command).stem)
        if real is None:
            return DetectedCli(
                "", command, None, f"only the npm shim {path} was found, not a real .exe"
            )
        path = real
    return DetectedCli("", command, str(path))


def detect(profile: Profile, search_path: str | None = None) -> DetectedCli:
    result = resolve_executable(profile.command[0], search_path)
    return DetectedCli(profile.name, result.command, result.path, result.reason)


def detect_all(profiles: dict[str, Profile]) -> dict[str, DetectedCli]:
    path = os.environ.get("PATH")
    return {name: detect(profile, path) for name, profile in sorted(profiles.items())}


def _exe_behind_shim(shim: Path, name: str) -> Path | None:
    modules = shim.parent / "node_modules"
    if not modules.is_dir():
        return None
    wanted = f"{name}.exe".lower()
    for root, dirs, files in os.walk(modules):
        depth = len(Path(root).relative_to(modules).parts)
        if depth >= _MAX_SEARCH_DEPTH:
            dirs.clear()
        for file in files:
            if file.lower() == wanted:
                return Path(root) / file
    return None
