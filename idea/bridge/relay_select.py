"""The relay as one select loop (POSIX): stdin, stdout and the app's socket in the caller's thread.

Invariants: no thread and no hand-off per message, so a round trip costs the relay two wake-ups.
The socket is non-blocking: what it cannot take at once waits in an outbox, and stdin is not read
while the outbox is above ``HIGH_WATER`` (back-pressure) — the app is read all the while, so
neither side can stall the other. Stdout gets whole lines with blocking writes. SIGINT/SIGTERM
handlers raise in this thread, which ends any wait at once.
"""

from __future__ import annotations

import os
import select
import time
from typing import TextIO

from idea.bridge.channel import SocketChannel
from idea.bridge.relay import DRAIN_S, EXIT_OK, app_gone_report
from idea.bridge.session import RelaySession
from idea.protocol import loopback

HIGH_WATER = 1024 * 1024  # bytes waiting for the socket before stdin is no longer read
READ_CHUNK = 256 * 1024


class _ClientGone(Exception):
    """Stdout is closed: nobody reads the answers any more."""


def relay_select(stdin_fd: int, stdout_fd: int, channel: SocketChannel, stderr: TextIO) -> int:
    """Relay after the welcome until one side ends; returns the exit code."""
    try:
        return _loop(stdin_fd, stdout_fd, channel, stderr, RelaySession())
    except _ClientGone:
        return EXIT_OK


def _loop(
    stdin_fd: int, stdout_fd: int, channel: SocketChannel, stderr: TextIO, session: RelaySession
) -> int:
    channel.set_nonblocking()
    sock = channel.fileno()
    outbox = bytearray()  # frames for the app the socket did not take yet
    stdin_open = True
    drain_until = 0.0  # once stdin is closed: answers on their way are awaited until then
    broken = ""
    try:
        _write_lines(stdout_fd, session, channel.buffered())
        while True:
            timeout = None
            if not stdin_open:
                timeout = drain_until - time.monotonic()
                if (not session.pending and not outbox) or timeout <= 0:
                    return EXIT_OK
            readers = [sock, stdin_fd] if stdin_open and len(outbox) < HIGH_WATER else [sock]
            ready, writable, _ = select.select(readers, [sock] if outbox else [], [], timeout)
            if sock in ready:
                _write_lines(stdout_fd, session, channel.read_ready())
            if stdin_fd in ready:
                try:
                    data = os.read(stdin_fd, READ_CHUNK)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""  # stdin unreadable (EIO, …): as closed
                lines = session.client_bytes(data) if data else session.client_end()
                errors = []
                for line in lines:
                    frame, refused = session.client_line(line)
                    if frame is not None:
                        outbox += frame
                    errors += refused
                if errors:
                    _write(stdout_fd, b"".join(errors))
                if not data:
                    stdin_open = False
                    drain_until = time.monotonic() + DRAIN_S
                writable = [sock] if outbox else []  # try at once: the socket has room, mostly
            if writable:
                del outbox[: channel.send_some(outbox)]
    except EOFError:
        pass
    except OSError:  # a send to an app that is gone: read what it had sent before going
        broken = _read_the_rest(stdout_fd, session, channel)
    except loopback.ProtocolError as exc:
        broken = f" after breaking the loopback protocol ({exc})"
    failed = session.app_gone()
    if failed:
        _write(stdout_fd, b"".join(failed))
    return app_gone_report(stderr, len(failed), broken)


def _read_the_rest(stdout_fd: int, session: RelaySession, channel: SocketChannel) -> str:
    try:
        while frames := channel.read_ready():
            _write_lines(stdout_fd, session, frames)
    except EOFError:
        pass
    except loopback.ProtocolError as exc:
        return f" after breaking the loopback protocol ({exc})"
    return ""


def _write_lines(stdout_fd: int, session: RelaySession, frames: list[bytes]) -> None:
    """The stdout lines of these frames from the app, written together."""
    lines = [line for frame in frames if (line := session.app_frame(frame)) is not None]
    if lines:
        _write(stdout_fd, lines[0] if len(lines) == 1 else b"".join(lines))


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
