"""Hibernation (DESIGN.md §15): idle structured agents are stopped, conversation kept, and the
next ask resumes them; busy, queued and terminal agents are left alone."""

from __future__ import annotations

import asyncio

import pytest

from idea.application.launch_agent import LaunchRequest
from idea.domain.agent import Agent
from idea.domain.events import AgentHibernated, AgentStopped
from idea.domain.policy import Policy
from idea.domain.profile import Mode
from tests.waiting import until
from tests.worlds import AppWorld, bootstrap_test_app

pytestmark = pytest.mark.timeout(30)

AFTER_S = 60.0


@pytest.fixture
async def world():
    w = bootstrap_test_app(
        *(Agent(id=f"id-{n}", name=n, profile="claude") for n in "abc"),
        policy=Policy(hibernate_after_s=AFTER_S),
    )
    yield w
    await w.close()


def idle_for(world: AppWorld, seconds: float) -> None:
    world.clock.advance(round(seconds * 1000))


async def test_an_idle_structured_agent_hibernates_and_the_next_ask_resumes_its_conversation(
    world,
):
    await world.launch(LaunchRequest("a", node_id="leaf-1", mode=Mode.STRUCTURED))
    assert await world.ask("a", "remember 7") == "echo: remember 7"
    first = world.sessions.structured_session("id-a")
    assert first is not None
    conversation = first.conversation_id
    idle_for(world, AFTER_S - 1)
    assert await world.core.hibernation.check() == []  # not yet
    idle_for(world, 2)
    assert await world.core.hibernation.check() == ["a"]
    assert world.sessions.structured_session("id-a") is None
    assert first.closed_count == 1  # its process tree is gone
    assert world.core.hibernation.is_asleep("id-a")
    assert [type(e) for e in world.events if isinstance(e, AgentHibernated | AgentStopped)] == [
        AgentStopped,
        AgentHibernated,
    ]
    # The next ask wakes it in its cell, resuming the same conversation.
    assert await world.ask("a", "what was it?") == "echo: what was it?"
    assert world.starter.starts[-1] == ("a", "structured", conversation)
    assert world.sessions.host_node("id-a") == "leaf-1"
    assert not world.core.hibernation.is_asleep("id-a")


async def test_busy_queued_and_terminal_agents_are_never_hibernated(world):
    await world.launch(LaunchRequest("b", node_id="leaf-1", mode=Mode.TERMINAL))
    await world.ask("a", "warm up")
    session = world.sessions.structured_session("id-a")
    assert session is not None
    session.gate = asyncio.Event()
    busy = asyncio.create_task(world.ask("a", "long turn"))
    queued = asyncio.create_task(world.ask("a", "next"))
    await until(lambda: world.ask.queue_length("id-a") == 2)
    idle_for(world, AFTER_S * 10)
    assert await world.core.hibernation.check() == []
    session.gate.set()
    assert await busy == "echo: long turn"
    assert await queued == "echo: next"
    assert world.sessions.terminal_session("id-b") is not None  # a terminal: never
    assert world.sessions.structured_session("id-a") is session


async def test_an_agent_that_worked_while_the_check_ran_stays_awake(world):
    await world.ask("a", "warm up")
    await world.ask("b", "warm up")
    a = world.sessions.structured_session("id-a")
    b = world.sessions.structured_session("id-b")
    assert a is not None and b is not None
    idle_for(world, AFTER_S + 1)
    a.close_gate = asyncio.Event()  # stopping a takes a while
    check = asyncio.create_task(world.core.hibernation.check())
    await until(lambda: a.closed_count == 1)
    # Both were due when the check began; b works while a is being stopped.
    assert await world.ask("b", "fresh work") == "echo: fresh work"
    a.close_gate.set()
    assert await check == ["a"]
    assert world.sessions.structured_session("id-b") is b


async def test_no_hibernation_when_the_policy_says_never():
    world = bootstrap_test_app(
        Agent(id="id-a", name="a", profile="claude"), policy=Policy(hibernate_after_s=None)
    )
    try:
        await world.ask("a", "hi")
        idle_for(world, 10**6)
        assert await world.core.hibernation.check() == []
        assert world.core.hibernation.check_every_s() is None
    finally:
        await world.close()


async def test_an_agent_the_user_stops_is_not_asleep_any_more(world):
    await world.ask("a", "hi")
    idle_for(world, AFTER_S + 1)
    assert await world.core.hibernation.check() == ["a"]
    await world.launch(LaunchRequest("a", mode=Mode.STRUCTURED))  # the user starts it
    assert not world.core.hibernation.is_asleep("id-a")
    await world.stop("a")
    assert not world.core.hibernation.is_asleep("id-a")
