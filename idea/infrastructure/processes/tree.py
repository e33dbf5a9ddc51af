"""Kill a process with all its descendants, and recognise a process across restarts.

Invariant: ``kill_tree`` returns only once no process of the tree (the root, every descendant it
had when the kill began or acquired on the way, on POSIX its process group and session when it
leads them, and every process of this user tagged with the session's ``SESSION_TAG_VAR``, which
finds what left the tree: a double fork, ``setsid``) is alive, or once its bounded wait has run out
(it then returns False). A zombie counts as dead:
its parent reaps it, and ``kill_tree`` never reaps anything itself, so a caller's own ``waitpid``
still gets the exit status. ``is_alive`` compares pid AND creation time, so a reused pid is not
mistaken for the recorded process. psutil errors are translated into ``IdeaError``s here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import psutil

from idea.domain.errors import Forbidden, Invalid, NotFound

__all__ = [
    "SESSION_TAG_VAR",
    "ProcessRecord",
    "is_alive",
    "kill_tagged",
    "kill_tree",
    "kill_tree_async",
    "tagged",
]

# Every process IdeA starts for an agent carries this in its environment, with a value of its own
# per session; children inherit it, whatever becomes of their parent.
SESSION_TAG_VAR = "IDEA_SESSION_TAG"

# psutil computes creation times from clock ticks (10 ms on Linux); a pid is never reused that fast.
_CREATE_TIME_TOLERANCE_S = 0.01
# After SIGKILL a process dies unless stuck in the kernel; do not wait forever for that.
_KILL_WAIT_S = 5.0
_POLL_S = 0.01


@dataclass(frozen=True, slots=True)
class ProcessRecord:
    """A process as recorded by a previous run: pid plus creation time (pid reuse safe)."""

    pid: int
    create_time: float

    @classmethod
    def of(cls, pid: int) -> ProcessRecord:
        """Raises ``NotFound`` if no such process, ``Forbidden`` if it cannot be inspected."""
        try:
            return cls(pid, psutil.Process(pid).create_time())
        except psutil.NoSuchProcess as exc:
            raise NotFound(f"no process with pid {pid}") from exc
        except psutil.AccessDenied as exc:
            raise Forbidden(f"process {pid} cannot be inspected") from exc

    def to_json(self) -> dict[str, int | float]:
        return {"pid": self.pid, "create_time": self.create_time}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ProcessRecord:
        """Raises ``Invalid`` unless ``data`` holds a positive int pid and a numeric create_time."""
        pid = data.get("pid")
        create_time = data.get("create_time")
        if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
            raise Invalid(f"process record: bad pid {pid!r}")
        if not isinstance(create_time, int | float) or isinstance(create_time, bool):
            raise Invalid(f"process record: bad create_time {create_time!r}")
        return cls(pid, float(create_time))


def is_alive(record: ProcessRecord) -> bool:
    """True if the recorded process (same pid, same creation time) runs and is not a zombie."""
    try:
        proc = psutil.Process(record.pid)
        if abs(proc.create_time() - record.create_time) > _CREATE_TIME_TOLERANCE_S:
            return False
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:  # ZombieProcess is a subclass: dead too
        return False
    except psutil.AccessDenied as exc:
        raise Forbidden(f"process {record.pid} cannot be inspected") from exc


def _gone(proc: psutil.Process) -> bool:
    try:
        # is_running() also checks the creation time, so a reused pid reads as gone.
        return not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True
    except psutil.AccessDenied:
        return False


def _with_descendants(procs: Iterable[psutil.Process]) -> dict[int, psutil.Process]:
    found: dict[int, psutil.Process] = {}
    for proc in procs:
        found.setdefault(proc.pid, proc)
        with contextlib.suppress(psutil.Error):
            for child in proc.children(recursive=True):
                found.setdefault(child.pid, child)
    found.pop(os.getpid(), None)
    return found


def _signal_all(procs: Iterable[psutil.Process], group: int | None, sig: int | None) -> None:
    """Send ``sig`` (None: psutil's hard kill) to each process and to the group."""
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            if sig is None:
                proc.kill()
            else:
                proc.send_signal(sig)
    if sys.platform != "win32" and group is not None and sig is not None:
        # Reaches members the root's child list misses (re-parented background jobs).
        with contextlib.suppress(OSError):
            os.killpg(group, sig)


def _wait_gone(procs: dict[int, psutil.Process], timeout: float) -> dict[int, psutil.Process]:
    deadline = time.monotonic() + timeout
    while True:
        alive = {pid: p for pid, p in procs.items() if not _gone(p)}
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(_POLL_S)


def tagged(var: str, value: str) -> list[psutil.Process]:
    """This user's processes whose environment holds ``var=value`` (never this process)."""
    found: list[psutil.Process] = []
    me = os.getpid()
    for proc in psutil.process_iter():
        if proc.pid == me:
            continue
        with contextlib.suppress(psutil.Error, OSError):
            if proc.environ().get(var) == value:
                found.append(proc)
    return found


def _left_the_tree(pid: int | None, tag: str | None) -> list[psutil.Process]:
    """In one pass over the processes: the members of the session the live ``pid`` leads (POSIX:
    jobs that left its tree) and those tagged ``SESSION_TAG_VAR=tag`` (that left its session)."""
    sid: int | None = None
    if sys.platform != "win32" and pid is not None:
        with contextlib.suppress(OSError):
            if os.getsid(pid) == pid and pid != os.getsid(0):
                sid = pid
    if sid is None and not tag:
        return []
    me = os.getpid()
    found: list[psutil.Process] = []
    for proc in psutil.process_iter():
        if proc.pid in (me, pid):
            continue
        with contextlib.suppress(OSError, psutil.Error):
            if (sid is not None and sys.platform != "win32" and os.getsid(proc.pid) == sid) or (
                tag and proc.environ().get(SESSION_TAG_VAR) == tag
            ):
                found.append(proc)
    return found


def _group_led_by(pid: int) -> int | None:
    if sys.platform == "win32":
        return None
    try:
        pgid = os.getpgid(pid)
    except OSError:  # gone, or not ours to ask: no group of its to signal
        return None
    # Never signal our own group: that would kill the caller.
    return pid if pgid == pid and pgid != os.getpgrp() else None


def _escalation() -> tuple[int | None, ...]:
    if sys.platform != "win32":
        return (signal.SIGHUP, signal.SIGTERM, signal.SIGKILL)
    # Windows: SIGTERM is TerminateProcess for psutil; None is its kill().
    return (signal.SIGTERM, None)


def kill_tree(pid: int, grace_s: float = 1.0, tag: str | None = None) -> bool:
    """Kill ``pid`` and its descendants, escalating; True once all are dead (bounded wait).

    With ``tag`` (the session's ``SESSION_TAG_VAR`` value) the processes that escaped the tree
    die too, even once the root is gone. POSIX: SIGHUP, then SIGTERM, then SIGKILL, each after
    ``grace_s`` if some still live. Windows: terminate, then kill. Raises ``Invalid`` for the
    current process.
    """
    if pid == os.getpid():
        raise Invalid("refusing to kill the current process")
    roots: list[psutil.Process] = []
    try:
        roots.append(psutil.Process(pid))
    except psutil.NoSuchProcess:
        pass
    except psutil.AccessDenied as exc:
        raise Forbidden(f"process {pid} cannot be inspected") from exc
    group = _group_led_by(pid) if roots else None
    roots += _left_the_tree(pid if roots else None, tag)  # a dead pid may be reused
    if not roots:
        return True
    # Collected before any signal: once the root dies its children are re-parented and lost.
    procs = _with_descendants(roots)
    return _kill_all(procs, group, grace_s)


def kill_tagged(var: str, value: str, grace_s: float = 1.0) -> list[int]:
    """Kill (escalating) every process of this user whose environment holds ``var=value``, with
    its descendants; the pids found."""
    procs = _with_descendants(tagged(var, value))
    if procs:
        _kill_all(procs, None, grace_s)
    return sorted(procs)


def _kill_all(procs: dict[int, psutil.Process], group: int | None, grace_s: float) -> bool:
    steps = _escalation()
    for index, sig in enumerate(steps):
        last = index == len(steps) - 1
        _signal_all(procs.values(), group, sig)
        alive = _wait_gone(procs, _KILL_WAIT_S if last else grace_s)
        if not alive:
            return True
        # Survivors may have spawned new children meanwhile (a trap handler, a respawn loop).
        procs = _with_descendants(alive.values())
    return False


async def kill_tree_async(pid: int, grace_s: float = 1.0, tag: str | None = None) -> bool:
    """``kill_tree`` on a worker thread, so the event loop keeps running while it waits."""
    return await asyncio.to_thread(kill_tree, pid, grace_s, tag)
