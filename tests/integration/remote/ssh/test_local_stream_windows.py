"""On Windows the project's MCP endpoint is a named pipe, which SSH's own socket forwarding
cannot reach: each connection the host makes is relayed to the pipe (``local_stream.py``). Here
the real pipe listener is reached through that relay from a TCP socket standing for the SSH
channel, by the bridge's own handshake: authenticated, welcomed, a megabyte each way."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import time

import pytest

from idea.bridge.channel import SocketChannel, _prove
from idea.endpoint import loopback
from idea.infrastructure.doors.mcp.listener import McpListener
from idea.infrastructure.remote.ssh.local_stream import open_local_stream, relay
from tests.windows_lane import windows_only

pytestmark = [windows_only, pytest.mark.timeout(30)]

KEY = secrets.token_bytes(32)


class EchoHandler:
    def __init__(self, requester, send):
        self.send = send

    def receive(self, message):
        self.send(message[::-1])

    async def close(self):
        pass


def bridge_over(port: int, agent: str) -> tuple[SocketChannel, dict]:
    """The bridge's handshake over a TCP socket to the relay (off the loop)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    channel = SocketChannel(sock)
    _prove(channel, loopback.agent_key(KEY, agent), agent, time.monotonic() + 5)
    channel.send(loopback.hello("project-1", agent, os.getpid()))
    return channel, loopback.unpack(channel.recv(5))


async def test_a_connection_relayed_to_the_pipe_endpoint_is_served() -> None:
    name = rf"\\.\pipe\idea-test-{secrets.token_hex(8)}"
    listener = McpListener(name, KEY, "project-1", lambda a: a == "agent-a", EchoHandler)
    await listener.start()

    async def joined(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await relay((reader, writer), await open_local_stream(name))

    server = await asyncio.start_server(joined, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        channel, welcome = await asyncio.to_thread(bridge_over, port, "agent-a")
        try:
            assert welcome == {"t": "welcome", "v": loopback.VERSION}
            payload = os.urandom(1024 * 1024)
            channel.send(loopback.rpc(payload))
            answer = loopback.unpack(await asyncio.to_thread(channel.recv, 10))
            assert answer["data"] == payload[::-1]
        finally:
            channel.close()
    finally:
        server.close()
        await listener.stop()
