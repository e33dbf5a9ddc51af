"""The project's local MCP endpoint as a byte stream, and a relay both ways: what each
connection a host makes to its forwarded socket is joined to (DESIGN.md §16).

SSH forwards the host's socket here; each connection is relayed to the endpoint, a Unix socket
on POSIX, a named pipe on Windows (which SSH's own forwarding cannot reach). The bytes are the
loopback protocol's, authenticated by the endpoint as any bridge's: the relay reads none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any, Protocol

CHUNK = 256 * 1024


class Reader(Protocol):
    async def read(self, n: int = -1) -> bytes: ...


class Writer(Protocol):
    def write(self, data: bytes) -> object: ...

    async def drain(self) -> None: ...

    def write_eof(self) -> object: ...

    def close(self) -> object: ...


async def open_local_stream(endpoint: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to ``endpoint``; raises ``OSError`` when nothing listens there."""
    if sys.platform == "win32":
        loop: Any = asyncio.get_running_loop()  # the Proactor loop: it has pipe connections
        reader = asyncio.StreamReader(limit=CHUNK)
        protocol = asyncio.StreamReaderProtocol(reader)
        transport, _ = await loop.create_pipe_connection(lambda: protocol, endpoint)
        return reader, asyncio.StreamWriter(transport, protocol, reader, loop)
    return await asyncio.open_unix_connection(endpoint, limit=CHUNK)


async def relay(a: tuple[Reader, Writer], b: tuple[Reader, Writer]) -> None:
    """Copy ``a`` to ``b`` and ``b`` to ``a`` until both ends are done; an end's EOF is passed
    on as one (a half-close), an error ends both."""

    async def pump(source: Reader, sink: Writer) -> None:
        try:
            while data := await source.read(CHUNK):
                sink.write(data)
                await sink.drain()
        finally:
            with contextlib.suppress(Exception):
                sink.write_eof()

    try:
        await asyncio.gather(pump(a[0], b[1]), pump(b[0], a[1]))
    except Exception:
        pass  # one side went away: both are closed below
    finally:
        for _, writer in (a, b):
            with contextlib.suppress(Exception):
                writer.close()
