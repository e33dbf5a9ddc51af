"""The official MCP SDK client, spawning the real bridge from IdeA's own declaration, against a
headless project runtime with fake agents behind it."""

import asyncio
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from idea.application.launch_agent import LaunchRequest
from idea.domain.agent import Agent
from idea.domain.policy import Policy
from idea.domain.profile import Mode
from idea.endpoint.loopback import agent_key
from tests.mcp_clients import IDEA_TOOLS, declared_bridge, fake_agents_runtime

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix socket endpoint")


@pytest.fixture
async def runtime(tmp_path):
    async with fake_agents_runtime(tmp_path, Agent(id="id-sh", name="sh", profile="shell")) as rt:
        yield rt


def server_params(runtime, requester: str) -> StdioServerParameters:
    """Exactly what IdeA declares to an agent's CLI (the same function the launch uses)."""
    entry = declared_bridge(runtime, requester)
    env = {"PATH": os.environ.get("PATH", ""), **entry.env}
    return StdioServerParameters(command=entry.command, args=list(entry.args), env=env)


def ask_rows(runtime) -> list[dict]:
    """The delegation log's rows of asks."""
    lines = Path(runtime.services.paths.delegations_log).read_text().splitlines()
    return [json.loads(line) for line in lines if '"agent.message"' in line]


def text_of(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


@pytest.mark.timeout(60)
async def test_sdk_client_lists_and_calls_the_tools(runtime):
    await runtime.launch(LaunchRequest("sh", node_id="cell-1", mode=Mode.TERMINAL))
    async with (
        stdio_client(server_params(runtime, "id-caller")) as (read, write),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        assert init.server_info.name == "idea"
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == IDEA_TOOLS
        for tool in tools.values():
            assert tool.input_schema["type"] == "object"
            assert tool.description

        listed = await session.call_tool("idea_list_agents", {})
        assert not listed.is_error
        names = {a["name"] for a in json.loads(text_of(listed))["agents"]}
        assert names == {"caller", "helper", "sh"}

        answer = await session.call_tool("idea_ask_agent", {"target": "helper", "task": "hi"})
        assert not answer.is_error
        assert text_of(answer) == "echo: hi"

        terminal = await session.call_tool("idea_ask_agent", {"target": "sh", "task": "hi"})
        assert terminal.is_error
        assert text_of(terminal).startswith("INVALID")

        state = await session.call_tool("idea_workstate_set", {"status": "working"})
        assert not state.is_error

    board = runtime.services.work_state.load()
    assert board.rows["id-caller"].status.value == "working"
    lines = [
        json.loads(line)
        for line in Path(runtime.services.paths.delegations_log).read_text().splitlines()
    ]
    ask = next(line for line in lines if line["action"] == "agent.message" and line["ok"])
    assert (ask["source"], ask["requester"], ask["target"]) == ("mcp", "id-caller", "helper")


@pytest.mark.timeout(30)
async def test_unknown_requester_is_refused_by_the_real_endpoint(runtime):
    params = server_params(runtime, "id-nobody")
    proc = await asyncio.create_subprocess_exec(
        params.command,
        *params.args,
        env=params.env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(b""), timeout=10)
    assert proc.returncode != 0
    assert out == b""
    assert "NOT_FOUND" in err.decode()


@pytest.mark.timeout(60)
async def test_governance_refusals_reach_the_sdk_client_as_typed_tool_errors(runtime):
    """asks_from and max_depth through the real bridge: a tool error whose text starts with
    the code; the delegation log row names the chain and depth (DESIGN.md §15)."""
    helper = runtime.services.agents.get("helper")
    runtime.services.agents.save(replace(helper, asks_from=("sh",)))
    async with (
        stdio_client(server_params(runtime, "id-caller")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        refused = await session.call_tool("idea_ask_agent", {"target": "helper", "task": "hi"})
        assert refused.is_error
        assert text_of(refused).startswith("FORBIDDEN"), text_of(refused)
        runtime.services.agents.save(helper)  # anyone may ask again
        runtime.services.policy.save(Policy(max_depth=1))
        # caller's ask is a root (depth 1): allowed; the board's chain ends with it.
        answer = await session.call_tool("idea_ask_agent", {"target": "helper", "task": "hi"})
        assert text_of(answer) == "echo: hi"
    rows = ask_rows(runtime)
    assert [(r["code"], r["depth"]) for r in rows] == [("FORBIDDEN", 1), (None, 1)]
    assert rows[0]["chain_id"] != rows[1]["chain_id"]
    assert runtime.ask.chains.in_flight() == []


@pytest.mark.timeout(60)
async def test_an_ask_with_a_key_another_agent_derived_is_served_but_never_logged_as_proven(
    runtime,
):
    """Every agent runs as the user: caller can read the project secret and present sh's key,
    so asks_from cannot stop it (a limit README states) and its log row is not proven."""
    helper = runtime.services.agents.get("helper")
    runtime.services.agents.save(replace(helper, asks_from=("sh",)))
    secret = runtime.services.paths.mcp_key.read_bytes()  # what any agent of the user can read
    forged = runtime.services.paths.run_dir("id-caller") / "forged.key"
    forged.parent.mkdir(parents=True, exist_ok=True)
    forged.write_bytes(agent_key(secret, "id-sh"))
    params = server_params(runtime, "id-sh")
    args = list(params.args)
    args[args.index("--key-file") + 1] = str(forged)  # not the key IdeA gave sh
    params = params.model_copy(update={"args": args})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        answer = await session.call_tool("idea_ask_agent", {"target": "helper", "task": "hi"})
        assert text_of(answer) == "echo: hi"
    rows = ask_rows(runtime)
    assert [(r["requester"], r["requester_claimed"], r["requester_proven"]) for r in rows] == [
        ("id-sh", False, False)
    ]
