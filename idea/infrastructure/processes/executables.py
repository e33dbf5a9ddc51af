"""Find what runs a profile's CLI, the way users install CLIs (DESIGN.md §17).

Where: the profile's absolute path, else ``PATH``, else the places installers put CLIs that a
desktop session's ``PATH`` often lacks (Claude Code's native installer: ``~/.local/bin``,
``~/.claude/local``; node version managers: nvm, fnm, volta, asdf).

What: a command found is run as found, symlinks and all (a venv's ``python`` is a link to the
system one, and only through the link does it run in its venv), unless it is an npm package's
launcher. An npm launcher is never refused: it resolves to the native binary its package ships
(``NATIVE_BINARIES``: Codex's ``@openai/codex-<platform>/vendor/<triple>/bin/codex``, Claude
Code's ``@anthropic-ai/claude-code-<platform>/claude``), else to its script run by a ``node``
(the one beside the launcher, as nvm and ``npm -g --prefix`` lay them out, else the one on
``PATH``). On Windows npm's ``.cmd``/``.ps1`` shims cannot be spawned without a shell (and
``cmd /c`` mangles arguments): the real ``.exe`` is looked up beside them in ``node_modules``.
"""

from __future__ import annotations

import glob
import json
import os
import platform
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from idea.domain.errors import Unavailable
from idea.domain.profile import Profile

__all__ = [
    "NATIVE_BINARIES",
    "DetectedCli",
    "detect",
    "detect_all",
    "resolve_executable",
    "start_errors",
]

_SHIM_SUFFIXES = (".cmd", ".bat", ".ps1")
_SCRIPT_SUFFIXES = (".js", ".cjs", ".mjs")
_MAX_SEARCH_DEPTH = 8
_HEAD = 256  # bytes read to tell a script from a binary


@contextmanager
def start_errors(program: str) -> Iterator[None]:
    """The one translation of a program that could not be started (not found, not executable,
    out of processes): any ``OSError`` inside becomes ``Unavailable("cannot start <program>:
    <the OS's reason>")``, chained."""
    try:
        yield
    except OSError as exc:
        raise Unavailable(f"cannot start {program}: {exc.strerror or exc}") from exc


@dataclass(frozen=True, slots=True)
class DetectedCli:
    profile: str
    command: str
    path: str | None  # absolute path of what runs (the native binary, or the script); None: none
    reason: str = ""  # why none was found
    argv: tuple[str, ...] = ()  # the command line that runs it: ``(path,)`` or ``(node, script)``
    via: str = ""  # how it was found, for ``idea profiles`` / doctor
    unusable: bool = False  # found, but it cannot run here (``reason`` says why)


def resolve_executable(
    command: str, search_path: str | None = None, home: str | None = None
) -> DetectedCli:
    """Locate ``command`` (a name on ``search_path``, or a path). ``profile`` is left empty."""
    found, where = _find(command, search_path, home)
    if found is None:
        return DetectedCli("", command, None, f"'{command}' is not on PATH")
    if sys.platform == "win32" and found.suffix.lower() in _SHIM_SUFFIXES:
        real = _exe_behind_shim(found, Path(command).stem)
        if real is None:
            return DetectedCli(
                "",
                command,
                None,
                f"only the npm shim {found} was found, not a real .exe",
                unusable=True,
            )
        return _ran(command, (str(real),), f"{where}, npm shim {found.name} → {real.name}")
    target = found.resolve()
    package = _npm_package(target)
    if package is None:
        return _ran(command, (str(found),), where)
    root, name = package
    native = NATIVE_BINARIES.get(name)
    binary = native(root) if native is not None else None
    if binary is not None:
        return _ran(command, (str(binary),), f"{where}, npm package {name} → its native binary")
    if not _runs_under_node(target):  # a binary, or a script its shebang runs
        return _ran(command, (str(target),), f"{where}, npm package {name}")
    node = _node_for(found, search_path)
    if node is None:
        return DetectedCli(
            "",
            command,
            None,
            f"{found} is the npm package {name}'s script and no 'node' was found beside it or "
            "on PATH to run it",
            unusable=True,
        )
    return _ran(command, (str(node), str(target)), f"{where}, npm package {name} run by {node}")


def detect(
    profile: Profile, search_path: str | None = None, home: str | None = None
) -> DetectedCli:
    result = resolve_executable(profile.command[0], search_path, home)
    return replace(result, profile=profile.name)


def detect_all(profiles: Mapping[str, Profile]) -> dict[str, DetectedCli]:
    path = os.environ.get("PATH")
    return {name: detect(profile, path) for name, profile in sorted(profiles.items())}


def _ran(command: str, argv: tuple[str, ...], via: str) -> DetectedCli:
    return DetectedCli("", command, argv[-1], "", argv, via)


# --- where ---------------------------------------------------------------------------------------


def _find(command: str, search_path: str | None, home: str | None) -> tuple[Path | None, str]:
    if os.path.isabs(command):
        found = shutil.which(command)
        return (Path(found), "its absolute path") if found else (None, "")
    found = shutil.which(command, path=search_path)
    if found is not None:
        return Path(found).absolute(), "on PATH"
    extra = os.pathsep.join(_installer_dirs(command, home or os.path.expanduser("~")))
    found = shutil.which(command, path=extra) if extra else None
    if found is not None:
        return Path(found).absolute(), f"in {Path(found).parent} (not on PATH)"
    return None, ""


def _installer_dirs(command: str, home: str) -> Iterable[str]:
    """Folders installers put CLIs in, newest node version first."""
    if Path(command).stem == "claude":
        yield os.path.join(home, ".local", "bin")  # the native installer's link
        yield os.path.join(home, ".claude", "local")  # its older local install
    patterns = (
        (".nvm", "versions", "node", "*", "bin"),
        (".local", "share", "fnm", "node-versions", "*", "installation", "bin"),
    )
    for pattern in patterns:
        yield from sorted(glob.glob(os.path.join(home, *pattern)), key=_version_key, reverse=True)
    yield os.path.join(home, ".volta", "bin")
    yield os.path.join(home, ".asdf", "shims")


def _version_key(folder: str) -> tuple[int, ...]:
    for part in Path(folder).parts:
        if part.startswith("v") and part[1:2].isdigit():
            return tuple(int(n) if n.isdigit() else 0 for n in part[1:].split("."))
    return ()


# --- npm packages --------------------------------------------------------------------------------


def _npm_package(target: Path) -> tuple[Path, str] | None:
    """The package (root folder, name) inside ``node_modules`` that ``target`` belongs to."""
    if "node_modules" not in target.parts:
        return None
    for folder in target.parents:
        if folder.name == "node_modules":
            return None
        manifest = folder / "package.json"
        if manifest.is_file():
            try:
                name = json.loads(manifest.read_text(encoding="utf-8")).get("name")
            except (OSError, ValueError, AttributeError):  # unreadable, or not a manifest
                return None
            return (folder, name) if isinstance(name, str) else None
    return None


def _installed(package: str, near: Path) -> Path | None:
    """Where Node's ``require.resolve`` would find ``package`` from the package at ``near``."""
    for folder in (near, *near.parents):
        if folder.name == "node_modules":
            continue
        candidate = folder / "node_modules" / package
        if (candidate / "package.json").is_file():
            return candidate
    return None


def _platform() -> str:
    """npm's name for this platform: ``linux-x64``, ``darwin-arm64``, ``win32-x64``."""
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(machine, machine)
    return f"{sys.platform if sys.platform != 'cygwin' else 'win32'}-{arch}"


def _is_musl() -> bool:
    return sys.platform == "linux" and platform.libc_ver()[0] != "glibc"


_CODEX_TRIPLES = {
    "linux-x64": "x86_64-unknown-linux-musl",
    "linux-arm64": "aarch64-unknown-linux-musl",
    "darwin-x64": "x86_64-apple-darwin",
    "darwin-arm64": "aarch64-apple-darwin",
    "win32-x64": "x86_64-pc-windows-msvc",
    "win32-arm64": "aarch64-pc-windows-msvc",
}


def _exe(name: str) -> str:
    return f"{name}.exe" if sys.platform == "win32" else name


def _codex_binary(package: Path) -> Path | None:
    """What ``@openai/codex/bin/codex.js`` would exec."""
    key = _platform()
    triple = _CODEX_TRIPLES.get(key)
    if triple is None:
        return None
    vendors = [package / "vendor"]
    platform_package = _installed(f"@openai/codex-{key}", package)
    if platform_package is not None:
        vendors.insert(0, platform_package / "vendor")
    for vendor in vendors:
        binary = vendor / triple / "bin" / _exe("codex")
        if _runnable(binary):
            return binary
    return None


def _claude_binary(package: Path) -> Path | None:
    """The native binary: ``bin/claude.exe`` once the postinstall copied it there, else the one
    in the platform package (the postinstall did not run: ``--ignore-scripts``)."""
    placed = package / "bin" / "claude.exe"
    if _runnable(placed) and _is_native(placed):
        return placed
    key = _platform() + ("-musl" if _is_musl() else "")
    platform_package = _installed(f"@anthropic-ai/claude-code-{key}", package)
    if platform_package is not None and _runnable(binary := platform_package / _exe("claude")):
        return binary
    return None


def _opencode_binary(package: Path) -> Path | None:
    """``bin/opencode.exe`` once the postinstall copied the binary there (before, it is a shell
    script saying so), else the one of a platform package ``opencode-<os>-<arch>[-baseline]
    [-musl]``: npm installs each that fits this machine, the postinstall picks among them so."""
    placed = package / "bin" / "opencode.exe"
    if _runnable(placed) and _is_native(placed):
        return placed
    os_name, arch = _platform().split("-", 1)
    base = f"opencode-{'windows' if os_name == 'win32' else os_name}-{arch}"
    flavours = ("", "-baseline", "-musl", "-baseline-musl")
    if _is_musl():
        flavours = ("-musl", "-baseline-musl", "", "-baseline")
    for flavour in flavours:
        platform_package = _installed(base + flavour, package)
        if platform_package is not None and _runnable(
            binary := platform_package / "bin" / _exe("opencode")
        ):
            return binary
    return None


# One line per npm package that ships a native binary beside its launcher script.
NATIVE_BINARIES: dict[str, Callable[[Path], Path | None]] = {
    "@openai/codex": _codex_binary,
    "@anthropic-ai/claude-code": _claude_binary,
    "opencode-ai": _opencode_binary,
}


def _runnable(path: Path) -> bool:
    return path.is_file() and (sys.platform == "win32" or os.access(path, os.X_OK))


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as file:
            return file.read(_HEAD)
    except OSError:  # unreadable: no head, so neither native nor a node launcher
        return b""


def _is_native(path: Path) -> bool:
    """An ELF, PE or Mach-O binary (not a script, not a placeholder)."""
    return _head(path).startswith((b"\x7fELF", b"MZ", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe"))


def _runs_under_node(path: Path) -> bool:
    """A JavaScript launcher: by its suffix, or a ``#!`` line that names node."""
    if path.suffix.lower() in _SCRIPT_SUFFIXES:
        return True
    first_line = _head(path).split(b"\n", 1)[0]
    return first_line.startswith(b"#!") and b"node" in first_line


def _node_for(launcher: Path, search_path: str | None) -> Path | None:
    beside = launcher.parent / _exe("node")
    if _runnable(beside):
        return beside
    found = shutil.which("node", path=search_path)
    return Path(found) if found else None


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
