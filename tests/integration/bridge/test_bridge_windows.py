"""The real ``idea mcp-server`` process on Windows (its relay with a stdin thread over the
overlapped pipe channel) against the app's named-pipe listener: full duplex, stdin EOF, the app
going away mid-request, and no app at all. Each bridge is killed and reaped at the end."""

from __future__ import annotations

import asyncio
import json
import secrets
import subprocess
import sys
import time

import pytest

from idea.endpoint import loopback
from idea.infrastructure.doors.mcp.listener import McpListener
from tests.windows_lane import windows_only

pytestmark = [windows_only, pytest.mark.timeout(60)]

KEY = secrets.token_bytes(32)
PROJECT = "project-1"
AGENT = "agent-a"


class SlowEchoHandler:
    """A request ``{"id": N, "method": "echo"}`` gets a progress notification at once and its
    result only on the next request; ``hang`` is never answered."""

    def __init__(self, requester, send):
        self.send = send
        self.held: list[dict] = []

    def receive(self, message):
        request = json.loads(message)
        if "id" not in request or request.get("method") == "hang":
            return
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress"}).encode())
        for held in self.held:
            self.send(json.dumps({"jsonrpc": "2.0", "id": held["id"], "result": {}}).encode())
        self.held = [request]

    async def close(self):
        pass


@pytest.fixture
async def listener():
    name = rf"\\.\pipe\idea-test-{secrets.token_hex(8)}"
    lst = McpListener(name, KEY, PROJECT, lambda a: a == AGENT, SlowEchoHandler)
    await lst.start()
    yield lst
    await lst.stop()


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "agent.key"
    path.write_bytes(loopback.agent_key(KEY, AGENT))
    return path


def start_bridge(endpoint: str, key_file) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "idea", "mcp-server", "--endpoint", endpoint]
    argv += ["--project", PROJECT, "--requester", AGENT, "--key-file", str(key_file)]
    return subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


async def read_message(proc) -> dict:
    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 15)
    assert line, "the bridge closed stdout"
    return json.loads(line)


def send(proc, message: dict) -> None:
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


async def finish(proc) -> tuple[int, bytes]:
    try:
        code = await asyncio.to_thread(proc.wait, 15)
        return code, await asyncio.to_thread(proc.stderr.read)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()


async def test_full_duplex_then_stdin_eof_is_a_clean_exit(listener, key_file):
    proc = start_bridge(listener.endpoint, key_file)
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "echo"})
    # The notification arrives while request 1 is still pending.
    assert await read_message(proc) == {"jsonrpc": "2.0", "method": "notifications/progress"}
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "echo"})
    assert (await read_message(proc))["method"] == "notifications/progress"
    assert await read_message(proc) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    proc.stdin.close()
    code, _ = await finish(proc)
    assert code == 0


async def test_the_app_going_away_fails_the_pending_request_and_exits(listener, key_file):
    proc = start_bridge(listener.endpoint, key_file)
    send(proc, {"jsonrpc": "2.0", "id": 7, "method": "echo"})
    await read_message(proc)  # the progress: the bridge is connected and relaying
    send(proc, {"jsonrpc": "2.0", "id": 8, "method": "hang"})
    await listener.stop()
    answers = [await read_message(proc), await read_message(proc)]
    assert {a["id"] for a in answers} == {7, 8}
    assert all("error" in a for a in answers)
    code, stderr = await finish(proc)
    assert code not in (0, None)
    assert b"2 pending request(s) failed" in stderr


async def test_no_app_is_one_stderr_line_and_a_prompt_exit(key_file):
    started = time.monotonic()
    proc = start_bridge(rf"\\.\pipe\idea-nobody-{secrets.token_hex(4)}", key_file)
    code, stderr = await finish(proc)
    assert code == 1
    assert time.monotonic() - started < 5  # ~2 s of DESIGN.md §9.2 plus wine's process start
    lines = stderr.decode("utf-8").strip().splitlines()
    assert len(lines) == 1 and "no IdeA endpoint" in lines[0], lines
    assert proc.stdout.closed
