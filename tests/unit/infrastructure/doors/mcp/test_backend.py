"""The MCP backend's agent list: what it shows, and that it is rebuilt whenever any of it changed
(the same list object is handed out again only while nothing did)."""

import os

import pytest

from idea.app.bootstrap import open_project
from idea.application.launch_agent import LaunchRequest
from idea.domain.agent import Agent
from idea.domain.profile import Mode
from idea.domain.work_state import Status, WorkRow
from tests.fakes.ports.session_starter import FakeSessionStarter


@pytest.fixture
async def runtime(tmp_path):
    rt = await open_project(tmp_path, starter=FakeSessionStarter(), file_door=False)
    rt.services.agents.save(Agent(id="id-bob", name="bob", profile="claude", description="d"))
    rt.services.agents.save(Agent(id="id-sh", name="sh", profile="shell"))
    yield rt
    await rt.close()


def by_name(listed):
    return {row["name"]: row for row in listed}


async def test_rows_and_the_same_list_while_nothing_changed(runtime):
    backend = runtime.mcp_backend
    first = backend.list_agents()
    assert by_name(first) == {
        "bob": {
            "name": "bob",
            "id": "id-bob",
            "profile": "claude",
            "mode": "structured",
            "description": "d",
            "live": False,
            "status": "idle",
        },
        "sh": {
            "name": "sh",
            "id": "id-sh",
            "profile": "shell",
            "mode": "terminal",
            "description": None,
            "live": False,
            "status": "idle",
        },
    }
    assert backend.list_agents() is first


async def test_a_new_agent_is_listed(runtime):
    backend = runtime.mcp_backend
    backend.list_agents()
    runtime.services.agents.save(Agent(id="id-eve", name="eve", profile="claude"))
    assert set(by_name(backend.list_agents())) == {"bob", "sh", "eve"}


async def test_an_agent_file_edited_in_place_is_seen(runtime):
    backend = runtime.mcp_backend
    backend.list_agents()
    path = runtime.services.paths.agent_file("bob")
    text = path.read_text(encoding="utf-8").replace("description: d", "description: changed")
    with open(path, "r+", encoding="utf-8") as file:  # in place: same inode
        file.write(text)
        file.truncate()
    os.utime(path, ns=(1, 1))  # and an mtime the cache cannot have seen
    assert by_name(backend.list_agents())["bob"]["description"] == "changed"


async def test_a_status_change_is_seen(runtime):
    backend = runtime.mcp_backend
    backend.list_agents()
    row = WorkRow("id-bob", Status.WORKING, updated_at_ms=1)
    runtime.services.work_state.update(lambda state: state.merge(row))
    assert by_name(backend.list_agents())["bob"]["status"] == "working"


async def test_a_launched_agent_is_live(runtime):
    backend = runtime.mcp_backend
    backend.list_agents()
    await runtime.launch(LaunchRequest("sh", node_id="cell-1", mode=Mode.TERMINAL))
    assert by_name(backend.list_agents())["sh"]["live"] is True
