"""The MCP endpoint's listener: authentication, identity, isolation, lifecycle, permissions."""

import asyncio
import os
import secrets
import socket
import stat
import sys

import pytest

from idea.domain.errors import Conflict
from idea.endpoint import loopback
from idea.infrastructure.doors.mcp.listener import McpListener

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets")

KEY = secrets.token_bytes(32)


class EchoHandler:
    """Answers every message with its reverse; records closes."""

    closed: list[str] = []
    received = 0

    def __init__(self, requester, send):
        self.requester = requester
        self.send = send

    def receive(self, message):
        EchoHandler.received += 1
        self.send(self.requester.encode() + b":" + message[::-1])

    async def close(self):
        EchoHandler.closed.append(self.requester)


@pytest.fixture(params=["protocol", "streams"])
async def listener(request, tmp_path):
    """The listener as it serves Unix sockets (an asyncio Protocol), and through streams, as it
    serves the Windows pipe server's connections (``serve_stream``)."""
    endpoint = str(tmp_path / "run" / "p.sock")
    lst = McpListener(
        endpoint, KEY, "project-1", lambda a: a in {"agent-a", "agent-b"}, EchoHandler
    )
    if request.param == "protocol":
        await lst.start()
        yield lst
        await lst.stop()
        return
    os.makedirs(os.path.dirname(endpoint), mode=0o700)
    server = await asyncio.start_unix_server(lst.serve_stream, path=endpoint)
    os.chmod(endpoint, 0o600)
    yield lst
    server.close()
    await lst.stop()


async def read_frame(reader):
    header = await reader.readexactly(loopback.HEADER_BYTES)
    return await reader.readexactly(loopback.frame_length(header))


async def connect(endpoint, key=KEY, project="project-1", requester="agent-a", proves=None):
    """The bridge's side of the handshake with the key of agent ``proves`` (default: the
    requester), derived from the project key; returns (reader, writer, first message or None)."""
    proves = requester if proves is None else proves
    reader, writer = await asyncio.open_unix_connection(endpoint)
    nonce_app = await read_frame(reader)
    nonce_bridge = secrets.token_bytes(32)
    agent_key = loopback.agent_key(key, proves)
    writer.write(
        loopback.encode_frame(loopback.bridge_proof(agent_key, nonce_app, nonce_bridge, proves))
    )
    try:
        app = await asyncio.wait_for(read_frame(reader), 5)
    except asyncio.IncompleteReadError:
        return reader, writer, None
    assert loopback.proofs_match(loopback.app_proof(agent_key, nonce_app, nonce_bridge), app)
    writer.write(loopback.encode_frame(loopback.hello(project, requester, os.getpid())))
    return reader, writer, loopback.unpack(await asyncio.wait_for(read_frame(reader), 5))


async def close(writer):
    writer.close()
    await writer.wait_closed()


async def rpc(reader, writer, data):
    writer.write(loopback.encode_frame(loopback.rpc(data)))
    return loopback.unpack(await asyncio.wait_for(read_frame(reader), 5))["data"]


async def test_authenticated_agent_is_served(listener):
    reader, writer, first = await connect(listener.endpoint)
    assert first == {"t": "welcome", "v": loopback.VERSION}
    assert await rpc(reader, writer, b"abc") == b"agent-a:cba"
    await close(writer)


async def test_wrong_key_gets_nothing(listener):
    _, writer, first = await connect(listener.endpoint, key=b"x" * 32)
    assert first is None
    await close(writer)
    assert listener.accepted == 0


@pytest.mark.parametrize(
    ("project", "requester"), [("project-1", "stranger"), ("other-project", "agent-a")]
)
async def test_unknown_requester_or_project_is_rejected(listener, project, requester):
    _, writer, first = await connect(listener.endpoint, project=project, requester=requester)
    assert first["t"] == "reject"
    assert first["code"] == "NOT_FOUND"
    await close(writer)


async def test_a_peer_leaving_affects_nobody_else(listener):
    _, wa, _ = await connect(listener.endpoint, requester="agent-a")
    rb, wb, _ = await connect(listener.endpoint, requester="agent-b")
    await close(wa)
    assert await rpc(rb, wb, b"still") == b"agent-b:llits"
    await close(wb)


async def test_garbage_instead_of_a_proof_is_dropped(listener):
    reader, writer = await asyncio.open_unix_connection(listener.endpoint)
    await read_frame(reader)
    writer.write(b"\xff\xff\xff\xffnot a frame")
    assert await asyncio.wait_for(reader.read(), 5) == b""
    await close(writer)
    _, ok_writer, first = await connect(listener.endpoint)
    assert first["t"] == "welcome"
    await close(ok_writer)


async def test_before_authentication_a_large_frame_is_refused_unbuffered(listener):
    reader, writer = await asyncio.open_unix_connection(listener.endpoint)
    await read_frame(reader)
    # Announces 64 MiB; the app drops the connection at the header instead of buffering it.
    big = loopback.PRE_AUTH_MAX_FRAME + 1
    writer.write(big.to_bytes(4, "big") + b"x" * 1024)
    assert await asyncio.wait_for(reader.read(), 5) == b""
    await close(writer)
    # After the welcome, frames up to the full limit flow.
    reader, writer, first = await connect(listener.endpoint)
    assert first["t"] == "welcome"
    payload = b"y" * (loopback.PRE_AUTH_MAX_FRAME * 4)
    assert await rpc(reader, writer, payload) == b"agent-a:" + payload[::-1]
    await close(writer)


async def test_permissions(listener):
    folder = os.path.dirname(listener.endpoint)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(listener.endpoint).st_mode) == 0o600


async def test_stale_socket_is_replaced_and_a_live_one_is_a_conflict(tmp_path):
    endpoint = str(tmp_path / "s" / "p.sock")
    first = McpListener(endpoint, KEY, "p", lambda _: True, EchoHandler)
    await first.start()
    second = McpListener(endpoint, KEY, "p", lambda _: True, EchoHandler)
    with pytest.raises(Conflict, match=r"another IdeA \(its MCP endpoint .* answers\)"):
        await second.start()
    await first.stop()
    assert not os.path.exists(endpoint)
    # A crash leaves the socket file behind: the next start replaces it.
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(endpoint)
    stale.close()
    assert os.path.exists(endpoint)
    await second.start()
    _, writer, welcome = await connect(endpoint, project="p")
    assert welcome["t"] == "welcome"
    await close(writer)
    await second.stop()


async def test_a_client_that_does_not_read_is_not_read_either(listener):
    """Back-pressure: the answers pile up, the requests wait; all are served once it reads."""
    reader, writer, _ = await connect(listener.endpoint)
    count = 5000
    frame = loopback.encode_frame(loopback.rpc(b"x" * 200))

    async def flood():
        for _ in range(count):
            writer.write(frame)
            await writer.drain()

    EchoHandler.received = 0
    flooding = asyncio.create_task(flood())
    for _ in range(2000):  # loop turns enough to read it all, were the app still reading
        await asyncio.sleep(0)
    assert not flooding.done()
    assert EchoHandler.received < count / 2
    answers = 0
    async with asyncio.timeout(20):
        while answers < count:
            assert loopback.unpack(await read_frame(reader))["data"].startswith(b"agent-a:")
            answers += 1
        await flooding
    await close(writer)


async def test_stop_ends_every_connection(listener):
    EchoHandler.closed = []
    reader, writer, _ = await connect(listener.endpoint)
    await listener.stop()
    assert await asyncio.wait_for(reader.read(), 5) == b""
    assert EchoHandler.closed == ["agent-a"]
    assert not os.path.exists(listener.endpoint)
    await close(writer)


async def test_a_bridge_is_only_the_agent_its_key_was_made_for(listener):
    # agent-b's key cannot pass for agent-a: the proof is checked with agent-a's key.
    reader, writer = await asyncio.open_unix_connection(listener.endpoint)
    nonce_app = await read_frame(reader)
    b_key = loopback.agent_key(KEY, "agent-b")
    forged = loopback.bridge_proof(b_key, nonce_app, secrets.token_bytes(32), "agent-b")
    forged = forged[: -len(b"agent-b")] + b"agent-a"  # claims agent-a with agent-b's HMAC
    writer.write(loopback.encode_frame(forged))
    assert await asyncio.wait_for(reader.read(), 5) == b""
    await close(writer)
    # A genuine agent-b key, but a hello naming agent-a: refused.
    _, writer, first = await connect(listener.endpoint, requester="agent-a", proves="agent-b")
    assert first["t"] == "reject" and first["code"] == "FORBIDDEN", first
    await close(writer)
    # The project secret itself is not an agent key either.
    reader, writer = await asyncio.open_unix_connection(listener.endpoint)
    nonce_app = await read_frame(reader)
    raw = loopback.bridge_proof(KEY, nonce_app, secrets.token_bytes(32), "agent-a")
    writer.write(loopback.encode_frame(raw))
    assert await asyncio.wait_for(reader.read(), 5) == b""
    await close(writer)
