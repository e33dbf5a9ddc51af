"""A project with an agent on another host, the host being this machine's ``idea host`` (no SSH:
tests/fakes/host_transport.py stands for the channel and the socket forwarding).

The user's ask reaches the remote agent through the orchestrator like any other; the remote
agent's MCP bridge, started from the declaration its host wrote, reaches the project's endpoint
through the forwarded socket and asks a local agent (the official MCP SDK client drives it).
Closing the project stops the remote agent and the host's daemon.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from idea.app.bootstrap import default_starter, project_runtime, project_services
from idea.app.bootstrap.hosts import remote_starter
from idea.app.runtime import ProjectRuntime
from idea.app.ui.rows import agent_rows
from idea.domain.commands import AskAgent, Source
from idea.endpoint.naming import mcp_endpoint
from idea.infrastructure.remote.links import HostLinks
from tests.fakes.host_transport import LocalHost
from tests.paths import fake_claude_program

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the host side is POSIX")


def write_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    ideai = project / ".ideai"
    (ideai / "agents").mkdir(parents=True)
    wrapper = fake_claude_program(tmp_path / "bin" / "fake-claude")
    fake = {"command": [str(wrapper)], "structured": "claude"}
    profiles = {"profiles": {"fake": {**fake, "mcp": {"kind": "flag", "flag": "--mcp-config"}}}}
    (ideai / "profiles.json").write_text(json.dumps(profiles), encoding="utf-8")
    (ideai / "agents" / "far.md").write_text(
        "---\nid: id-far\nname: far\nprofile: fake\nhost: box\n---\nWorks on the box.\n",
        encoding="utf-8",
    )
    (ideai / "agents" / "near.md").write_text(
        "---\nid: id-near\nname: near\nprofile: fake\n---\nWorks here.\n", encoding="utf-8"
    )
    return project


class World:
    def __init__(self, tmp_path: Path) -> None:
        self.project = write_project(tmp_path)
        self.checkout = tmp_path / "checkout"
        self.checkout.mkdir()
        self.argv_log = tmp_path / "argv.jsonl"
        home = tmp_path / "home"
        home.mkdir()
        self.env = {**os.environ, "HOME": str(home), "FAKE_CLAUDE_ARGV_LOG": str(self.argv_log)}
        self.runtime: ProjectRuntime | None = None
        self.host: LocalHost | None = None

    async def open(self) -> ProjectRuntime:
        services = project_services(self.project)
        services.trust.grant()
        endpoint = mcp_endpoint(services.info.id, str(self.project))
        self.host = LocalHost(self.checkout, endpoint, self.env)
        host = self.host

        def connector_for(_name: str):
            return host.connect

        links = HostLinks(connector_for, services.info.id, grace_s=30)
        local = default_starter(services, with_mcp=True, base_env=self.env)
        starter = remote_starter(services, local, links)
        self.runtime = project_runtime(services, starter, hosts=links)
        await self.runtime.open(resume=False, file_door=False, mcp=True)
        return self.runtime

    def starts(self) -> list[dict]:
        return [json.loads(line) for line in self.argv_log.read_text("utf-8").splitlines()]

    async def close(self) -> None:
        if self.runtime is not None:
            await self.runtime.close()
        if self.host is not None:
            await self.host.aclose()


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    w = World(tmp_path)
    try:
        yield w
    finally:
        await w.close()


def bridge_of(start: dict) -> StdioServerParameters:
    """The MCP server the host declared to the remote agent's CLI (its --mcp-config file)."""
    argv = start["argv"]
    config = next(a.split("=", 1)[1] for a in argv if a.startswith("--mcp-config="))
    server = json.loads(Path(config).read_text("utf-8"))["mcpServers"]["idea"]
    env = {"PATH": os.environ.get("PATH", ""), **server.get("env", {})}
    return StdioServerParameters(command=server["command"], args=server["args"], env=env)


def text_of(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


@pytest.mark.timeout(90)
async def test_asks_cross_the_link_both_ways_and_close_stops_the_host(world: World) -> None:
    runtime = await world.open()
    outcome = await runtime.orchestrator.dispatch(AskAgent("far", "hello there"), Source.UI)
    assert outcome.reply == "echo: hello there"
    (start,) = [s for s in world.starts() if s["cwd"] == str(world.checkout)]
    far_row = next(
        r for r in agent_rows(runtime, runtime.services.agents.all()) if r["name"] == "far"
    )
    assert (far_row["host"], far_row["link"]) == ("box", "up")

    # The remote agent's bridge, as its CLI would start it on the host, asks a local agent.
    async with (
        stdio_client(bridge_of(start)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = json.loads(text_of(await session.call_tool("idea_list_agents", {})))
        assert {a["name"] for a in listed["agents"]} == {"far", "near"}
        answer = await session.call_tool(
            "idea_ask_agent", {"target": "near", "task": "from the box"}
        )
        assert not answer.is_error, text_of(answer)
        assert text_of(answer) == "echo: from the box"
    near_starts = [s for s in world.starts() if s["cwd"] == str(world.project)]
    assert near_starts, "the local agent ran here"
    rows = [
        json.loads(line)
        for line in runtime.services.paths.delegations_log.read_text("utf-8").splitlines()
    ]
    asked = next(r for r in rows if r["target"] == "near" and r["ok"])
    assert (asked["source"], asked["requester"]) == ("mcp", "id-far")

    assert world.host is not None
    daemon = world.host.daemon()
    assert daemon is not None
    await runtime.close()
    world.runtime = None
    await asyncio.to_thread(daemon.wait, 15)
    assert world.host.daemon() is None
