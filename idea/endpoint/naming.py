"""``mcp_endpoint(project_id, root)``: THE name of a project's MCP endpoint (DESIGN.md §9.1).

One function, used both by the listener that serves the endpoint and by the declaration written
for the agents' CLIs, so the two can never disagree. One per project checkout and user: two
clones or worktrees of one repository share a project id (project.json is committed) but not a
root. The socket's folder is used only if it is a real folder of this user's with mode 0700
(another user could create ``/tmp/idea-<uid>`` first, or make it a link); else this process
uses a private folder of its own.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import stat
import sys
import tempfile

# AF_UNIX paths are limited to 108 bytes on Linux (104 on macOS); keep a margin.
MAX_SOCKET_PATH = 100
_private_dirs: dict[str, str] = {}  # shared folder refused -> this process's own folder


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in a bare container
        return str(os.getuid()) if hasattr(os, "getuid") else "user"


def _checkout(project_id: str, root: str) -> str:
    return project_id + "\0" + os.path.normcase(os.path.abspath(root))


def is_private_dir(folder: str) -> bool:
    """A real folder (not a link), owned by this user, mode 0700 (POSIX)."""
    if sys.platform == "win32":
        return False
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and stat.S_IMODE(info.st_mode) == 0o700
    )


def _usable(folder: str) -> str:
    """``folder`` made or checked private; this process's own temp folder when it cannot be."""
    if sys.platform == "win32":
        raise OSError("private socket folders are POSIX only")
    if folder in _private_dirs:
        return _private_dirs[folder]
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return _private_dir(folder)
    try:
        info = os.lstat(folder)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
            os.chmod(folder, 0o700)  # ours, a real folder: only its mode was wrong
    except OSError:
        return _private_dir(folder)
    return folder if is_private_dir(folder) else _private_dir(folder)


def _private_dir(refused: str) -> str:
    if sys.platform == "win32":
        raise OSError("private socket folders are POSIX only")
    private = tempfile.mkdtemp(prefix=f"idea-{os.getuid()}-", dir=_short_base())
    _private_dirs[refused] = private
    return private


def _short_base() -> str:
    base = tempfile.gettempdir()
    return base if len(base) < 40 else "/tmp"


def endpoint_dir() -> str:
    """``<runtime dir>/idea-<uid>``: ``$XDG_RUNTIME_DIR`` else the temp dir (POSIX only)."""
    if sys.platform == "win32":
        raise OSError("socket folders are POSIX only: Windows uses named pipes")
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return os.path.join(base, f"idea-{os.getuid()}")


def mcp_endpoint(project_id: str, root: str) -> str:
    """The Unix socket path (POSIX) or named pipe name (Windows) of the project checked out in
    ``root``. POSIX: its folder exists and is private once this returns."""
    name = _digest(_checkout(project_id, root))
    if sys.platform == "win32":
        return rf"\\.\pipe\idea-{_digest(_user() + _checkout(project_id, root))}"
    folder = endpoint_dir()
    if len(os.path.join(folder, f"{name}.sock").encode("utf-8")) > MAX_SOCKET_PATH:
        # A deep $XDG_RUNTIME_DIR/TMPDIR: fall back to /tmp, which is always short.
        folder = os.path.join("/tmp", f"idea-{os.getuid()}")
    return os.path.join(_usable(folder), f"{name}.sock")


def ensure_endpoint_dir(endpoint: str) -> None:
    """Create the socket's folder 0700 if it is missing, then check it is private (POSIX; a
    no-op for a Windows pipe name).

    Raises ``PermissionError`` if it is not: it was swapped since ``mcp_endpoint`` named it."""
    if sys.platform == "win32":
        return
    folder = os.path.dirname(endpoint)
    try:
        os.makedirs(os.path.dirname(folder), exist_ok=True)
        os.mkdir(folder, 0o700)
        os.chmod(folder, 0o700)  # the umask may have taken more than asked
    except FileExistsError:
        pass
    if not is_private_dir(folder):
        raise PermissionError(f"{folder} is not a private folder of this user's")


def host_endpoint(root: str) -> str:
    """The Unix socket of ``idea host``'s daemon for the checkout in ``root`` (POSIX): the relay
    that SSH runs reaches the agents this daemon keeps alive across dropped links (§16)."""
    if sys.platform == "win32":
        raise OSError("an agent host is POSIX only")
    name = "host-" + _digest("host\0" + os.path.normcase(os.path.abspath(root)))
    folder = endpoint_dir()
    if len(os.path.join(folder, f"{name}.sock").encode("utf-8")) > MAX_SOCKET_PATH:
        folder = os.path.join("/tmp", f"idea-{os.getuid()}")
    return os.path.join(_usable(folder), f"{name}.sock")
