"""The launch guard table of DESIGN.md §5, row by row, with fakes."""

import asyncio

import pytest

from idea.application.launch_agent import LaunchRequest
from idea.domain.agent import Agent
from idea.domain.errors import AgentAlreadyRunning, Invalid, NotFound, Unavailable, Untrusted
from idea.domain.events import AgentLaunched, AgentStopped
from idea.domain.profile import Mode
from tests.worlds import bootstrap_test_app


class World:
    def __init__(self):
        self.w = bootstrap_test_app(
            Agent(id="id-chat", name="chat", profile="claude"),
            Agent(id="id-sh", name="sh", profile="shell"),
        )
        self.agents, self.sessions, self.starter = self.w.agents, self.w.sessions, self.w.starter
        self.bus, self.events = self.w.bus, self.w.events
        self.launch, self.stop = self.w.launch, self.w.stop


@pytest.fixture
async def world():
    w = World()
    yield w
    await w.stop.stop_all("test over")


async def test_not_running_starts_and_publishes(world):
    result = await world.launch(LaunchRequest("chat", node_id="n1"))
    assert result.started
    assert result.mode is Mode.STRUCTURED
    assert world.sessions.host_node("id-chat") == "n1"
    assert [e for e in world.events if isinstance(e, AgentLaunched)] == [
        AgentLaunched(
            "id-chat", "chat", Mode.STRUCTURED, "n1", result.entry.session.conversation_id
        )
    ]


async def test_same_cell_rebinds_without_respawn(world):
    first = await world.launch(LaunchRequest("sh", node_id="n1"))
    again = await world.launch(LaunchRequest("sh", node_id="n1"))
    assert not again.started
    assert again.entry.session is first.entry.session
    assert len(world.starter.starts) == 1


async def test_new_launch_in_another_cell_is_refused_with_the_host(world):
    await world.launch(LaunchRequest("chat", node_id="n1"))
    with pytest.raises(AgentAlreadyRunning) as err:
        await world.launch(LaunchRequest("chat", node_id="n2"))
    assert err.value.code == "AGENT_ALREADY_RUNNING"
    assert err.value.details() == {"agent_id": "id-chat", "node_id": "n1"}
    assert world.sessions.host_node("id-chat") == "n1"
    assert len(world.starter.starts) == 1


async def test_refused_across_registries(world):
    await world.launch(LaunchRequest("chat", node_id="n1", mode=Mode.TERMINAL))
    with pytest.raises(AgentAlreadyRunning):
        await world.launch(LaunchRequest("chat", node_id="n2", mode=Mode.STRUCTURED))


async def test_explicit_reattach_moves_the_view(world):
    first = await world.launch(LaunchRequest("sh", node_id="n1"))
    moved = await world.launch(LaunchRequest("sh", node_id="n2", reattach=True))
    assert not moved.started
    assert moved.entry.session is first.entry.session
    assert world.sessions.host_node("id-sh") == "n2"


async def test_background_session_is_adopted_by_a_cell(world):
    background = await world.launch(LaunchRequest("chat"))
    assert background.entry.node_id is None
    shown = await world.launch(LaunchRequest("chat", node_id="n3"))
    assert not shown.started
    assert shown.entry.session is background.entry.session
    assert world.sessions.host_node("id-chat") == "n3"


async def test_background_launch_of_a_live_agent_is_idempotent(world):
    first = await world.launch(LaunchRequest("chat", node_id="n1"))
    again = await world.launch(LaunchRequest("chat"))
    assert not again.started
    assert again.entry.session is first.entry.session
    assert world.sessions.host_node("id-chat") == "n1"


async def test_concurrent_launches_start_one_session(world):
    world.starter.gate = asyncio.Event()
    a = asyncio.create_task(world.launch(LaunchRequest("chat", node_id="n1")))
    b = asyncio.create_task(world.launch(LaunchRequest("chat", node_id="n2")))
    c = asyncio.create_task(world.launch(LaunchRequest("chat")))
    while not world.starter.starts:
        await asyncio.sleep(0)
    world.starter.gate.set()
    results = await asyncio.gather(a, b, c, return_exceptions=True)
    assert len(world.starter.starts) == 1
    assert results[0].started
    assert isinstance(results[1], AgentAlreadyRunning)
    assert results[2].entry.session is results[0].entry.session
    assert len(world.sessions.live_agents()) == 1


async def test_terminal_only_profile_cannot_run_structured(world):
    with pytest.raises(Invalid):
        await world.launch(LaunchRequest("sh", mode=Mode.STRUCTURED))
    assert not world.starter.starts


async def test_unknown_agent(world):
    with pytest.raises(NotFound):
        await world.launch(LaunchRequest("ghost"))


async def test_failed_start_leaves_nothing_behind(world):
    world.starter.missing.add("claude")
    with pytest.raises(Unavailable):
        await world.launch(LaunchRequest("chat", node_id="n1"))
    assert not world.sessions.is_agent_live("id-chat")
    assert world.sessions.launching("id-chat") is None
    world.starter.missing.clear()
    assert (await world.launch(LaunchRequest("chat", node_id="n1"))).started


async def test_an_exited_terminal_is_not_live(world):
    result = await world.launch(LaunchRequest("sh", node_id="n1"))
    result.entry.session.exit(0)
    await result.entry.session.wait()
    assert not world.sessions.is_agent_live("id-sh")
    again = await world.launch(LaunchRequest("sh", node_id="n2"))
    assert again.started


async def test_stop_kills_unregisters_and_publishes(world):
    result = await world.launch(LaunchRequest("chat", node_id="n1"))
    assert await world.stop("chat")
    assert not world.sessions.is_agent_live("id-chat")
    assert not result.entry.session.alive
    assert any(isinstance(e, AgentStopped) for e in world.events)
    assert not await world.stop("chat")
    with pytest.raises(NotFound):
        await world.stop("ghost")


async def test_a_restricted_project_starts_nothing_launch_or_ask(world):
    world.w.trust.restricted = True
    with pytest.raises(Untrusted, match="start agent chat"):
        await world.launch(LaunchRequest("chat", node_id="n1"))
    with pytest.raises(Untrusted):
        await world.w.ask("chat", "hello")
    assert world.starter.starts == []
    world.w.trust.restricted = False
    assert (await world.launch(LaunchRequest("chat", node_id="n1"))).started
