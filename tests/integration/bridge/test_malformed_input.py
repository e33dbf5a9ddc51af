"""Malformed input through the real bridge to the real endpoint: the right JSON-RPC errors, and
both the connection and the app keep working."""

import asyncio
import json
import os
import sys

import pytest

from idea.app.bootstrap import open_project
from idea.domain.agent import Agent
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.mcp_clients import declared_bridge

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix socket endpoint")


@pytest.fixture
async def runtime(tmp_path):
    rt = await open_project(tmp_path, starter=FakeSessionStarter())
    rt.services.agents.save(Agent(id="id-caller", name="caller", profile="claude"))
    yield rt
    await rt.close()


class Bridge:
    def __init__(self, proc):
        self.proc = proc

    @classmethod
    async def start(cls, runtime):
        entry = declared_bridge(runtime, "id-caller")
        proc = await asyncio.create_subprocess_exec(
            entry.command,
            *entry.args,
            env={**os.environ, **entry.env},
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=8 * 1024 * 1024,
        )
        return cls(proc)

    async def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        await self.proc.stdin.drain()

    async def answer(self) -> dict:
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout=10)
        assert line.endswith(b"\n"), line
        return json.loads(line)

    async def close(self) -> int:
        self.proc.stdin.close()
        return await asyncio.wait_for(self.proc.wait(), timeout=10)


def request(method, params=None, request_id=1):
    return json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}
    ).encode()


@pytest.mark.timeout(60)
async def test_malformed_lines_get_errors_and_the_connection_survives(runtime):
    bridge = await Bridge.start(runtime)
    try:
        cases = [
            (b"this is not json", -32700, None),
            (b"[1, 2, 3]", -32600, None),
            (json.dumps([{"jsonrpc": "2.0", "id": 9, "method": "ping"}]).encode(), -32600, None),
            (b'{"id": 3, "method": "ping"}', -32600, 3),
            (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600, None),
            (request("resources/list", request_id="s-1"), -32601, "s-1"),
            (request("server/discover", request_id=12), -32601, 12),
            (request("tools/call", {"name": 42}, request_id=13), -32602, 13),
            (request("tools/call", {"name": "idea_ask_agent", "arguments": "x"}, 14), -32602, 14),
            (
                b'{"jsonrpc": "2.0", "id": 15, "method": "ping", "params": '
                + b'"'
                + b"x" * 1_000_000
                + b'"}',
                None,
                15,
            ),
        ]
        for line, code, expected_id in cases:
            await bridge.send(line)
            answer = await bridge.answer()
            assert answer["jsonrpc"] == "2.0"
            assert answer["id"] == expected_id, line[:60]
            if code is None:
                assert "result" in answer or "error" in answer
            else:
                assert answer["error"]["code"] == code, line[:60]
        await bridge.send(
            request(
                "initialize",
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
                "init",
            )
        )
        init = await bridge.answer()
        assert init["id"] == "init"
        assert init["result"]["serverInfo"]["name"] == "idea"
        await bridge.send(request("tools/call", {"name": "idea_list_agents", "arguments": {}}, 99))
        listed = await bridge.answer()
        assert listed["id"] == 99
        assert listed["result"]["isError"] is False
    finally:
        assert await bridge.close() == 0
    # The app survived: a new connection is served.
    again = await Bridge.start(runtime)
    try:
        await again.send(request("ping", request_id=1))
        assert (await again.answer())["result"] == {}
    finally:
        assert await again.close() == 0


@pytest.mark.timeout(60)
async def test_answers_in_flight_when_stdin_closes_are_still_delivered(runtime):
    init = request(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
        1,
    )
    for _ in range(5):
        bridge = await Bridge.start(runtime)
        bridge.proc.stdin.write(init + b"\n" + request("ping", request_id=2) + b"\n")
        bridge.proc.stdin.close()  # a piped client: everything written, then EOF at once
        out = await asyncio.wait_for(bridge.proc.stdout.read(), timeout=10)
        assert await asyncio.wait_for(bridge.proc.wait(), timeout=10) == 0
        assert sorted(json.loads(line)["id"] for line in out.splitlines()) == [1, 2]
