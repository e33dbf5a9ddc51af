"""``agent.spawn`` follows the launch rule (the seeds' R0a), whatever door it comes through, and a
visible spawn binds its cell in the layout."""

import pytest

from idea.application.launch_agent import LaunchRequest
from idea.domain import commands as c
from idea.domain.agent import Agent
from idea.domain.errors import AgentAlreadyRunning, Invalid, NotFound
from idea.domain.events import LayoutChanged
from idea.domain.layout import Layouts
from idea.domain.orchestrator_request import validate_request
from tests.worlds import bootstrap_test_app

TWO_CELLS = Layouts.empty("t1", "left").split("left", "row", "right", "s1")


@pytest.fixture
async def world():
    w = bootstrap_test_app(
        Agent(id="id-bot", name="bot", profile="claude"),
        Agent(id="id-sh", name="sh", profile="shell"),
        layouts=TWO_CELLS,
    )
    yield w
    await w.close()


async def spawn(world, source=c.Source.FILE, **fields):
    request = {"action": "agent.spawn", "name": "bot", "visible": True, **fields}
    return await world.service.dispatch(validate_request(request), source)


async def test_a_cell_that_does_not_exist_is_not_found_naming_node_id_and_nothing_starts(world):
    with pytest.raises(NotFound) as err:
        await spawn(world, nodeId="no-such-cell")
    assert err.value.message.startswith("nodeId: ")
    assert world.starter.starts == []
    assert not world.sessions.is_agent_live("id-bot")
    with pytest.raises(NotFound):
        await spawn(world, name="newcomer", nodeId="no-such-cell")
    assert not world.agents.exists("newcomer")  # not created either


async def test_a_visible_spawn_binds_its_cell_persisted_and_pushed(world):
    out = await spawn(world, nodeId="right")
    assert "in cell right" in out.detail
    leaf = world.layouts.layouts.find_leaf("right")
    assert (leaf.agent, leaf.view) == ("id-bot", "chat")  # claude runs structured by default
    assert world.layouts.saves == 1
    assert any(isinstance(e, LayoutChanged) for e in world.events)
    assert world.sessions.host_node("id-bot") == "right"
    await spawn(world, name="sh", nodeId="left")
    assert world.layouts.layouts.find_leaf("left").view == "terminal"


async def test_an_agent_live_in_another_cell_is_not_stolen(world):
    await world.launch(LaunchRequest("bot", node_id="left"))
    world.layouts.layouts = world.layouts.layouts.bind("left", "id-bot", "chat")
    with pytest.raises(AgentAlreadyRunning) as err:
        await spawn(world, nodeId="right")
    assert err.value.details() == {"agent_id": "id-bot", "node_id": "left"}
    assert world.sessions.host_node("id-bot") == "left"
    assert world.layouts.layouts.find_leaf("right").agent is None
    assert len(world.starter.starts) == 1


async def test_the_same_cell_rebinds_without_a_second_session(world):
    await spawn(world, nodeId="right")
    again = await spawn(world, nodeId="right")
    assert "shown agent bot in cell right" in again.detail
    assert len(world.starter.starts) == 1
    assert world.layouts.layouts.find_leaf("right").agent == "id-bot"


async def test_a_background_agent_is_adopted_by_the_cell_a_spawn_names(world):
    await spawn(world, visible=False)
    assert world.sessions.host_node("id-bot") is None
    await spawn(world, nodeId="left")
    assert world.sessions.host_node("id-bot") == "left"
    assert world.layouts.layouts.find_leaf("left").agent == "id-bot"
    assert len(world.starter.starts) == 1


async def test_spawning_into_a_cell_that_showed_another_live_agent_sends_that_one_background(
    world,
):
    await spawn(world, name="sh", nodeId="left")
    await spawn(world, nodeId="left")
    assert world.sessions.host_node("id-bot") == "left"
    assert world.sessions.is_agent_live("id-sh")
    assert world.sessions.host_node("id-sh") is None  # runs on, no longer pointing at left


async def test_a_split_is_no_cell(world):
    with pytest.raises(Invalid) as err:
        await spawn(world, nodeId="s1")
    assert err.value.message.startswith("nodeId: ")
