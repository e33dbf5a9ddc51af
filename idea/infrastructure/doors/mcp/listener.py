"""The project's MCP endpoint: authenticated loopback connections from ``idea mcp-server`` bridges.

POSIX: a Unix socket in a ``0700`` folder, the socket itself ``0600``, served by an asyncio
``Protocol`` (each frame is handled in the callback that received it: no task, no stream wake-up
per message). Windows: a named pipe (``pipe_server_windows``) served through asyncio streams. Both
drive the same ``_Link``: every connection must prove it holds the key of the agent it names (a
key derived from the project secret, one per agent) before anything is served, and frames stay
small until then; then each ``rpc`` frame goes to the connection's handler, synchronously. A peer
that misbehaves or leaves affects nobody else; ``stop`` ends every connection, waits for their
handlers to close and removes the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import sys
from collections.abc import Callable
from typing import Protocol

from idea.application.tasks import TaskSet
from idea.domain.errors import Conflict, Unavailable
from idea.endpoint import loopback
from idea.endpoint.naming import ensure_endpoint_dir

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT_S = 5.0
STOP_TIMEOUT_S = 5.0
Send = Callable[[bytes], None]


class ConnectionHandler(Protocol):
    def receive(self, message: bytes) -> None:
        """One JSON-RPC message from the client; answers through ``send`` (at once, or later
        from a task of its own). Never raises, never blocks."""
        ...

    async def close(self) -> None:
        """The client is gone: cancel whatever it had in flight."""
        ...


# (requester, send) -> handler; ``send`` queues one JSON-RPC message for the client, never blocks.
HandlerFactory = Callable[[str, Send], ConnectionHandler]


class PipeServerLike(Protocol):
    def close(self) -> None: ...


class _Output(Protocol):
    """Where a link writes frames: a transport, or a stream writer (Windows)."""

    def write(self, data: bytes) -> None: ...

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
        self._links: set[_Link] = set()
        self._closing = TaskSet("MCP endpoint")  # handlers of ended links, closing
        self.accepted = 0
        self.rejected = 0

    async def start(self) -> None:
        """Raises ``Conflict`` if another running IdeA already serves this project."""
        if sys.platform == "win32":
            from idea.infrastructure.doors.mcp.pipe_windows import PipeServer  # noqa: PLC0415

            self._pipe = PipeServer(self.endpoint, self.serve_stream)
            try:
                self._pipe.start()
            except OSError as exc:
                raise _already_open(str(exc)) from exc
            return
        try:
            ensure_endpoint_dir(self.endpoint)
        except PermissionError as exc:
            raise Unavailable(f"MCP endpoint: {exc}") from exc
        if os.path.exists(self.endpoint):
            if _someone_listens(self.endpoint):
                raise _already_open(f"its MCP endpoint {self.endpoint} answers")
            os.unlink(self.endpoint)  # left by a crashed run
        loop = asyncio.get_running_loop()
        self._server = await loop.create_unix_server(
            lambda: _FrameProtocol(self), path=self.endpoint
        )
        os.chmod(self.endpoint, 0o600)

    async def stop(self) -> None:
        if self._pipe is not None:
            self._pipe.close()
        server, self._server = self._server, None
        if server is not None:
            server.close()
        links = list(self._links)
        readers = [link.serving for link in links if link.serving is not None]
        for link in links:
            link.close()
        # Each link ended: its handler closes in a task of its own (cancelling its calls).
        pending = [*self._closing, *readers]
        if pending:
            _, late = await asyncio.wait(pending, timeout=STOP_TIMEOUT_S)
            for task in late:
                task.cancel()
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), timeout=STOP_TIMEOUT_S)
        if sys.platform != "win32":
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.endpoint)

    async def serve_stream(self, reader: asyncio.StreamReader, output: _StreamOutput) -> None:
        """Serve one connection given as streams (the Windows pipe server's instances)."""
        writes = _StreamWriterOutput(output)
        link = _Link(self, writes)
        link.serving = asyncio.current_task()
        try:
            while not link.ended:
                header = await reader.readexactly(loopback.HEADER_BYTES)
                length = loopback.frame_length(header, link.frame_limit)
                link.frame(await reader.readexactly(length))
                await writes.drained()  # a client that does not read is not read either
        except (loopback.ProtocolError, OSError, asyncio.IncompleteReadError) as exc:
            link.lost(exc)
        except Exception:  # as in _FrameProtocol.data_received
            log.exception("MCP endpoint: connection dropped")
        finally:
            link.serving = None
            link.close()

    # -- for the links ----------------------------------------------------------------------

    def _opened(self, link: _Link) -> None:
        self._links.add(link)

    def _ended(self, link: _Link, handler: ConnectionHandler | None, welcomed: bool) -> None:
        self._links.discard(link)
        if not welcomed:
            self.rejected += 1
        if handler is not None:
            self._closing.spawn(handler.close(), name="mcp connection close")

    def _welcome(self, hello: dict[str, object]) -> tuple[str, str] | str:
        """(code, message) of a reject, or the requester's agent id."""
        if hello.get("t") != "hello" or hello.get("v") != loopback.VERSION:
            return "INVALID", "expected a hello of protocol version 1"
        if hello.get("project") != self._project_id:
            return "NOT_FOUND", "this endpoint serves another project"
        requester = hello.get("requester")
        if not isinstance(requester, str) or not self._is_agent(requester):
            return "NOT_FOUND", f"{requester!r} is not an agent of the project"
        self.accepted += 1
        return requester


class _Link:
    """One connection, sans I/O but for ``output``: frames in (``frame``), frames out.

    States: proof expected → hello expected → serving → ended. Nothing is served before the
    peer proved it knows the key (the app's own proof is sent only then) and named an agent.
    """

    def __init__(self, listener: McpListener, output: _Output) -> None:
        self._listener = listener
        self._output = output
        self._nonce = secrets.token_bytes(loopback.NONCE_BYTES)
        self._state = "proof"
        self._agent: str | None = None
        self._handler: ConnectionHandler | None = None
        self.serving: asyncio.Task[None] | None = None  # the stream reader's task (Windows)
        self.ended = False
        self._timer = asyncio.get_running_loop().call_later(
            HANDSHAKE_TIMEOUT_S, self._handshake_timeout
        )
        listener._opened(self)
        output.write(loopback.encode_frame(self._nonce))

    @property
    def frame_limit(self) -> int:
        """The largest frame the peer may send now: small until it is welcomed."""
        return loopback.MAX_FRAME if self._handler is not None else loopback.PRE_AUTH_MAX_FRAME

    def frame(self, payload: bytes) -> None:
        """One frame from the peer; raises ``loopback.ProtocolError``."""
        handler = self._handler
        if handler is not None:
            data = loopback.rpc_data(payload)
            if data is None:
                message = loopback.unpack(payload)
                data = message.get("data") if message["t"] == "rpc" else None
            if isinstance(data, bytes):
                handler.receive(data)
        elif self._state == "proof":
            self._prove(payload)
        elif self._state == "hello":
            self._hello(loopback.unpack(payload))

    def _prove(self, answer: bytes) -> None:
        nonce_bridge, proof, agent = loopback.read_bridge_proof(answer)
        key = loopback.agent_key(self._listener._key, agent)
        expected = loopback.bridge_digest(key, self._nonce, nonce_bridge, agent)
        if not loopback.proofs_match(expected, proof):
            log.warning("MCP endpoint: a client failed authentication")
            self.close()  # no proof of ours: the peer learns nothing
            return
        self._state = "hello"
        self._agent = agent  # what the key proves; the hello must name the same agent
        app_proof = loopback.app_proof(key, self._nonce, nonce_bridge)
        self._output.write(loopback.encode_frame(app_proof))

    def _hello(self, hello: dict[str, object]) -> None:
        verdict = self._listener._welcome(hello)
        if isinstance(verdict, str) and verdict != self._agent:
            verdict = ("FORBIDDEN", "the hello names another agent than the key proves")
        if isinstance(verdict, tuple):
            self._output.write(loopback.encode_frame(loopback.reject(*verdict)))
            self.close()
            return
        self._timer.cancel()
        self._state = "serving"
        self._output.write(loopback.encode_frame(loopback.welcome()))
        self._handler = self._listener._factory(verdict, self._send)

    def _send(self, message: bytes) -> None:
        if not self.ended:
            self._output.write(loopback.rpc_frame(message))

    def _handshake_timeout(self) -> None:
        if self._handler is None:
            log.info("MCP endpoint: connection dropped: no handshake in time")
            self.close()

    def lost(self, exc: BaseException | None) -> None:
        """The peer went away or broke the protocol."""
        if exc is not None and self._handler is None:
            log.info("MCP endpoint: connection dropped: %s", exc)
        self.close()

    def close(self) -> None:
        """End the link (idempotent): written frames are still delivered, then the connection
        closes; the handler is closed in a task."""
        if self.ended:
            return
        self.ended = True
        self._timer.cancel()
        self._output.close()
        self._listener._ended(self, self._handler, self._state == "serving")


class _FrameProtocol(asyncio.Protocol):
    """A Unix-socket connection: bytes → frames → its ``_Link``, in the loop's callbacks."""

    def __init__(self, listener: McpListener) -> None:
        self._listener = listener
        self._decoder = loopback.FrameDecoder(loopback.PRE_AUTH_MAX_FRAME)
        self._link: _Link | None = None
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._link = _Link(self._listener, transport)

    def data_received(self, data: bytes) -> None:
        link = self._link
        if link is None or link.ended:
            return
        try:
            for frame in self._decoder.feed(data):
                link.frame(frame)
                if link.ended:
                    return
                self._decoder.limit = link.frame_limit
        except loopback.ProtocolError as exc:
            link.lost(exc)
        except Exception:  # a bug, or a store failing under is_agent: this connection only
            log.exception("MCP endpoint: connection dropped")
            link.lost(None)

    def eof_received(self) -> bool:
        return False  # close: the bridge sends nothing more, it is leaving

    def connection_lost(self, exc: Exception | None) -> None:
        if self._link is not None:
            self._link.lost(exc)

    # A bridge that does not read: stop reading its requests until it has caught up.
    def pause_writing(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.pause_reading()

    def resume_writing(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.resume_reading()


class _StreamOutput(Protocol):
    """What ``serve_stream`` needs of a writer (``asyncio.StreamWriter``, the pipe's writer)."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...


class _StreamWriterOutput:
    """Synchronous writes over a stream writer that may only write on ``drain`` (the pipe's): one
    task drains what was written, in order; ``close`` closes once everything was drained."""

    def __init__(self, writer: _StreamOutput) -> None:
        self._writer = writer
        self._flusher: asyncio.Task[None] | None = None
        self._writes = 0
        self._closing = False

    def write(self, data: bytes) -> None:
        if self._closing:
            return
        self._writer.write(data)
        self._writes += 1
        if self._flusher is None:
            self._flusher = asyncio.get_running_loop().create_task(self._flush())

    def close(self) -> None:
        self._closing = True
        if self._flusher is None:
            self._writer.close()

    async def drained(self) -> None:
        """Wait until what was written is out (or the writer below its high-water mark)."""
        if self._flusher is not None:
            await asyncio.shield(self._flusher)

    async def _flush(self) -> None:
        try:
            while True:
                written = self._writes
                await self._writer.drain()
                if self._writes == written:
                    break  # nothing was written while draining
        except (ConnectionError, OSError):
            pass  # the peer is gone: its link sees the end and closes
        finally:
            self._flusher = None
            if self._closing:
                self._writer.close()


def _already_open(how: str) -> Conflict:
    """The endpoint is taken (a pipe or a socket that answers): another IdeA serves it."""
    return Conflict(f"this project is already open in another IdeA ({how})")


def _someone_listens(path: str) -> bool:
    if sys.platform == "win32":  # Unix sockets: POSIX only (mypy --platform win32 knows it)
        return False
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except OSError:  # refused, or no socket at all: nobody listens
        return False
    else:
        return True
    finally:
        probe.close()
