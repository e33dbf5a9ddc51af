"""What one UI client is sent: JSON messages and coalesced terminal output, in one order.

Invariant: items leave in the order they were pushed (an attach's reply before that terminal's
output, a terminal's last output before its exit event); each attached terminal yields at most one
frame per ``interval_s`` unless it holds ``flush_bytes`` of output (then its frame is due at once,
so the interval coalesces small chunks but never caps throughput); pending terminal output never
exceeds ``output_limit_bytes``. Past that
bound the pending output is dropped and replaced by ONE re-sync per terminal (its scrollback,
snapshotted when the frame is taken), so a client that does not read costs bounded memory and
never slows a PTY reader or another client. Queued JSON past ``message_limit_bytes`` marks the
outbox ``overflowed`` (the server then closes that client). ``ClientOutbox`` does no I/O and reads
no clock: the caller passes ``now`` and sends what ``next`` returns; ``OutboxPump`` is that caller,
and ``ClientStreams`` ties terminal sessions to one client's outbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from idea.application.session_ports import TerminalSession, Unsubscribe

OUTPUT = 1  # binary frame kind: terminal output to append
RESYNC = 2  # binary frame kind: reset the terminal, then write this text (its scrollback)

DEFAULT_INTERVAL_S = 0.008
DEFAULT_OUTPUT_LIMIT_BYTES = 512 * 1024
# A quarter of the bound: a client that keeps up is sent big frames long before the bound, so
# only one that really does not read (a send that blocks) ever gets a re-sync.
DEFAULT_FLUSH_BYTES = DEFAULT_OUTPUT_LIMIT_BYTES // 4
DEFAULT_MESSAGE_LIMIT_BYTES = 8 * 1024 * 1024
_ID_LENGTH = struct.Struct(">H")


@dataclass(frozen=True, slots=True)
class Message:
    """A JSON text frame (already serialised)."""

    text: str


@dataclass(frozen=True, slots=True)
class Output:
    attach_id: str
    text: str


@dataclass(frozen=True, slots=True)
class Resync:
    """The client missed output: it resets the terminal and writes ``text`` (the scrollback)."""

    attach_id: str
    text: str


Item = Message | Output | Resync


def encode_frame(item: Output | Resync) -> bytes:
    """Binary frame: kind (1 byte), attach id length (2 bytes, big endian), attach id, text;
    ids and text are UTF-8."""
    kind = OUTPUT if isinstance(item, Output) else RESYNC
    attach = item.attach_id.encode("utf-8")
    return bytes((kind,)) + _ID_LENGTH.pack(len(attach)) + attach + item.text.encode("utf-8")


def decode_frame(frame: bytes) -> Output | Resync:
    """The inverse of ``encode_frame`` (tests and tools); raises ``ValueError`` on a bad frame."""
    if len(frame) < 1 + _ID_LENGTH.size or frame[0] not in (OUTPUT, RESYNC):
        raise ValueError("not a terminal frame")
    (length,) = _ID_LENGTH.unpack_from(frame, 1)
    start = 1 + _ID_LENGTH.size
    attach = frame[start : start + length].decode("utf-8")
    text = frame[start + length :].decode("utf-8")
    return Output(attach, text) if frame[0] == OUTPUT else Resync(attach, text)


class _Stream:
    """One attached terminal: its pending chunks and whether it waits in the queue."""

    __slots__ = (
        "attach_id",
        "chunks",
        "last_sent",
        "pending_bytes",
        "queued",
        "resync",
        "scrollback",
    )

    def __init__(self, attach_id: str, scrollback: Callable[[], str]) -> None:
        self.attach_id = attach_id
        self.scrollback = scrollback
        self.chunks: list[str] = []
        self.pending_bytes = 0
        self.queued = False  # a placeholder for this stream is in the queue
        self.resync = False  # pending output was dropped: the next frame is a re-sync
        self.last_sent = float("-inf")


class ClientOutbox:
    def __init__(
        self,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        output_limit_bytes: int = DEFAULT_OUTPUT_LIMIT_BYTES,
        message_limit_bytes: int = DEFAULT_MESSAGE_LIMIT_BYTES,
        flush_bytes: int | None = None,
    ) -> None:
        self.interval_s = interval_s
        self.output_limit_bytes = output_limit_bytes
        self.flush_bytes = (
            min(DEFAULT_FLUSH_BYTES, max(output_limit_bytes // 4, 1))
            if flush_bytes is None
            else flush_bytes
        )
        self.message_limit_bytes = message_limit_bytes
        self.overflowed = False
        self.resyncs = 0  # how many times output was dropped for a re-sync (observability)
        self._queue: deque[str | _Stream] = deque()
        self._streams: dict[str, _Stream] = {}
        self._pending_bytes = 0
        self._message_bytes = 0

    @property
    def pending_output_bytes(self) -> int:
        return self._pending_bytes

    @property
    def queued_message_bytes(self) -> int:
        return self._message_bytes

    def push(self, text: str) -> None:
        """Queue a JSON message; past the bound it is dropped and the outbox is ``overflowed``."""
        size = len(text)
        if self.overflowed or self._message_bytes + size > self.message_limit_bytes:
            self.overflowed = True
            return
        self._message_bytes += size
        self._queue.append(text)

    def open(self, attach_id: str, scrollback: Callable[[], str]) -> None:
        """Start a terminal stream; ``scrollback`` gives the terminal's replay text on demand."""
        if attach_id in self._streams:
            raise ValueError(f"attach id {attach_id!r} is already open")
        self._streams[attach_id] = _Stream(attach_id, scrollback)

    def close(self, attach_id: str) -> bool:
        """Forget a stream and its pending output; False if it was not open."""
        stream = self._streams.pop(attach_id, None)
        if stream is None:
            return False
        self._pending_bytes -= stream.pending_bytes
        return True

    def feed(self, attach_id: str, text: str) -> bool:
        """Output of an attached terminal; never blocks, whatever the client's speed.

        True when this may make an item due sooner than ``next`` last said (a stream newly in
        line, one that reached ``flush_bytes``, a re-sync): only then must the sender look again.
        """
        stream = self._streams.get(attach_id)
        if stream is None or not text or stream.resync:
            # Output arriving while a re-sync is owed is in the scrollback the re-sync will send.
            return False
        # str.isascii() is O(1) in CPython: most output is ASCII and needs no encoding to count.
        size = len(text) if text.isascii() else len(text.encode("utf-8"))
        if self._pending_bytes + size > self.output_limit_bytes:
            self._drop_pending(stream)
            return True
        was_queued = stream.queued
        below = stream.pending_bytes < self.flush_bytes
        stream.chunks.append(text)
        stream.pending_bytes += size
        self._pending_bytes += size
        self._enqueue(stream)
        return not was_queued or (below and stream.pending_bytes >= self.flush_bytes)

    def next(self, now: float) -> Item | float | None:
        """The next item to send now; else the time at which one will be ready; else None."""
        while self._queue:
            head = self._queue[0]
            if isinstance(head, str):
                self._queue.popleft()
                self._message_bytes -= len(head)
                return Message(head)
            if self._streams.get(head.attach_id) is not head:
                self._queue.popleft()  # detached since it was queued
                continue
            due = head.last_sent + self.interval_s
            if now < due and head.pending_bytes < self.flush_bytes:
                return due
            self._queue.popleft()
            head.queued = False
            head.last_sent = now
            if head.resync:
                head.resync = False
                # Snapshotted now, so output fed from here on follows it without gap or repeat.
                return Resync(head.attach_id, head.scrollback())
            text = "".join(head.chunks)
            head.chunks.clear()
            self._pending_bytes -= head.pending_bytes
            head.pending_bytes = 0
            return Output(head.attach_id, text)
        return None

    def _enqueue(self, stream: _Stream) -> None:
        if not stream.queued:
            stream.queued = True
            self._queue.append(stream)

    def _drop_pending(self, fed: _Stream) -> None:
        """The client is behind: every stream holding output (and ``fed``) owes a re-sync."""
        self.resyncs += 1
        for stream in self._streams.values():
            if stream.pending_bytes or stream is fed:
                stream.chunks.clear()
                self._pending_bytes -= stream.pending_bytes
                stream.pending_bytes = 0
                stream.resync = True
                self._enqueue(stream)


class OutboxPump:
    """Sends what an outbox holds, one item at a time, as soon as it is due.

    ``poke`` after every push or feed; ``run`` until cancelled or the send fails (client gone).
    A send that blocks (a client that does not read) stalls only this pump.
    """

    def __init__(
        self,
        outbox: ClientOutbox,
        send_text: Callable[[str], Awaitable[None]],
        send_bytes: Callable[[bytes], Awaitable[None]],
    ) -> None:
        self._outbox = outbox
        self._send_text = send_text
        self._send_bytes = send_bytes
        self._wake = asyncio.Event()

    def poke(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._wake.clear()
            item = self._outbox.next(loop.time())
            if item is None:
                await self._wake.wait()
            elif isinstance(item, float):
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout_at(item):
                        await self._wake.wait()
            elif isinstance(item, Message):
                await self._send_text(item.text)
            else:
                await self._send_bytes(encode_frame(item))


class TerminalViews(Protocol):
    """A client's terminal views: what the UI API's ``terminal.*`` methods act on."""

    def attach(self, session: TerminalSession) -> tuple[str, str]:
        """Stream ``session``'s output to this client from now on: (attach id, scrollback)."""
        ...

    def detach(self, attach_id: str) -> bool:
        """Stop that stream; False if this client has no such attach id."""
        ...


Sends = tuple[Callable[[str], Awaitable[None]], Callable[[bytes], Awaitable[None]]]


class ClientStreams:
    """One client's outbox, pump and terminal views (the ``TerminalViews`` of ``ui.api``)."""

    def __init__(
        self,
        outbox: ClientOutbox,
        sends: Sends,
        new_attach_id: Callable[[], str],
        on_overflow: Callable[[], None],
    ) -> None:
        self.outbox = outbox
        self.pump = OutboxPump(outbox, *sends)
        self._new_attach_id = new_attach_id
        self._on_overflow = on_overflow
        self._views: dict[str, Unsubscribe] = {}
        self._released = False

    def attach(self, session: TerminalSession) -> tuple[str, str]:
        attach_id = self._new_attach_id()
        if self._released:
            return attach_id, ""
        self.outbox.open(attach_id, session.scrollback)

        def output(text: str) -> None:
            # Waking the pump for every chunk of a busy terminal would cost more than the chunk.
            if self.outbox.feed(attach_id, text):
                self.pump.poke()

        # Snapshot and subscription in one step: nothing is lost or repeated in between.
        scrollback = session.scrollback()
        self._views[attach_id] = session.subscribe(output)
        return attach_id, scrollback

    def detach(self, attach_id: str) -> bool:
        unsubscribe = self._views.pop(attach_id, None)
        if unsubscribe is None:
            return False
        unsubscribe()
        self.outbox.close(attach_id)
        return True

    def detach_all(self) -> None:
        for attach_id in list(self._views):
            self.detach(attach_id)

    def push(self, text: str) -> None:
        """Queue a JSON message; an overflow releases this client and calls ``on_overflow``."""
        if self._released:
            return
        self.outbox.push(text)
        if self.outbox.overflowed:
            self.release()
            self._on_overflow()
        self.pump.poke()

    def release(self) -> None:
        """Stop every terminal view and accept nothing more (the client is gone or dropped)."""
        self._released = True
        for unsubscribe in self._views.values():
            unsubscribe()
        self._views.clear()
