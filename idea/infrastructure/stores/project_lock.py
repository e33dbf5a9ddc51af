"""One IdeA process per project: an exclusive OS lock on ``.ideai/run/owner.lock``.

Invariant: while a ``ProjectLock`` is held no other process can take it, so a second IdeA on the
same project fails BEFORE reconciling (which would take the first one's agents for leftovers of
a crash and kill them). The OS drops the lock when its holder dies, so a crash never leaves the
project locked. The file holds the owner's pid, for the error message only.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from idea.domain.errors import Conflict
from idea.infrastructure.files.file_lock import try_lock
from idea.infrastructure.files.os_errors import os_errors

WINDOWS_LOCK_OFFSET = 1 << 20


class ProjectLock:
    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    @classmethod
    def acquire(cls, path: Path, project_name: str) -> ProjectLock:
        """Raises ``Conflict`` (naming the other process) when another process holds it,
        ``Internal`` when the file cannot be opened."""
        with os_errors("open", path):
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        if not try_lock(fd, WINDOWS_LOCK_OFFSET):
            owner = _read_owner(fd)
            os.close(fd)
            who = f" (process {owner})" if owner else ""
            raise Conflict(
                f"project {project_name} is already open in another IdeA{who}: "
                "close it there, or switch to that window"
            )
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        return cls(fd, path)

    def release(self) -> None:
        """Idempotent."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing drops the lock


def _read_owner(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii", errors="replace").strip()
    except OSError:  # unreadable: the refusal then names no process
        return ""
    return text if text.isdigit() else ""
