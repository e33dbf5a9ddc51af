"""Terminal sessions on Windows: a CLI in a ConPTY (pywinpty), read on a thread.

Invariant: output is handed from the reader thread to the session's loop in order
(``call_soon_threadsafe``); scrollback, subscribers and exit listeners are only touched on that
loop. The program is spawned by the absolute path of a real ``.exe`` (never a ``cmd /c`` or
``.cmd`` shim, whose tree would hide the real process). ``stop()`` kills the tree with psutil.
Imported only on Windows, by ``terminal_launcher.default_terminal_launcher``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from ctypes import wintypes
from typing import Protocol, TypeVar, cast

import winpty

from idea.application.session_ports import TerminalSpec, Unsubscribe
from idea.domain.errors import Invalid
from idea.infrastructure.processes.cli_process import Job
from idea.infrastructure.processes.tree import kill_tree_async
from idea.infrastructure.terminal.common import (
    Listeners,
    call_one,
    cannot_start,
    checked_scrollback,
    exited,
)
from idea.infrastructure.terminal.scrollback import Scrollback

__all__ = ["WindowsPtyLauncher", "WindowsPtySession"]

log = logging.getLogger(__name__)

READ_SIZE = 64 * 1024
_EXIT_POLL_S = 0.05
_DRAIN_S = 2.0  # the pseudo-console renders asynchronously: its last output may lag the exit
_EXIT_AFTER_KILL_S = 5.0
_T = TypeVar("_T")


class _WinPty(Protocol):
    """What this module uses of ``winpty.PTY`` (a pseudo-console and its one child)."""

    @property
    def pid(self) -> int | None: ...

    def read(self, length: int, blocking: bool) -> str: ...
    def write(self, to_write: str) -> int: ...
    def set_size(self, cols: int, rows: int) -> None: ...
    def isalive(self) -> bool: ...
    def iseof(self) -> bool: ...
    def get_exitstatus(self) -> int | None: ...


def _resolve_exe(name: str, env: Mapping[str, str]) -> str:
    found = name if os.path.isabs(name) else shutil.which(name, path=env.get("PATH", os.defpath))
    if found is None or not os.path.isfile(found):
        raise cannot_start(name, "not found")
    if not found.lower().endswith(".exe"):
        raise cannot_start(name, f"{found} is not a real .exe (a shim?)")
    return os.path.abspath(found)


_STD_HANDLES = (-10, -11, -12)  # STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE


@contextlib.contextmanager
def _std_handles_kept() -> Iterator[None]:
    """Creating a pseudo-console points this process's std handles at CONIN$/CONOUT$; a later
    child would inherit those (wine's does) and write to IdeA's console instead of its own
    pseudo-console. Put them back as they were."""
    if sys.platform != "win32":  # for mypy on POSIX: this module is imported on Windows only
        yield
        return
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    kernel32.GetStdHandle.restype = wintypes.HANDLE
    kernel32.GetStdHandle.argtypes = [wintypes.DWORD]
    kernel32.SetStdHandle.argtypes = [wintypes.DWORD, wintypes.HANDLE]
    saved = [(which, kernel32.GetStdHandle(which & 0xFFFFFFFF)) for which in _STD_HANDLES]
    try:
        yield
    finally:
        for which, handle in saved:
            kernel32.SetStdHandle(which & 0xFFFFFFFF, handle)


class WindowsPtyLauncher:
    def __init__(self, grace_s: float = 1.0) -> None:
        self._grace_s = grace_s

    async def start(self, spec: TerminalSpec) -> WindowsPtySession:
        """Raises ``Unavailable`` naming the program if it cannot be started."""
        scrollback = checked_scrollback(spec)
        exe = _resolve_exe(spec.argv[0], spec.env)
        env = dict(spec.env)
        # Windows programs misbehave (sockets, crypto) without SystemRoot; keys are case-blind.
        system_root = os.environ.get("SYSTEMROOT")
        if system_root and not any(key.upper() == "SYSTEMROOT" for key in env):
            env["SystemRoot"] = system_root
        # pywinpty's command line is appended to the program's name: it starts with a space.
        cmdline = " " + subprocess.list2cmdline(spec.argv[1:]) if spec.argv[1:] else None
        block = "".join(f"{key}={value}\0" for key, value in env.items()) + "\0"
        try:
            with _std_handles_kept():  # restored before the child exists, or it inherits them
                proc = cast(_WinPty, winpty.PTY(spec.cols, spec.rows))
            proc.spawn(exe, cmdline=cmdline, cwd=spec.cwd, env=block)  # type: ignore[attr-defined]
        except Exception as exc:  # pywinpty raises plain exceptions for spawn failures
            raise cannot_start(spec.argv[0], exc) from exc
        loop = asyncio.get_running_loop()
        session = WindowsPtySession(proc, scrollback, loop, self._grace_s)
        if sys.platform == "win32":  # for mypy on POSIX: this module is Windows only
            from idea.infrastructure.processes.job_windows import job_for  # noqa: PLC0415

            session.job = job_for(session.pid)  # what leaves the tree is still in the job
        return session


class WindowsPtySession:
    def __init__(
        self, proc: _WinPty, scrollback: Scrollback, loop: asyncio.AbstractEventLoop, grace_s: float
    ) -> None:
        self._proc = proc
        self._pid = proc.pid or 0
        self._loop = loop
        self._grace_s = grace_s
        self._scrollback = scrollback
        self._listeners: Listeners[str] = Listeners("output")
        self._exit_listeners: Listeners[int] = Listeners("exit")
        self._open = True
        self._exit_code: int | None = None
        self._exited: asyncio.Future[int] = loop.create_future()
        self._stopping: asyncio.Task[None] | None = None
        self.job: Job | None = None
        self._thread = threading.Thread(
            target=self._read_loop, name=f"pty-{self._pid}", daemon=True
        )
        self._thread.start()
        # The program's exit is watched on its own: a blocking read of a pseudo-console whose
        # program exited before writing anything may never return.
        self._drain_until: float | None = None
        loop.call_soon(self._poll_exit)

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def exit_code(self) -> int | None:
        return self._exit_code

    def write(self, data: str) -> None:
        if not self._open:
            raise exited()
        # A console's Enter is CR; a lone LF reaches the program as Ctrl+J, not as a line end.
        # As a POSIX terminal does (ICRNL), either one ends the line.
        data = data.replace("\r\n", "\r").replace("\n", "\r")
        try:
            self._proc.write(data)
        except Exception as exc:  # EOFError once the pty is closed
            raise exited(exc) from exc

    def resize(self, rows: int, cols: int) -> None:
        if rows < 1 or cols < 1:
            raise Invalid(f"terminal size must be at least 1x1, got {rows}x{cols}")
        if self._open:
            with contextlib.suppress(Exception):
                self._proc.set_size(cols, rows)

    def subscribe(self, listener: Callable[[str], None]) -> Unsubscribe:
        return self._listeners.add(listener)

    def on_exit(self, listener: Callable[[int], None]) -> Unsubscribe:
        if self._exit_code is not None:
            call_one(listener, self._exit_code, "exit")
            return lambda: None
        return self._exit_listeners.add(listener)

    def scrollback(self) -> str:
        return self._scrollback.snapshot().decode("utf-8", "replace")

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)

    async def stop(self) -> None:
        if self._stopping is None:
            self._stopping = self._loop.create_task(self._stop())
        await asyncio.shield(self._stopping)

    def _read_loop(self) -> None:
        """On the reader thread: pywinpty already returns whole characters."""
        while True:
            try:
                text = self._proc.read(READ_SIZE, True)
            except Exception:  # the pseudo-console is gone: the stream ends
                break
            # Not iseof(): it turns true at the program's exit, maybe before its last output
            # was read; read() raises once that is read too.
            if text and not self._post(self._on_text, text):
                return
        self._post(self._on_eof, None)

    def _post(self, fn: Callable[[_T], None], arg: _T) -> bool:
        try:
            self._loop.call_soon_threadsafe(fn, arg)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            return False
        return True

    def _on_text(self, text: str) -> None:
        self._scrollback.append(text.encode("utf-8"))
        self._listeners.call(text)

    def _on_eof(self, _: None) -> None:
        self._open = False

    def _poll_exit(self) -> None:
        """Every ``_EXIT_POLL_S`` until the program exited; then its last output (up to
        ``_DRAIN_S``) before the exit is reported."""
        if self._exit_code is not None:
            return
        if self._proc.isalive():
            self._loop.call_later(_EXIT_POLL_S, self._poll_exit)
            return
        if self._drain_until is None:
            self._drain_until = self._loop.time() + _DRAIN_S
        if self._open and self._loop.time() < self._drain_until:
            self._loop.call_later(_EXIT_POLL_S, self._poll_exit)
            return
        self._open = False
        status = self._proc.get_exitstatus()
        self._exit_code = status if status is not None else -1
        self._exited.set_result(self._exit_code)
        self._exit_listeners.call_once(self._exit_code)

    async def _stop(self) -> None:
        if self._exit_code is None:
            await kill_tree_async(self._pid, self._grace_s)
        job, self.job = self.job, None
        if job is not None:
            job.close()
        self._open = False
        try:
            async with asyncio.timeout(_EXIT_AFTER_KILL_S):
                await asyncio.shield(self._exited)
        except TimeoutError:
            log.error("pid %d survived the kill; giving up on its exit status", self._pid)
