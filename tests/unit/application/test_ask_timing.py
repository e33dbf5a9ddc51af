"""Queue wait vs turn time (DESIGN.md §15): each ask's log row says how long it waited for its
turn (``queued_ms``) beside its whole ``duration_ms``; the hop an agent serves says since when."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from idea.application.project_work_state import serving_json
from idea.domain import commands as c
from idea.domain.agent import Agent
from idea.domain.errors import Forbidden, IdeaTimeout
from tests.fakes.ports.agent_session import FakeAgentSession
from tests.waiting import until
from tests.worlds import AppWorld, bootstrap_test_app

pytestmark = pytest.mark.timeout(30)


def agent(name: str, **kw: object) -> Agent:
    return Agent(id=f"id-{name}", name=name, profile="claude", **kw)  # type: ignore[arg-type]


async def ask(world: AppWorld, target: str, task: str = "go", requester: str | None = None) -> str:
    outcome = await world.service.dispatch(
        c.AskAgent(target=target, task=task),
        c.Source.UI if requester is None else c.Source.MCP,
        requester_id=requester,
    )
    return outcome.reply or ""


def rows(world: AppWorld) -> dict[str, dict]:
    """The asks' log rows by their prompt."""
    asks = [r for r in world.log.records if r["action"] == "agent.message"]
    return {r["prompt"]: r for r in asks}


async def gated(world: AppWorld, name: str) -> tuple[FakeAgentSession, asyncio.Event]:
    """The agent's session, started, with its next turns held until the event is set."""
    await world.ask(name, "warm up")
    session = world.sessions.structured_session(f"id-{name}")
    assert isinstance(session, FakeAgentSession)
    gate = asyncio.Event()
    session.gate = gate
    return session, gate


@pytest.fixture
async def world():
    w = bootstrap_test_app(agent("a"), agent("b", asks_from=("a",)), agent("c"))
    yield w
    await w.close()


async def test_an_ask_to_an_idle_agent_waits_nothing_and_its_turn_is_its_duration(world):
    session, gate = await gated(world, "a")
    answer = asyncio.create_task(ask(world, "a", "think"))
    await until(lambda: session.busy)
    world.clock.advance(2_000)  # the turn takes 2 s
    gate.set()
    assert await answer == "echo: think"
    row = rows(world)["think"]
    assert (row["queued_ms"], row["duration_ms"]) == (0, 2_000)


async def test_an_ask_behind_another_reads_as_queue_wait_then_a_short_turn(world):
    session, gate = await gated(world, "a")
    first = asyncio.create_task(ask(world, "a", "first"))
    await until(lambda: session.busy)
    second = asyncio.create_task(ask(world, "a", "second", requester="id-c"))
    await until(lambda: world.ask.queue_length("id-a") == 2)
    world.clock.advance(1_500)  # first's turn runs; second waits in a's line
    gate.set()
    await asyncio.gather(first, second)
    logged = rows(world)
    assert (logged["first"]["queued_ms"], logged["first"]["duration_ms"]) == (0, 1_500)
    assert (logged["second"]["queued_ms"], logged["second"]["duration_ms"]) == (1_500, 1_500)


async def test_an_ask_that_timed_out_in_the_queue_waited_all_its_time():
    world = bootstrap_test_app(agent("a"), queue_cap_s=0.2)
    try:
        session, _gate = await gated(world, "a")
        held = asyncio.create_task(ask(world, "a", "held"))
        await until(lambda: session.busy)
        late = asyncio.create_task(ask(world, "a", "late"))
        await until(lambda: world.ask.queue_length("id-a") == 2)
        world.clock.advance(700)
        with pytest.raises(IdeaTimeout):
            await late
        row = rows(world)["late"]
        assert (row["code"], row["queued_ms"]) == ("TIMEOUT", 700)
        held.cancel()
        with pytest.raises(asyncio.CancelledError):
            await held
    finally:
        await world.close()


async def test_a_refused_ask_was_never_queued(world):
    with pytest.raises(Forbidden):
        await ask(world, "b", "not you", requester="id-c")
    row = rows(world)["not you"]
    assert (row["code"], row["queued_ms"]) == ("FORBIDDEN", None)


async def test_the_hop_an_agent_serves_says_when_its_turn_started_and_how_long_it_waited(world):
    session, gate = await gated(world, "a")
    first = asyncio.create_task(ask(world, "a", "first"))
    await until(lambda: session.busy)
    second = asyncio.create_task(ask(world, "a", "second"))
    await until(lambda: world.ask.queue_length("id-a") == 2)
    world.clock.advance(300)
    session.gate = None  # the second turn runs through
    gate.set()
    await first
    # Between the turns the clock stood still: the second started 300 ms after it was accepted.
    await second
    assert rows(world)["second"]["queued_ms"] == 300

    gate2 = asyncio.Event()
    session.gate = gate2
    third = asyncio.create_task(ask(world, "a", "third"))
    await until(lambda: session.busy)
    serving = world.ask.serving("id-a")
    assert serving is not None
    shown = serving_json(serving, {"id-a": "a"})
    assert shown["started_at_ms"] == world.clock.now_ms()
    assert shown["queued_ms"] == 0
    assert shown["requester"] is None
    assert shown["source"] == "ui"  # the door, known before the ask ends
    gate2.set()
    await third


async def test_the_asks_waiting_for_an_agent_are_on_its_board_row_oldest_first(world):
    session, gate = await gated(world, "a")
    first = asyncio.create_task(ask(world, "a", "first"))
    await until(lambda: session.busy)
    at = world.clock.now_ms()
    second = asyncio.create_task(ask(world, "a", "second", requester="id-c"))
    await until(lambda: world.ask.queue_length("id-a") == 2)
    world.clock.advance(250)
    third = asyncio.create_task(ask(world, "a", "third"))
    await until(lambda: world.ask.queue_length("id-a") == 3)
    row = await board_row(world, "a")
    assert [
        (w["requester"], w["since_ms"], w["source"], w["depth"], w["prompt"])
        for w in row["waiting"]
    ] == [("c", at, "mcp", 1, "second"), (None, at + 250, "ui", 1, "third")]
    assert row["serving"]["chain_id"] not in {w["chain_id"] for w in row["waiting"]}
    # The next one's turn starts: it leaves the line; a withdrawn one leaves it too.
    third.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await third
    gate2 = session.gate = asyncio.Event()
    gate.set()
    await first
    await until(lambda: session.busy)
    row = await board_row(world, "a")
    assert (row["serving"]["requester"], row["waiting"]) == ("c", [])
    gate2.set()
    await second
    assert world.ask.waiting("id-a") == []


async def board_row(world: AppWorld, name: str) -> dict:
    board = await world.service.dispatch(c.GetProjectWorkState(), c.Source.UI)
    assert board.data is not None
    (row,) = [r for r in board.data["agents"] if r["name"] == name]
    return row
