"""A lock between processes over one file's read-modify-write: ``<file>.lock`` held exclusively.

For the files every IdeA process of a user shares (trusted and recent projects, CLI versions):
two windows or two ``idea serve`` updating one at the same moment must not lose an update. The
lock is advisory (flock on POSIX, a locked byte on Windows), waits a bounded time, and is dropped
when its file is closed, so a crashed holder never leaves it held.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from idea.domain.errors import Internal
from idea.infrastructure.files.os_errors import os_error

WAIT_S = 10.0
_POLL_S = 0.01


@contextlib.contextmanager
def locked(path: Path, wait_s: float = WAIT_S) -> Iterator[None]:
    """Hold ``<path>.lock`` for the block. Raises ``Internal`` if it cannot be had in time."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise os_error("lock", lock_path, exc) from exc
    try:
        deadline = time.monotonic() + wait_s
        while not try_lock(fd):
            if time.monotonic() >= deadline:
                raise Internal(
                    f"{path} is being written by another IdeA for more than {wait_s:g} s"
                )
            time.sleep(_POLL_S)
        yield
    finally:
        os.close(fd)  # closing drops the lock


def try_lock(fd: int, offset: int = 0) -> bool:
    """Take the exclusive lock on ``fd`` without waiting; False if another holds it. Windows
    locks one byte at ``offset`` (readers of that byte are refused); POSIX flocks the file (it
    also conflicts between two opens in one process)."""
    if sys.platform == "win32":
        import msvcrt  # noqa: PLC0415

        os.lseek(fd, offset, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:  # another holder has the byte
            return False
        return True
    import fcntl  # noqa: PLC0415

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
