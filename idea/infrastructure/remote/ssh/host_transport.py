"""The link to a host's ``idea host`` over SSH (DESIGN.md §16): one SSH connection per link,
the relay run as its command, and the host's MCP socket forwarded to the project's endpoint.

A reconnect is a new connection (``open_host_transport`` again): the host's daemon, which kept
the agents, is the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
from collections.abc import Awaitable, Callable

import asyncssh

from idea import __version__
from idea.application.tasks import TaskSet
from idea.domain.host import Host
from idea.infrastructure.remote.link import Connector
from idea.infrastructure.remote.ssh.channels import forward_socket, ssh_errors
from idea.infrastructure.remote.ssh.check import check_idea
from idea.infrastructure.remote.ssh.connection import connect
from idea.infrastructure.remote.wire import ByteReader, ByteWriter

log = logging.getLogger(__name__)

Connect = Callable[[Host], Awaitable[asyncssh.SSHClientConnection]]


class SshHostTransport:
    def __init__(
        self,
        host: Host,
        conn: asyncssh.SSHClientConnection,
        process: asyncssh.SSHClientProcess[bytes],
        local_endpoint: str,
    ) -> None:
        self._host, self._conn, self._process = host, conn, process
        self._local = local_endpoint
        # Declared as the port's types: a protocol's attributes must match them exactly.
        self.reader: ByteReader = process.stdout
        self.writer: ByteWriter = process.stdin
        self._forward: asyncssh.SSHListener | None = None
        # The relay's stderr is read until the channel closes; close() ends and awaits it.
        self._tasks = TaskSet(f"SSH link to {host.name}")
        self._tasks.spawn(self._log_stderr(), name=f"ssh-stderr-{host.name}")

    async def forward_mcp(self, host_socket: str) -> None:
        self._forward = await forward_socket(self._conn, self._host, host_socket, self._local)

    async def close(self) -> None:
        if self._forward is not None:
            self._forward.close()
        self._process.close()
        self._conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._conn.wait_closed(), 5)
        await self._tasks.close()

    async def _log_stderr(self) -> None:
        """What the relay says on stderr (why it could not start the daemon), in IdeA's log."""
        with contextlib.suppress(Exception):
            async for line in self._process.stderr:  # its last is empty when the channel closes
                text = line.decode("utf-8", errors="replace").rstrip()
                if text:
                    log.warning("host %s: %s", self._host.name, text[:500])


async def open_host_transport(
    host: Host, local_endpoint: str, connect_to: Connect = connect
) -> SshHostTransport:
    """Connect, check the host's IdeA is this version, run ``idea host --root`` there. Raises
    the SSH link's typed errors (host key, auth, unreachable) and ``HostIdeaMissing``,
    ``HostIdeaVersion``."""
    conn = await connect_to(host)
    try:
        await check_idea(conn, host, __version__)
        command = f"{host.idea} host --root {shlex.quote(host.root)}"
        with ssh_errors(host, "start idea host", conn):
            process = await conn.create_process(command, encoding=None)
        return SshHostTransport(host, conn, process, local_endpoint)
    except BaseException:
        conn.close()
        raise


def ssh_connector(
    host_of: Callable[[str], Host], local_endpoint: str, connect_to: Connect = connect
) -> Callable[[str], Connector]:
    """For ``HostLinks``: each host name to how its link connects (``host_of`` raises
    ``NotFound`` for a host that is not in the user's hosts.json)."""

    def connector_for(name: str) -> Connector:
        host = host_of(name)

        async def connector() -> SshHostTransport:
            return await open_host_transport(host, local_endpoint, connect_to)

        return connector

    return connector_for
