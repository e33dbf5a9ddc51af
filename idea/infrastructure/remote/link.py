"""IdeA's end of the link to one host's ``idea host`` (DESIGN.md §16).

Requests wait across a dropped link: it reconnects with backoff, and what either side had not
acknowledged is sent again, so a turn that ends while the link is down is answered once it is
back. If the link does not come back within the host's grace period, or comes back to a host
that restarted (its agents gone), every pending request fails with ``HostLinkLost`` and every
session learns it ended: nothing waits forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from idea import __version__
from idea.domain.errors import HostLinkLost, IdeaError, Unavailable
from idea.infrastructure.remote import wire
from idea.infrastructure.remote.reliable import Inbox, Outbox
from idea.infrastructure.remote.wire import Message

log = logging.getLogger(__name__)

BACKOFF_S = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
HANDSHAKE_TIMEOUT_S = 30.0
CLOSE_TIMEOUT_S = 15.0


class HostTransport(Protocol):
    """A byte stream to the host's ``idea host`` (an SSH channel; a subprocess in tests)."""

    reader: wire.ByteReader
    writer: wire.ByteWriter

    async def forward_mcp(self, host_socket: str) -> None:
        """Make ``host_socket`` on the host reach the project's MCP endpoint here."""
        ...

    async def close(self) -> None: ...


Connector = Callable[[], Awaitable[HostTransport]]
PushListener = Callable[[Message], None]


class LinkState:
    UP = "up"
    RECONNECTING = "reconnecting"
    LOST = "lost"
    CLOSED = "closed"


class HostLink:
    def __init__(
        self,
        name: str,
        connect: Connector,
        project_id: str,
        grace_s: float = 300.0,
        tool_timeout_s: float = 600.0,
    ) -> None:
        self.name = name
        self._tool_timeout_s = tool_timeout_s
        self._connect = connect
        self._project = project_id
        self._grace_s = grace_s
        self.state = LinkState.CLOSED
        self._transport: HostTransport | None = None
        self._instance: str | None = None
        self._outbox = Outbox()
        self._inbox = Inbox()
        self._pending: dict[str, asyncio.Future[Any]] = {}
        self._by_session: dict[str, PushListener] = {}
        self._on_state: list[Callable[[str], None]] = []
        self._on_welcome: list[Callable[[Message], None]] = []
        self._reader: asyncio.Task[None] | None = None
        self._closing = False

    # -- life -------------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect and attach; raises what connecting raises (typed: the host, its key, …)."""
        welcome = await self._attach()
        self._instance = welcome["instance"]
        self._reader = asyncio.create_task(self._read_forever(), name=f"host-link-{self.name}")

    async def close(self) -> None:
        """Stop the host's agents and end the link; idempotent."""
        if self._closing:
            return
        self._closing = True
        if self.state == LinkState.UP:
            with contextlib.suppress(IdeaError, TimeoutError):
                await asyncio.wait_for(self._request_now({"t": "close"}), CLOSE_TIMEOUT_S)
        await self._stop_reading()
        if self.state == LinkState.RECONNECTING:
            await self._close_after_one_more_attach()
        await self._drop_transport()
        self._fail_all(HostLinkLost(f"the link to host {self.name} was closed"))
        self._set_state(LinkState.CLOSED)

    async def _stop_reading(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
            self._reader = None

    async def _close_after_one_more_attach(self) -> None:
        """The link is down as the project closes: attach once more to tell the host to stop
        its agents (else they would wait out the grace period there)."""
        try:
            await asyncio.wait_for(self._attach(), CLOSE_TIMEOUT_S)
        except Exception as exc:
            log.info("host %s: not reached to close (%s); its grace period ends it", self.name, exc)
            return
        transport = self._transport
        if transport is None:
            return
        rid = uuid.uuid4().hex
        answered: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = answered
        self._write(self._outbox.number({"t": "close", "rid": rid}))

        async def until_answered() -> None:  # the reader has stopped: read here
            while not answered.done():
                self._take(await wire.read_message(transport.reader))

        with contextlib.suppress(Exception):
            await asyncio.wait_for(until_answered(), CLOSE_TIMEOUT_S)
        self._pending.pop(rid, None)

    def on_state(self, listener: Callable[[str], None]) -> None:
        self._on_state.append(listener)

    def on_welcome(self, listener: Callable[[Message], None]) -> None:
        """Each re-attach's welcome (sessions' state on the host)."""
        self._on_welcome.append(listener)

    def route(self, sid: str, listener: PushListener) -> Callable[[], None]:
        self._by_session[sid] = listener
        return lambda: self._by_session.pop(sid, None) and None

    # -- requests ---------------------------------------------------------------------------

    async def request(self, message: Message) -> Any:
        """Send ``message`` (delivered once, whatever the link does) and wait for its answer."""
        if self._closing or self.state == LinkState.LOST:
            raise HostLinkLost(f"the link to host {self.name} is lost")
        return await self._request_now(message)

    async def _request_now(self, message: Message) -> Any:
        rid = uuid.uuid4().hex
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        try:
            self._write(self._outbox.number({**message, "rid": rid}))
            return await future
        finally:
            self._pending.pop(rid, None)

    def post(self, message: Message) -> None:
        """Send ``message`` (delivered once) without waiting for an answer."""
        if self._closing or self.state == LinkState.LOST:
            raise HostLinkLost(f"the link to host {self.name} is lost")
        self._write(self._outbox.number(message))

    def _write(self, message: Message) -> None:
        transport = self._transport
        if transport is None or self.state != LinkState.UP:
            return  # kept in the outbox: sent on re-attach
        try:
            transport.writer.write(wire.encode(message))
        except Exception as exc:
            log.debug("host %s: write failed (%s); kept for the reconnect", self.name, exc)

    # -- reading, reconnecting ----------------------------------------------------------------

    async def _attach(self) -> Message:
        transport = await self._connect()
        try:
            await wire.send(
                transport.writer,
                {
                    "t": "hello",
                    "v": wire.VERSION,
                    "version": __version__,
                    "project": self._project,
                    "grace_s": self._grace_s,
                    "tool_timeout_s": self._tool_timeout_s,
                    "seen": self._inbox.seen,
                },
            )
            welcome = await asyncio.wait_for(
                wire.read_message(transport.reader), HANDSHAKE_TIMEOUT_S
            )
            if welcome.get("t") == "refused":
                raise Unavailable(f"host {self.name} refused the link: {welcome.get('message')}")
            if welcome.get("t") != "welcome":
                raise Unavailable(f"host {self.name} did not answer as idea host does")
            wire.field(welcome, "instance", str)
            await transport.forward_mcp(wire.field(welcome, "mcp_socket", str))
        except BaseException:
            await transport.close()
            raise
        self._transport = transport
        self._set_state(LinkState.UP)
        self._outbox.acknowledged(wire.optional(welcome, "seen", int) or 0)
        for message in self._outbox.resend_after(wire.optional(welcome, "seen", int) or 0):
            self._write(message)
        return welcome

    async def _read_forever(self) -> None:
        while not self._closing:
            transport = self._transport
            assert transport is not None
            try:
                while True:
                    self._take(await wire.read_message(transport.reader))
            except Exception as exc:
                if self._closing:
                    return
                log.warning("host %s: link dropped (%s)", self.name, exc)
            await self._drop_transport()
            if not await self._reconnect():
                return

    async def _reconnect(self) -> bool:
        self._set_state(LinkState.RECONNECTING)
        deadline = time.monotonic() + self._grace_s
        attempt = 0
        while not self._closing and time.monotonic() < deadline:
            await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
            attempt += 1
            try:
                welcome = await self._attach()
            except Exception as exc:
                log.info("host %s: reconnect %d failed: %s", self.name, attempt, exc)
                continue
            if welcome["instance"] != self._instance:
                self._instance = welcome["instance"]
                self._host_forgot()
            for listener in list(self._on_welcome):
                listener(welcome)
            return True
        self._set_state(LinkState.LOST)
        self._fail_all(HostLinkLost(f"host {self.name} did not come back in {self._grace_s:.0f}s"))
        return False

    def _host_forgot(self) -> None:
        """The daemon restarted: what it ran is gone, and so is what it was asked."""
        self._outbox = Outbox()
        self._inbox = Inbox()
        self._fail_all(HostLinkLost(f"host {self.name} restarted: its agents were stopped"))

    def _take(self, message: Message) -> None:
        kind = message.get("t")
        if kind == "ack":
            self._outbox.acknowledged(wire.optional(message, "seen", int) or 0)
            return
        if not self._inbox.fresh(message):
            return
        if "seq" in message:
            self._write({"t": "ack", "seen": self._inbox.seen})
        if kind == "r":
            future = self._pending.get(str(message.get("rid")))
            if future is None or future.done():
                return
            if message.get("ok") is True:
                future.set_result(message.get("value"))
            else:
                error = message.get("error")
                future.set_exception(wire.error_from_wire(error if isinstance(error, dict) else {}))
            return
        sid = message.get("sid")
        listener = self._by_session.get(sid) if isinstance(sid, str) else None
        if listener is not None:
            listener(message)

    def _fail_all(self, error: IdeaError) -> None:
        for future in list(self._pending.values()):
            if not future.done():
                future.set_exception(error)
        for listener in list(self._by_session.values()):
            listener({"t": "lost", "message": error.message})

    async def _drop_transport(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None:
            with contextlib.suppress(Exception):
                await transport.close()

    def _set_state(self, state: str) -> None:
        if state == self.state:
            return
        self.state = state
        for listener in list(self._on_state):
            listener(state)
