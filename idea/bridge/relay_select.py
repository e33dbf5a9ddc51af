"""The relay as one select loop (POSIX): stdin, stdout and the app's socket in the caller's thread.

Invariants: no thread and no hand-off per message, so a round trip costs the relay two wake-ups;
a message is forwarded before its bookkeeping (pending ids) is done, which then overlaps with the
work of the other side. The socket is non-blocking: what it cannot take at once waits in an
outbox, and stdin is not read while the outbox is above ``HIGH_WATER`` (back-pressure) — the app
is read all the while, so neither side can stall the other. Stdout gets whole lines with blocking
writes. SIGINT/SIGTERM handlers raise in this thread, which ends any wait at once.
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from typing import TextIO

from idea.bridge.channel import SocketChannel
from idea.bridge.relay_common import DRAIN_S, EXIT_OK, app_gone_report
from idea.bridge.session import RelaySession
from idea.endpoint import loopback

HIGH_WATER = 1024 * 1024  # bytes waiting for the socket before stdin is no longer read
READ_CHUNK = 256 * 1024


class _ClientGone(Exception):
    """Stdout is closed: nobody reads the answers any more."""


def relay_select(stdin_fd: int, stdout_fd: int, channel: SocketChannel, stderr: TextIO) -> int:
    """Relay after the welcome until one side ends; returns the exit code."""
    relay = _Relay(stdin_fd, stdout_fd, channel)
    try:
        broken = relay.run()
    except _ClientGone:
        return EXIT_OK
    if broken is None:
        return EXIT_OK
    failed = relay.session.app_gone()
    if failed:
        with contextlib.suppress(_ClientGone):
            _write(stdout_fd, b"".join(failed))
    return app_gone_report(stderr, len(failed), broken)


class _Relay:
    def __init__(self, stdin_fd: int, stdout_fd: int, channel: SocketChannel) -> None:
        self.session = RelaySession()
        self._stdin = stdin_fd
        self._stdout = stdout_fd
        self._channel = channel
        self._outbox = bytearray()  # frames for the app the socket did not take yet
        self._stdin_open = True

    def run(self) -> str | None:
        """None once the client is done (stdin closed, answers delivered or overdue); else the
        app is gone: what the stderr line adds about how."""
        channel, outbox, sock = self._channel, self._outbox, self._channel.fileno()
        channel.set_nonblocking()
        drain_until = 0.0  # once stdin is closed: answers on their way are awaited until then
        try:
            self._to_client(channel.buffered())
            while True:
                timeout = None
                if not self._stdin_open:
                    timeout = drain_until - time.monotonic()
                    if (not self.session.pending and not outbox) or timeout <= 0:
                        return None
                readers = [sock]
                if self._stdin_open and len(outbox) < HIGH_WATER:
                    readers.append(self._stdin)
                ready, writable, _ = select.select(readers, [sock] if outbox else [], [], timeout)
                if sock in ready:
                    self._to_client(channel.read_ready())
                if self._stdin in ready:
                    self._from_client()
                    if not self._stdin_open:
                        drain_until = time.monotonic() + DRAIN_S
                elif writable:
                    del outbox[: channel.send_some(outbox)]
        except EOFError:
            return ""
        except OSError:  # a send to an app that is gone: read what it had sent before going
            return self._read_the_rest()
        except loopback.ProtocolError as exc:
            return f" after breaking the loopback protocol ({exc})"

    def _from_client(self) -> None:
        """What stdin holds, to the app; raises ``OSError`` when the app is gone."""
        session = self.session
        try:
            data = os.read(self._stdin, READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""  # stdin unreadable (EIO, …): as closed
        if not data:
            self._stdin_open = False
        lines = session.client_bytes(data) if data else session.client_end()
        frames, carried, errors = session.client_frames(lines)
        self._outbox += frames
        try:
            if self._outbox:  # at once: the socket has room, mostly
                del self._outbox[: self._channel.send_some(self._outbox)]
        finally:
            session.sent(carried)  # while the app works on them
        if errors:
            _write(self._stdout, b"".join(errors))

    def _to_client(self, frames: list[bytes]) -> None:
        """The stdout lines of these frames from the app, written together."""
        session = self.session
        lines = [line for frame in frames if (line := session.app_line(frame)) is not None]
        if lines:
            _write(self._stdout, lines[0] if len(lines) == 1 else b"".join(lines))
            session.written(lines)  # while the client reads them

    def _read_the_rest(self) -> str:
        try:
            while frames := self._channel.read_ready():
                self._to_client(frames)
        except EOFError:
            pass
        except loopback.ProtocolError as exc:
            return f" after breaking the loopback protocol ({exc})"
        return ""


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:  # a non-blocking stdout (the client's choice) that is full
            select.select([], [fd], [])
            continue
        except OSError as exc:  # broken pipe, closed
            raise _ClientGone from exc
        view = view[written:]
