"""Terminal sessions on POSIX: a CLI in a pseudo-terminal (ptyprocess), read on the asyncio loop.

Invariant: every byte the program writes goes, in order, to the scrollback ring (raw bytes) and,
decoded without ever splitting a character, to the subscribers; all of it happens on the loop
that started the session, which is never blocked (non-blocking fd, reader callback, exit status
polled with WNOHANG). The session exits once the terminal hangs up and the program is reaped:
then ``on_exit`` listeners fire once and ``wait()`` resolves. The terminal hangs up when every
holder of its slave side is gone, or, on Linux, shortly after the program itself exits while
something it left behind still holds the terminal (we then read what is left and hang up, as a
terminal window does when its shell exits). ``stop()`` kills the whole process tree; idempotent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from typing import TypeVar

import ptyprocess

from idea.application.session_ports import TerminalSpec, Unsubscribe
from idea.infrastructure.processes.subreaper import register_waited, release_waited
from idea.infrastructure.processes.tree import SESSION_TAG_VAR, kill_tagged, kill_tree_async
from idea.infrastructure.terminal.common import (
    Listeners,
    call_one,
    cannot_start,
    check_size,
    checked_scrollback,
    exited,
)
from idea.infrastructure.terminal.scrollback import Scrollback
from idea.infrastructure.terminal.utf8 import Utf8Stream

__all__ = ["PosixPtyLauncher", "PosixPtySession"]

assert sys.platform != "win32", "POSIX terminals only (Windows: terminal/windows.py)"

log = logging.getLogger(__name__)

READ_SIZE = 64 * 1024
# Once the tree is dead the terminal hangs up at once; longer means a process that left the tree
# (a daemon) still holds it open, and we hang up on it ourselves.
_HANGUP_AFTER_KILL_S = 2.0
_REAP_AFTER_HANGUP_S = 5.0
_REAP_POLL_MAX_S = 0.1
# After the program exits, how long its leftovers may keep the terminal open before we hang up.
LEADER_EXIT_GRACE_S = 0.5
_DRAIN_READS = 64
# Exit code reported when someone else reaped our child (its status is lost).
UNKNOWN_EXIT = 255

_T = TypeVar("_T")


def resolve_program(name: str, cwd: str, env: Mapping[str, str]) -> str:
    """The absolute path of ``name`` as the child would find it; raises ``Unavailable``."""
    candidate = os.path.join(cwd, name) if os.sep in name else name
    found = shutil.which(candidate, path=env.get("PATH", os.defpath))
    if found is None:
        raise cannot_start(name, "not found or not executable")
    return os.path.abspath(found)


class PosixPtyLauncher:
    """Starts programs in a new pseudo-terminal, each as the leader of its own session."""

    def __init__(self, grace_s: float = 1.0) -> None:
        self._grace_s = grace_s

    async def start(self, spec: TerminalSpec) -> PosixPtySession:
        """Raises ``Unavailable`` naming the program if it cannot be started."""
        scrollback = checked_scrollback(spec)
        program = resolve_program(spec.argv[0], spec.cwd, spec.env)
        cwd = spec.cwd

        def enter_cwd() -> None:
            # In the child: ptyprocess reports a preexec failure to the parent, whereas a failing
            # chdir of its own would raise in the forked copy of this process.
            os.chdir(cwd)

        try:
            proc = ptyprocess.PtyProcess.spawn(
                [program, *spec.argv[1:]],
                env=dict(spec.env),
                dimensions=(spec.rows, spec.cols),
                preexec_fn=enter_cwd,
            )
        except Exception as exc:  # ptyprocess re-raises the child's exec error by class name
            raise cannot_start(spec.argv[0], exc) from exc
        tag = spec.env.get(SESSION_TAG_VAR)
        return PosixPtySession(proc, scrollback, asyncio.get_running_loop(), self._grace_s, tag)


class PosixPtySession:
    """One program in one pseudo-terminal; all methods are called on its loop."""

    def __init__(
        self,
        proc: ptyprocess.PtyProcess,
        scrollback: Scrollback,
        loop: asyncio.AbstractEventLoop,
        grace_s: float,
        tag: str | None = None,
    ) -> None:
        self._proc = proc
        self._tag = tag
        self._pid: int = proc.pid
        register_waited(proc.pid)  # this session reaps it (``_reap``), not the subreaper
        self._fd: int = proc.fd
        self._loop = loop
        self._grace_s = grace_s
        self._scrollback = scrollback
        self._decoder = Utf8Stream()
        self._listeners: Listeners[str] = Listeners("output")
        self._exit_listeners: Listeners[int] = Listeners("exit")
        self._pending = bytearray()  # keystrokes the terminal could not take yet
        self._open = True
        self._exit_code: int | None = None
        self._exited: asyncio.Future[int] = loop.create_future()
        self._stopping: asyncio.Task[None] | None = None
        self._killing = False
        self._reap_delay = 0.0
        self._reap_handle: asyncio.TimerHandle | None = None
        os.set_blocking(self._fd, False)
        loop.add_reader(self._fd, self._on_readable)
        self._pidfd = self._watch_leader()

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def exit_code(self) -> int | None:
        return self._exit_code

    def write(self, data: str) -> None:
        if not self._open:
            raise exited()
        payload = data.encode("utf-8")
        if self._pending:
            self._pending += payload
            return
        try:
            written = os.write(self._fd, payload)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            raise exited(exc) from exc
        if written < len(payload):
            self._pending += payload[written:]
            self._loop.add_writer(self._fd, self._on_writable)

    def resize(self, rows: int, cols: int) -> None:
        check_size(rows, cols)
        if not self._open:
            return
        # The kernel sends SIGWINCH to the terminal's foreground process group.
        with contextlib.suppress(OSError):
            self._proc.setwinsize(rows, cols)

    def subscribe(self, listener: Callable[[str], None]) -> Unsubscribe:
        return self._listeners.add(listener)

    def on_exit(self, listener: Callable[[int], None]) -> Unsubscribe:
        if self._exit_code is not None:
            call_one(listener, self._exit_code, "exit")
            return lambda: None
        return self._exit_listeners.add(listener)

    def scrollback(self) -> str:
        # A fresh decoder drops a trailing unfinished character instead of garbling it.
        return Utf8Stream().feed(self._scrollback.snapshot())

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)

    async def stop(self) -> None:
        if self._stopping is None:
            self._stopping = self._loop.create_task(self._stop())
        # Shielded: a cancelled caller must not leave the tree half killed.
        await asyncio.shield(self._stopping)

    def _on_readable(self) -> None:
        self._read_once()

    def _read_once(self) -> bool:
        """Read what the terminal holds; False once there is nothing (more) to read now."""
        try:
            data = os.read(self._fd, READ_SIZE)
        except BlockingIOError:
            return False
        except OSError:  # EIO on Linux: every holder of the slave side has closed it
            data = b""
        if not data:
            self._hang_up()
            return False
        self._scrollback.append(data)
        text = self._decoder.feed(data)
        if text:
            self._listeners.call(text)
        return True

    def _on_writable(self) -> None:
        try:
            written = os.write(self._fd, self._pending)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._pending)  # hung up: the reader sees the end and closes
        del self._pending[:written]
        if not self._pending:
            self._loop.remove_writer(self._fd)

    def _watch_leader(self) -> int | None:
        """Linux: a pidfd turns readable when the program exits, even if EOF never comes."""
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is None:
            return None
        try:
            pidfd: int = pidfd_open(self._pid)
        except OSError:  # refused (an old kernel, a sandbox): the hang-up alone ends it
            return None
        self._loop.add_reader(pidfd, self._on_leader_exit)
        return pidfd

    def _unwatch_leader(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    def _on_leader_exit(self) -> None:
        self._unwatch_leader()
        if self._open:
            # Normally EOF follows at once; only leftovers holding the terminal make us hang up.
            self._loop.call_later(LEADER_EXIT_GRACE_S, self._force_hang_up)

    def _force_hang_up(self) -> None:
        # What the program wrote before it died may still sit in the terminal: read it first.
        for _ in range(_DRAIN_READS):
            if not self._open or not self._read_once():
                break
        self._hang_up()

    def _hang_up(self) -> None:
        """The terminal is finished: close our side and start reaping the program."""
        if not self._open:
            return
        self._open = False
        self._loop.remove_reader(self._fd)
        self._loop.remove_writer(self._fd)
        self._pending.clear()
        with contextlib.suppress(OSError):
            self._proc.fileobj.close()
        # Else ptyprocess's __del__ would close again and waitpid behind our back.
        self._proc.closed = True
        tail = self._decoder.flush()
        if tail:
            self._listeners.call(tail)
        self._kick_reap()

    def _kick_reap(self) -> None:
        if self._reap_handle is not None:
            self._reap_handle.cancel()
        self._reap_delay = 0.0
        self._reap_handle = self._loop.call_later(0, self._reap)

    def _reap(self) -> None:
        self._reap_handle = None
        if self._exit_code is not None:
            return
        # While kill_tree runs the pid must stay ours: reaping would let it be reused.
        status: int | None = None
        if not self._killing:
            try:
                pid, raw = os.waitpid(self._pid, os.WNOHANG)
            except ChildProcessError:
                log.warning("pid %d was reaped elsewhere; exit status lost", self._pid)
                self._finish(UNKNOWN_EXIT)
                return
            status = raw if pid else None
        if status is None:
            # The program may outlive its terminal for a while; poll with backoff, never block.
            self._reap_delay = min(max(self._reap_delay * 2, 0.001), _REAP_POLL_MAX_S)
            self._reap_handle = self._loop.call_later(self._reap_delay, self._reap)
            return
        self._finish(os.waitstatus_to_exitcode(status))

    def _finish(self, code: int) -> None:
        release_waited(self._pid)
        self._unwatch_leader()
        self._exit_code = code
        if not self._exited.done():
            self._exited.set_result(code)
        self._exit_listeners.call_once(code)

    async def _stop(self) -> None:
        if self._exit_code is None:
            self._killing = True
            try:
                await kill_tree_async(self._pid, self._grace_s, self._tag)
            finally:
                self._killing = False
            if not self._open:
                self._kick_reap()
        elif self._tag:
            # The program is gone (its pid may be reused): what it left behind carries the tag.
            await asyncio.to_thread(kill_tagged, SESSION_TAG_VAR, self._tag, self._grace_s)
        if await self._exited_within(_HANGUP_AFTER_KILL_S):
            return
        log.warning("terminal of pid %d still held open after its tree was killed", self._pid)
        self._force_hang_up()
        if not await self._exited_within(_REAP_AFTER_HANGUP_S):
            log.error("pid %d survived SIGKILL; giving up on its exit status", self._pid)

    async def _exited_within(self, seconds: float) -> bool:
        try:
            async with asyncio.timeout(seconds):
                await asyncio.shield(self._exited)
        except TimeoutError:
            return False
        return True
