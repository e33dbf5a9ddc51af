"""One ``codex app-server`` process, spoken to in JSON-RPC over its stdio: the client the Codex
session drives its thread with (``session.py``).

Invariant: every request waits for its own answer and nothing else: the answer, ``RpcRefused``
(the server's error), or ``AgentFailed`` when the process stops reading or exits; everything else
the server says (notifications, its own requests, an overlong line) goes to ``on_message`` in
order. Once ``forget`` is called, the process's output and exit are no news to anyone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence

import psutil

from idea.domain.errors import AgentFailed, IdeaError, Unavailable
from idea.domain.json_types import JsonObject
from idea.infrastructure.clis.codex.stream import (
    CodexMessage,
    CodexStream,
    RpcResponse,
    encode_notification,
    encode_request,
)
from idea.infrastructure.processes.cli_process import CliProcess
from idea.infrastructure.processes.tree import ProcessRecord, is_alive, kill_tree_async

CLOSE_GRACE_S = 3.0


class RpcRefused(Exception):
    """The app-server answered one of our requests with an error."""


class AppServer:
    def __init__(
        self,
        name: str,
        on_message: Callable[[CodexMessage], None],
        on_exit: Callable[[AgentFailed], None],
    ) -> None:
        self._name = name
        self._on_message = on_message
        self._on_exit = on_exit
        self._proc: CliProcess | None = None
        self._forgotten = False
        self._stream = CodexStream()
        self._pending: dict[int, asyncio.Future[JsonObject]] = {}
        self._next_id = 0

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        *,
        name: str,
        cwd: str,
        env: Mapping[str, str],
        on_message: Callable[[CodexMessage], None],
        on_exit: Callable[[AgentFailed], None],
    ) -> AppServer:
        """Spawn the app-server; ``on_exit`` gets the ``AgentFailed`` its exit fails the
        session's turn with. Raises ``Unavailable`` if it cannot start."""
        server = cls(name, on_message, on_exit)
        server._proc = await CliProcess.start(
            argv, cwd=cwd, env=env, on_stdout=server._on_stdout, on_exit=server._exited
        )
        return server

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.exit_code is None

    def pids(self) -> list[int]:
        """The app-server's pid and its children's (its MCP servers); empty once it exited."""
        proc = self._proc
        if proc is None or proc.exit_code is not None:
            return []
        pids = [proc.pid]
        with contextlib.suppress(psutil.Error):
            pids += [child.pid for child in psutil.Process(proc.pid).children(recursive=True)]
        return pids

    def stderr_tail(self) -> str:
        """``; stderr: <its last 2000 characters>``, or nothing when it printed nothing."""
        tail = self._proc.stderr_tail()[-2000:] if self._proc is not None else ""
        return f"; stderr: {tail}" if tail else ""

    async def request(self, method: str, params: JsonObject) -> JsonObject:
        """Send a request and wait for its result; raises ``RpcRefused`` or ``AgentFailed``."""
        proc = self._proc
        if proc is None or proc.exit_code is not None:
            raise AgentFailed(f"{self._name}: codex is not running")
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[JsonObject] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            try:
                await proc.write(encode_request(request_id, method, params))
            except Unavailable as exc:
                raise AgentFailed(f"{self._name}: codex stopped reading its input") from exc
            return await future
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str) -> None:
        """Send a notification; raises ``Unavailable`` when the process stopped reading."""
        if self._proc is not None:
            await self._proc.write(encode_notification(method))

    async def write(self, data: bytes) -> None:
        """Write ``data`` if the process still reads (an answer to one of its requests)."""
        proc = self._proc
        if proc is not None:
            with contextlib.suppress(Unavailable):
                await proc.write(data)

    def fail_pending(self, error: Exception) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)

    def forget(self) -> None:
        """From now on, what the process says and its exit are no news."""
        self._forgotten = True

    async def kill(self) -> None:
        if self._proc is not None:
            await self._proc.kill()

    async def close(self) -> None:
        """End the process and what it started: EOF first (Codex then stops its MCP servers
        itself), killed after ``CLOSE_GRACE_S``, and what is left of its tree killed too."""
        proc = self._proc
        if proc is None or proc.exit_code is not None:
            return
        # Recorded first: once the app-server exits, its children are re-parented out of reach.
        tree = [record for pid in self.pids() if (record := _record(pid)) is not None]
        proc.close_stdin()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), CLOSE_GRACE_S)
        await proc.kill()
        for record in tree:
            if is_alive(record):
                await kill_tree_async(record.pid)

    def _on_stdout(self, data: bytes) -> None:
        if not self._forgotten:
            for message in self._stream.feed(data):
                self._dispatch(message)

    def _exited(self, code: int) -> None:
        if self._forgotten:
            return
        for message in self._stream.flush():
            self._dispatch(message)
        error = AgentFailed(f"codex exited with code {code}{self.stderr_tail()}")
        self.fail_pending(error)
        self._on_exit(error)

    def _dispatch(self, message: CodexMessage) -> None:
        if not isinstance(message, RpcResponse):
            self._on_message(message)
            return
        rid = message.request_id
        future = self._pending.get(rid) if isinstance(rid, int) else None
        if future is not None and not future.done():
            if message.error is None:
                future.set_result(message.result)
            else:
                future.set_exception(RpcRefused(message.error))


def _record(pid: int) -> ProcessRecord | None:
    with contextlib.suppress(IdeaError):
        return ProcessRecord.of(pid)
    return None
