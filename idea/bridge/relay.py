"""``relay``: stdio JSON-RPC lines ⇄ ``rpc`` frames of the loopback channel, full duplex.

Invariants: stdout carries only JSON-RPC messages, one per line, each written whole at once, and
two messages never interleave. A request the client sent and the app did not answer is never left
unanswered when the app goes away: it gets a ``CONNECTION_CLOSED`` error before the relay returns.
The relay knows nothing of MCP beyond JSON-RPC ids (``session``).

Drivers: on POSIX, with real file descriptors and a socket channel, one select loop in the
caller's thread (``relay_select``: no thread hand-off per message); otherwise (a Windows named
pipe, in-memory streams) a stdin thread beside the caller's (``relay_threads``). Exit codes: 0
stdin closed (or stdout gone), 1 app gone or misbehaving, 2 rejected by the app.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from idea.bridge.channel import Channel, SocketChannel
from idea.bridge.relay_common import (
    APP_CLOSED,
    EXIT_APP_GONE,
    EXIT_OK,
    EXIT_REJECTED,
    PREFIX,
    WELCOME_TIMEOUT,
    ByteWriter,
    LineReader,
    say,
)
from idea.endpoint import loopback

__all__ = ["EXIT_APP_GONE", "EXIT_OK", "EXIT_REJECTED", "PREFIX", "relay"]


def relay(
    stdin: LineReader,
    stdout: ByteWriter,
    channel: Channel,
    stderr: TextIO,
    *,
    project: str,
    requester: str,
    pid: int | None = None,
    welcome_timeout: float = WELCOME_TIMEOUT,
) -> int:
    """Greet the app as ``requester`` of ``project``, then relay until one side ends."""
    try:
        refused = _greet(channel, stderr, project, requester, pid, welcome_timeout)
        if refused is not None:
            return refused
        fds = _descriptors(stdin, stdout, channel)
        if fds is not None and isinstance(channel, SocketChannel):
            from idea.bridge.relay_select import relay_select  # noqa: PLC0415

            return relay_select(fds[0], fds[1], channel, stderr)
        from idea.bridge.relay_threads import relay_threads  # noqa: PLC0415

        return relay_threads(stdin, stdout, channel, stderr)
    finally:
        channel.close()


def _descriptors(stdin: LineReader, stdout: ByteWriter, channel: Channel) -> tuple[int, int] | None:
    """(stdin fd, stdout fd) when one POSIX select loop can serve them, else None."""
    if sys.platform == "win32" or not isinstance(channel, SocketChannel):
        return None
    stdin_fileno = getattr(stdin, "fileno", None)
    stdout_fileno = getattr(stdout, "fileno", None)
    if stdin_fileno is None or stdout_fileno is None:
        return None  # in-memory streams
    try:
        fds = (int(stdin_fileno()), int(stdout_fileno()))
        for fd in fds:
            os.fstat(fd)
    except (OSError, ValueError):
        return None
    return fds


def _greet(
    channel: Channel,
    stderr: TextIO,
    project: str,
    requester: str,
    pid: int | None,
    timeout: float,
) -> int | None:
    """``hello`` → ``welcome`` (None); anything else is one stderr line and an exit code."""
    try:
        channel.send(loopback.hello(project, requester, os.getpid() if pid is None else pid))
        message = loopback.unpack(channel.recv(timeout=timeout))
    except TimeoutError:
        say(stderr, f"the IdeA app did not answer the hello within {timeout:g} s")
        return EXIT_APP_GONE
    except (EOFError, OSError):
        say(stderr, f"{APP_CLOSED} during the hello")
        return EXIT_APP_GONE
    except loopback.ProtocolError as exc:
        say(stderr, f"the IdeA app broke the loopback protocol: {exc}")
        return EXIT_APP_GONE
    kind = message["t"]
    if kind == "welcome":
        return None
    if kind == "reject":
        code, text = message.get("code", "REJECTED"), message.get("message", "")
        say(stderr, f"rejected by the IdeA app: {code}: {text}")
        return EXIT_REJECTED
    say(stderr, f"the IdeA app sent {kind!r} instead of a welcome")
    return EXIT_APP_GONE
