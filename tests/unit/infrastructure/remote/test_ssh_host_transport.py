"""``SshHostTransport`` over a fake SSH connection: what the relay prints on stderr reaches the
log, and closing the transport leaves no task of its own behind."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from idea.domain.host import Host
from idea.infrastructure.remote.ssh.host_transport import SshHostTransport


class Connection:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True

    async def wait_closed(self) -> None:
        return None


class Process:
    """A relay that said one line on stderr and then stays up (its channel never closes)."""

    def __init__(self) -> None:
        self.stdout = asyncio.StreamReader()
        self.stdin = object()
        self.stderr = asyncio.StreamReader()
        self.stderr.feed_data(b"idea host: starting the daemon\n")

    def close(self) -> None:
        pass  # a real channel's stderr ends later, when the SSH connection goes


async def test_closing_ends_the_stderr_reader_even_when_stderr_never_ends(caplog) -> None:
    host = Host(name="box", user=None, address="box.example", root="/srv/checkout")
    process = Process()
    caplog.set_level(logging.WARNING)
    before = asyncio.all_tasks()
    transport = SshHostTransport(host, cast(Any, Connection()), cast(Any, process), "/e.sock")
    for _ in range(20):  # the reader logs the line, then waits for more
        await asyncio.sleep(0)
    assert "host box: idea host: starting the daemon" in caplog.text
    await transport.close()
    left = [task for task in asyncio.all_tasks() - before if not task.done()]
    assert left == []
