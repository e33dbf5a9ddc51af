"""``HostServer`` with fakes: in-memory streams for the link, the fake starter for the agents.

A terminal's output carries where it ends; while the link is behind, output is dropped (never
queued without bound) and the scrollback, with its end, fills the gap. Hostile frames end the
link with nothing started.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from idea import __version__
from idea.domain.builtin_profiles import builtin_profiles
from idea.infrastructure.remote import wire
from idea.infrastructure.remote.host_server import OUT_HIGH_WATER, HostServer
from tests.fakes.ports.session_starter import FakeSessionStarter

SHELL = builtin_profiles("/bin/sh")["shell"]
AGENT = "---\nid: id-sh\nname: sh\nprofile: shell\n---\n"


class Transport:
    def __init__(self) -> None:
        self.backlog = 0

    def get_write_buffer_size(self) -> int:
        return self.backlog


class Writer:
    """A link's write side: what was sent, decoded, and a backlog the test sets."""

    def __init__(self) -> None:
        self.transport = Transport()
        self.sent: list[dict[str, Any]] = []
        self._buffer = asyncio.StreamReader()

    def write(self, data: bytes) -> None:
        self._buffer.feed_data(data)

    async def drain(self) -> None:
        return None

    async def messages(self) -> list[dict[str, Any]]:
        while True:
            try:
                message = await asyncio.wait_for(wire.read_message(self._buffer), 0.05)
            except TimeoutError:
                return self.sent
            self.sent.append(message)


def link() -> tuple[asyncio.StreamReader, Writer]:
    return asyncio.StreamReader(), Writer()


def hello() -> bytes:
    return wire.encode({"t": "hello", "v": wire.VERSION, "version": __version__, "project": "p"})


@pytest.fixture
def starter() -> FakeSessionStarter:
    return FakeSessionStarter()


@pytest.fixture
def server(starter: FakeSessionStarter) -> HostServer:
    return HostServer(lambda *_: starter, lambda _project: "/nowhere.sock", grace_s=60)


async def test_output_under_backlog_is_dropped_and_the_scrollback_fills_the_gap(
    server: HostServer, starter: FakeSessionStarter
) -> None:
    reader, writer = link()
    reader.feed_data(hello())
    start = {"t": "start_terminal", "rid": "r1", "seq": 1, "sid": "s1", "agent_name": "sh"}
    start |= {"agent": AGENT, "profile_name": "shell", "profile": SHELL.to_json()}
    reader.feed_data(wire.encode(start | {"rows": 24, "cols": 80}))
    attached = asyncio.ensure_future(server.attach(reader, writer))
    sent = await writer.messages()
    assert [m["t"] for m in sent][:1] == ["welcome"]
    assert any(m["t"] == "r" and m["rid"] == "r1" and m["ok"] for m in sent)
    terminal = starter.terminals.sessions[-1]

    terminal.emit("one ")
    await writer.messages()
    writer.transport.backlog = OUT_HIGH_WATER + 1  # the link is behind: output waits
    terminal.emit("two ")
    await writer.messages()
    writer.transport.backlog = 0
    terminal.emit("three")
    outs = [m for m in await writer.messages() if m["t"] == "out"]
    assert [(m["data"], m["end"]) for m in outs] == [("one ", 4), ("three", 13)]
    reader.feed_data(wire.encode({"t": "scrollback", "rid": "r2", "seq": 2, "sid": "s1"}))
    (answer,) = [m for m in await writer.messages() if m.get("rid") == "r2"]
    assert answer["value"]["end"] == 13
    assert answer["value"]["data"].endswith("one two three")
    reader.feed_eof()
    await attached
    await server.close()
    assert terminal.exit_code is not None, "closing stops the agents"


async def test_a_hostile_frame_ends_the_link_and_starts_nothing(
    server: HostServer, starter: FakeSessionStarter
) -> None:
    reader, writer = link()
    reader.feed_data(hello())
    reader.feed_data(b"\x7f\xff\xff\xff")  # a frame of 2 GiB announced
    await asyncio.wait_for(server.attach(reader, writer), 5)
    assert starter.starts == []
    reader, writer = link()
    reader.feed_data(hello())
    bad = {"t": "start_terminal", "rid": "r1", "seq": 1, "sid": "s1", "agent_name": "../x"}
    reader.feed_data(wire.encode(bad | {"agent": AGENT, "profile_name": "shell", "profile": {}}))
    attached = asyncio.ensure_future(server.attach(reader, writer))
    (answer,) = [m for m in await writer.messages() if m.get("rid") == "r1"]
    reader.feed_eof()
    await asyncio.wait_for(attached, 5)
    assert answer["ok"] is False and answer["error"]["code"] in ("INVALID", "MISSING_FIELD")
    assert starter.starts == []
    await server.close()


@pytest.mark.timeout(10)
async def test_close_soon_and_an_ended_grace_stop_the_server_in_a_task_it_owns(
    starter: FakeSessionStarter,
) -> None:
    signalled = HostServer(lambda *_: starter, lambda _project: "/nowhere.sock", grace_s=60)
    signalled.close_soon()  # what SIGTERM does in the daemon
    await asyncio.wait_for(signalled.done.wait(), 5)
    idle = HostServer(lambda *_: starter, lambda _project: "/nowhere.sock", grace_s=0)
    idle.start_grace()  # nobody attaches
    await asyncio.wait_for(idle.done.wait(), 5)
