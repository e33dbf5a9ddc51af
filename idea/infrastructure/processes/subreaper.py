"""IdeA as the child subreaper of what its agents start (Linux), and the reaping that comes with it.

Linux gives a process whose parent died to the nearest ancestor marked
``PR_SET_CHILD_SUBREAPER`` instead of to init. So while IdeA runs, nothing an agent starts leaves
IdeA's process tree (a double fork, ``setsid``, even a cleared environment, which the session tag
of ``tree.py`` cannot see), and ``kill_descendants`` at exit reaches all of it.

The price: those orphans become IdeA's children, and their zombies IdeA's to reap. Invariant: a
child that something in IdeA waits for (asyncio, ptyprocess, ``subprocess``) is never reaped
here, or its owner would lose the exit status. Only a zombie child in another session than
IdeA's (agents run in sessions of their own; IdeA's own short commands do not), not registered
by a launcher with ``register_waited``, and older than ``_REGISTER_GRACE_S`` (the time a launcher
takes to register a child it has just started) is reaped. A launcher that starts a child in a
session of its own registers it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import logging
import os
import sys
import time

import psutil

from idea.infrastructure.processes.tree import kill_tree

__all__ = [
    "Subreaper",
    "become_subreaper",
    "is_subreaper",
    "kill_descendants",
    "reap_orphans",
    "register_waited",
    "release_waited",
]

log = logging.getLogger(__name__)

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_REGISTER_GRACE_S = 5.0
_REAP_EVERY_S = 2.0

# Pids of the children a launcher of this process waits for itself (see the invariant).
_waited: set[int] = set()


def register_waited(pid: int) -> None:
    """Mark ``pid`` as a child its launcher reaps itself; ``release_waited`` once it has."""
    _waited.add(pid)


def release_waited(pid: int) -> None:
    _waited.discard(pid)


def _prctl() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    except OSError:  # no C library to load: no subreaper, the tree kills remain
        return None
    return getattr(libc, "prctl", None)


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants; False where the OS has no such thing."""
    prctl = _prctl()
    if prctl is None:
        return False
    if prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        log.warning("could not become a child subreaper: %s", os.strerror(ctypes.get_errno()))
        return False
    return True


def is_subreaper() -> bool:
    prctl = _prctl()
    if prctl is None:
        return False
    flag = ctypes.c_int(0)
    return prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0 and flag.value == 1


def reap_orphans(now: float | None = None) -> list[int]:
    """Reap the zombies of adopted orphans (never a child a launcher waits for); their pids."""
    if sys.platform == "win32":
        return []
    now = time.time() if now is None else now
    own_session = os.getsid(0)
    reaped: list[int] = []
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error, OSError):
            if child.pid in _waited or child.status() != psutil.STATUS_ZOMBIE:
                continue
            if os.getsid(child.pid) == own_session:
                continue  # one of IdeA's own commands: its caller waits for it
            if now - child.create_time() < _REGISTER_GRACE_S:
                continue  # may be a launcher's child not registered yet
            pid, _ = os.waitpid(child.pid, os.WNOHANG)
            if pid:
                reaped.append(pid)
    return reaped


def kill_descendants(grace_s: float = 1.0) -> list[int]:
    """Kill every process still below this one in another session than its own (what agents
    left behind; the window's own helper processes share IdeA's session); their pids."""
    if sys.platform == "win32":
        return []
    own_session = os.getsid(0)
    killed: list[int] = []
    with contextlib.suppress(psutil.Error):
        for child in psutil.Process().children():
            with contextlib.suppress(psutil.Error, OSError):
                if child.status() == psutil.STATUS_ZOMBIE or os.getsid(child.pid) == own_session:
                    continue
                killed.append(child.pid)
                kill_tree(child.pid, grace_s)
    if killed:
        log.warning("killed %d process(es) the agents had left running", len(killed))
    reap_orphans(now=float("inf"))
    return killed


class Subreaper:
    """While open: this process is the subreaper and reaps its orphans every few seconds.
    ``close`` kills what is left below it."""

    def __init__(self, task: asyncio.Task[None] | None) -> None:
        self._task = task

    @classmethod
    def open(cls) -> Subreaper:
        if not become_subreaper():
            return cls(None)
        return cls(asyncio.get_running_loop().create_task(_reap_forever(), name="subreaper"))

    @property
    def active(self) -> bool:
        return self._task is not None

    async def close(self) -> list[int]:
        """Stop reaping, then kill (on a thread) every descendant left; their pids."""
        if self._task is None:
            return []
        task, self._task = self._task, None
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return await asyncio.to_thread(kill_descendants)


async def _reap_forever() -> None:
    while True:
        await asyncio.sleep(_REAP_EVERY_S)
        try:
            await asyncio.to_thread(reap_orphans)
        except Exception:
            log.exception("reaping orphans failed")
