"""A CLI child process with piped stdio, driven from the asyncio loop.

Stdout is handed over chunk by chunk (parsers are sans-I/O); stderr is kept as a bounded tail for
error messages. ``on_exit`` fires once, after stdout is drained and the process reaped. ``kill``
takes the whole process tree down.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from idea.application.tasks import TaskSet
from idea.domain.errors import Unavailable
from idea.infrastructure.processes.executables import start_errors
from idea.infrastructure.processes.subreaper import register_waited, release_waited
from idea.infrastructure.processes.tree import SESSION_TAG_VAR, kill_tagged, kill_tree_async

log = logging.getLogger(__name__)

_CHUNK = 64 * 1024
_STDERR_TAIL = 16 * 1024


class Job(Protocol):
    """Windows: the session's job object (``job_windows.SessionJob``); closing it kills all."""

    def close(self) -> None: ...


class CliProcess:
    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        name: str,
        on_stdout: Callable[[bytes], None],
        on_exit: Callable[[int], None],
        tag: str | None = None,
    ) -> None:
        self._proc = proc
        self._tag = tag
        register_waited(proc.pid)  # asyncio reaps it, not the subreaper
        self._job: Job | None = None
        self._name = name
        self._on_stdout = on_stdout
        self._on_exit = on_exit
        self._stderr = bytearray()
        self._exit_code: int | None = None
        self._exited = asyncio.Event()
        self._pumps = TaskSet(name)  # ended by ``_wait`` once the process has exited
        self._pumps.spawn(self._pump_stdout(), name=f"{name}-stdout")
        self._pumps.spawn(self._pump_stderr(), name=f"{name}-stderr")
        self._waiter = asyncio.create_task(self._wait(), name=f"{name}-wait")

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        *,
        cwd: str,
        env: Mapping[str, str],
        on_stdout: Callable[[bytes], None],
        on_exit: Callable[[int], None],
        stdin: bool = True,
    ) -> CliProcess:
        """Raises ``Unavailable`` naming the program if it cannot be started."""
        kwargs: dict[str, object] = {}
        if sys.platform == "win32":
            kwargs["creationflags"] = subprocess.CREATE_NO_WINDOW
        else:
            # Its own session: the tree can be signalled as a group, and a Ctrl+C in the
            # terminal that started IdeA does not reach the agents.
            kwargs["start_new_session"] = True
        with start_errors(argv[0]):
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                env=dict(env),
                stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                **kwargs,  # type: ignore[arg-type]
            )
        tag = env.get(SESSION_TAG_VAR)
        process = cls(proc, os.path.basename(argv[0]), on_stdout, on_exit, tag)
        if sys.platform == "win32":  # what leaves the tree is still in the job
            from idea.infrastructure.processes.job_windows import job_for  # noqa: PLC0415

            process._job = job_for(proc.pid)
        return process

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def exit_code(self) -> int | None:
        return self._exit_code

    def stderr_tail(self) -> str:
        return self._stderr.decode("utf-8", errors="replace").strip()

    async def write(self, data: bytes) -> None:
        """Raises ``Unavailable`` if the process no longer reads its input."""
        stdin = self._proc.stdin
        if stdin is None or stdin.is_closing():
            raise Unavailable(f"{self._name} does not accept input any more")
        try:
            stdin.write(data)
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise Unavailable(f"{self._name} closed its input") from exc

    def close_stdin(self) -> None:
        stdin = self._proc.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()

    async def wait(self) -> int:
        await self._exited.wait()
        assert self._exit_code is not None
        return self._exit_code

    async def kill(self, grace_s: float = 1.0) -> int:
        """Kill the whole tree, what escaped it included (idempotent); the exit code."""
        if self._exit_code is None:
            await kill_tree_async(self._proc.pid, grace_s, self._tag)
        elif self._tag:  # gone (its pid may be reused): what it left behind carries the tag
            await asyncio.to_thread(kill_tagged, SESSION_TAG_VAR, self._tag, grace_s)
        job, self._job = self._job, None
        if job is not None:
            job.close()
        return await self.wait()

    async def _pump_stdout(self) -> None:
        stream = self._proc.stdout
        assert stream is not None
        while chunk := await stream.read(_CHUNK):
            try:
                self._on_stdout(chunk)
            except Exception:
                log.exception("%s: stdout handler failed", self._name)

    async def _pump_stderr(self) -> None:
        stream = self._proc.stderr
        assert stream is not None
        while chunk := await stream.read(_CHUNK):
            self._stderr += chunk
            del self._stderr[:-_STDERR_TAIL]

    async def _wait(self) -> None:
        try:
            code = await self._proc.wait()
        finally:
            release_waited(self._proc.pid)
        # Output written just before exit is still in the pipe: drain it before reporting.
        await self._pumps.wait(timeout=5)
        self._exit_code = code
        self._exited.set()
        try:
            self._on_exit(code)
        except Exception:
            log.exception("%s: exit handler failed", self._name)
