"""The project's MCP endpoint: authenticated loopback connections from ``idea mcp-server`` bridges.

POSIX: a Unix socket in a ``0700`` folder, the socket itself ``0600``. Windows: a named pipe
(``mcp_listener_windows``). Every connection must prove it holds the project secret and name an
agent of the project before anything is served; then one serve task per connection relays
JSON-RPC messages to its handler. A peer that misbehaves or leaves affects nobody else; ``stop``
ends every connection and removes the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import Protocol

from idea.domain.errors import Conflict
from idea.protocol import loopback
from idea.protocol.endpoint import ensure_endpoint_dir

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT_S = 5.0
Send = Callable[[bytes], Awaitable[None]]


class ConnectionHandler(Protocol):
    async def handle(self, message: bytes) -> None:
        """One JSON-RPC message from the client; never raises."""
        ...

    async def close(self) -> None:
        """The client is gone: cancel whatever it had in flight."""
        ...


HandlerFactory = Callable[[str, Send], ConnectionHandler]


class PipeServerLike(Protocol):
    def close(self) -> None: ...


class McpListener:
    def __init__(
        self,
        endpoint: str,
        key: bytes,
        project_id: str,
        is_agent: Callable[[str], bool],
        handler_factory: HandlerFactory,
    ) -> None:
        self.endpoint = endpoint
        self._key = key
        self._project_id = project_id
        self._is_agent = is_agent
        self._factory = handler_factory
        self._server: asyncio.AbstractServer | None = None
        self._pipe: PipeServerLike | None = None
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
        self.accepted = 0
        self.rejected = 0

    async def start(self) -> None:
        """Raises ``Conflict`` if another running IdeA already serves this project."""
        if sys.platform == "win32":
            from idea.infrastructure.pipe_server_windows import PipeServer  # noqa: PLC0415

            self._pipe = PipeServer(self.endpoint, self._on_client)
            try:
                self._pipe.start()
            except OSError as exc:
                raise Conflict(f"this project is already open in another IdeA ({exc})") from exc
            return
        ensure_endpoint_dir(self.endpoint)
        if os.path.exists(self.endpoint):
            if _someone_listens(self.endpoint):
                raise Conflict(
                    "this project is already open in another IdeA (its MCP endpoint "
                    f"{self.endpoint} answers)"
                )
            os.unlink(self.endpoint)  # left by a crashed run
        self._server = await asyncio.start_unix_server(self._on_client, path=self.endpoint)
        os.chmod(self.endpoint, 0o600)

    async def stop(self) -> None:
        if self._pipe is not None:
            self._pipe.close()
        server, self._server = self._server, None
        if server is not None:
            server.close()
        # Closing the streams ends each serve task through its own path (handler closed, ...);
        # cancelling the tasks instead would make asyncio's stream callback log an error.
        for writer in list(self._connections.values()):
            writer.close()
        pending = list(self._connections)
        if pending:
            _, late = await asyncio.wait(pending, timeout=5)
            for task in late:
                task.cancel()
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), timeout=5)
        if sys.platform != "win32":
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.endpoint)

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            requester = await self._handshake(reader, writer)
            if requester is not None:
                self.accepted += 1
                await self._serve(requester, reader, writer)
            else:
                self.rejected += 1
        except (loopback.ProtocolError, OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
            self.rejected += 1
            log.info("MCP endpoint: connection dropped: %s", exc)
        finally:
            self._connections.pop(task, None)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _handshake(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> str | None:
        """The requester's agent id once proven and known, else None (the peer was told why)."""
        async with asyncio.timeout(HANDSHAKE_TIMEOUT_S):
            nonce_app = secrets.token_bytes(loopback.NONCE_BYTES)
            writer.write(loopback.encode_frame(nonce_app))
            answer = await _read_frame(reader)
            nonce_bridge, proof = answer[: loopback.NONCE_BYTES], answer[loopback.NONCE_BYTES :]
            expected = loopback.bridge_proof(self._key, nonce_app, nonce_bridge)
            if len(nonce_bridge) != loopback.NONCE_BYTES or not loopback.proofs_match(
                expected, proof
            ):
                log.warning("MCP endpoint: a client failed authentication")
                return None  # no proof of ours: the peer learns nothing
            writer.write(
                loopback.encode_frame(loopback.app_proof(self._key, nonce_app, nonce_bridge))
            )
            hello = loopback.unpack(await _read_frame(reader))
        if hello.get("t") != "hello" or hello.get("v") != loopback.VERSION:
            await self._reject(writer, "INVALID", "expected a hello of protocol version 1")
            return None
        if hello.get("project") != self._project_id:
            await self._reject(writer, "NOT_FOUND", "this endpoint serves another project")
            return None
        requester = hello.get("requester")
        if not isinstance(requester, str) or not self._is_agent(requester):
            await self._reject(writer, "NOT_FOUND", f"{requester!r} is not an agent of the project")
            return None
        writer.write(loopback.encode_frame(loopback.welcome()))
        await writer.drain()
        return requester

    async def _reject(self, writer: asyncio.StreamWriter, code: str, message: str) -> None:
        writer.write(loopback.encode_frame(loopback.reject(code, message)))
        with contextlib.suppress(OSError):
            await writer.drain()

    async def _serve(
        self, requester: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        async def send(message: bytes) -> None:
            if writer.is_closing():
                return
            writer.write(loopback.encode_frame(loopback.rpc(message)))
            with contextlib.suppress(ConnectionError):
                await writer.drain()

        handler = self._factory(requester, send)
        try:
            while True:
                try:
                    frame = await _read_frame(reader)
                except asyncio.IncompleteReadError:
                    return  # the bridge went away
                message = loopback.unpack(frame)
                if message.get("t") == "rpc" and isinstance(message.get("data"), bytes):
                    await handler.handle(message["data"])
        finally:
            await handler.close()


async def _read_frame(reader: asyncio.StreamReader) -> bytes:
    header = await reader.readexactly(loopback.HEADER_BYTES)
    return await reader.readexactly(loopback.frame_length(header))


def _someone_listens(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except OSError:
        return False
    else:
        return True
    finally:
        probe.close()
