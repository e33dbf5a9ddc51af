"""The channels of an open SSH connection to a host (DESIGN.md §16): a command run with the
host's shell, and the host's Unix socket forwarded to the project's endpoint.

Invariants: what a host sends back is bounded (``OUTPUT_LIMIT``) and every remote command has a
deadline; asyncssh's and the OS's errors on an open connection are translated here, once
(``ssh_errors``), into the ``IdeaError`` tree: ``HostUnreachable``, ``Unavailable``,
``IdeaTimeout``, ``ForwardingRefused``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

import asyncssh

from idea.domain.errors import (
    ForwardingRefused,
    HostUnreachable,
    IdeaError,
    IdeaTimeout,
    Unavailable,
)
from idea.domain.host import Host
from idea.infrastructure.remote.ssh.local_stream import open_local_stream, relay

COMMAND_TIMEOUT_S = 30.0
OUTPUT_LIMIT = 64 * 1024  # characters of stdout (and as many of stderr) kept from one command


@contextlib.contextmanager
def ssh_errors(
    host: Host, doing: str, conn: asyncssh.SSHClientConnection | None = None
) -> Iterator[None]:
    """Translate what an open link (``conn``) raises while ``doing`` something: a lost link →
    ``HostUnreachable``, a channel the host refused → ``Unavailable``, a deadline →
    ``IdeaTimeout``."""
    try:
        yield
    except IdeaError:
        raise
    except TimeoutError as exc:
        raise IdeaTimeout(f"host '{host.name}': {doing} did not finish in time") from exc
    except asyncssh.ChannelOpenError as exc:
        if conn is None or not conn.is_closed():
            raise Unavailable(f"host '{host.name}' refused to {doing}: {exc.reason}") from exc
        raise _lost(host, doing, exc) from exc
    except (asyncssh.DisconnectError, OSError, asyncssh.Error) as exc:
        raise _lost(host, doing, exc) from exc


def _lost(host: Host, doing: str, exc: Exception) -> HostUnreachable:
    why = getattr(exc, "reason", "") or str(exc) or type(exc).__name__
    return HostUnreachable(
        f"host '{host.name}': the connection to {host.endpoint} was lost while trying to "
        f"{doing}: {why}",
        host=host.name,
        address=host.endpoint,
    )


@dataclass(frozen=True, slots=True)
class RemoteResult:
    """What a command run on the host ended with. ``exit_status``: its exit code, the negative
    signal number that killed it, or None when the host said neither."""

    exit_status: int | None
    stdout: str
    stderr: str


async def run_command(
    conn: asyncssh.SSHClientConnection,
    host: Host,
    command: str,
    *,
    timeout: float = COMMAND_TIMEOUT_S,
    limit: int = OUTPUT_LIMIT,
) -> RemoteResult:
    """Run ``command`` with the host's shell (no terminal, stdin closed) until it exits.

    Raises ``IdeaTimeout`` after ``timeout`` (the command is closed), ``Unavailable`` when it
    prints more than ``limit`` characters on a stream, ``HostUnreachable`` (link lost)."""
    with ssh_errors(host, f"run {command[:80]!r}", conn):
        process = await asyncio.wait_for(
            conn.create_process(
                command, stdin=asyncssh.DEVNULL, encoding="utf-8", errors="replace"
            ),
            timeout,
        )
        try:
            out, err = await asyncio.wait_for(
                asyncio.gather(_bounded(process.stdout, limit), _bounded(process.stderr, limit)),
                timeout,
            )
            if len(out) > limit or len(err) > limit:
                raise Unavailable(
                    f"host '{host.name}': {command[:80]!r} printed more than {limit} characters"
                )
            await asyncio.wait_for(process.wait_closed(), timeout)
        finally:
            process.close()
        return RemoteResult(process.returncode, out, err)


async def _bounded(stream: asyncssh.SSHReader[str], limit: int) -> str:
    """All of ``stream`` up to ``limit`` characters; one more means it had more."""
    chunks: list[str] = []
    size = 0
    while size <= limit:
        chunk = await stream.read(limit + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return "".join(chunks)


async def forward_socket(
    conn: asyncssh.SSHClientConnection, host: Host, remote_path: str, local_path: str
) -> asyncssh.SSHListener:
    """Forward the Unix socket ``remote_path`` the host's sshd makes to the endpoint
    ``local_path`` here (a Unix socket, or on Windows a named pipe: each connection is relayed,
    ``local_stream.py``); the caller closes the listener. Raises ``ForwardingRefused``,
    ``HostUnreachable``."""

    async def joined(reader: asyncssh.SSHReader[bytes], writer: asyncssh.SSHWriter[bytes]) -> None:
        try:
            local = await open_local_stream(local_path)
        except OSError:
            writer.close()  # the project closed meanwhile: the host's bridge says so
            return
        await relay((reader, writer), local)

    with ssh_errors(host, "forward a Unix socket", conn):
        try:
            listener = await conn.start_unix_server(lambda: joined, remote_path)
        except asyncssh.ChannelListenError as exc:
            raise ForwardingRefused(
                f"host '{host.name}': its SSH server refused to forward a Unix socket "
                f"({exc}); remote agents need it to reach the project: set "
                "`AllowStreamLocalForwarding yes` in its sshd_config",
                host=host.name,
                address=host.endpoint,
            ) from exc
    if listener is None:  # asyncssh's other way of saying the server refused
        raise ForwardingRefused(
            f"host '{host.name}': its SSH server refused to forward a Unix socket; remote agents "
            "need it to reach the project: set `AllowStreamLocalForwarding yes` in its "
            "sshd_config",
            host=host.name,
            address=host.endpoint,
        )
    return listener
