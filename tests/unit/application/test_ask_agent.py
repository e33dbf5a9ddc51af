"""AgentAsker, row by row (DESIGN.md §6), plus FIFO/parallelism and cycle detection."""

import asyncio
import itertools

import pytest

from idea.application.launch_agent import LaunchRequest
from idea.domain.agent import Agent
from idea.domain.errors import Conflict, IdeaError, IdeaTimeout, Invalid, NotFound
from idea.domain.events import (
    AgentQueueChanged,
    AgentReplied,
    AgentTurnFinished,
    AgentTurnStarted,
)
from idea.domain.profile import Mode
from tests.fakes.ports.agent_session import FakeAgentSession
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.waiting import until
from tests.worlds import bootstrap_test_app

NAMES = ["a", "b", "c", "d", "sh"]


class TimedSession(FakeAgentSession):
    """Turns take a little simulated work; records intervals and checks no turn overlaps."""

    log: list[tuple[str, str, float, float]] = []  # (agent, prompt, start, end)
    active: dict[str, int] = {}
    hold: dict[str, asyncio.Event] = {}
    ask_from: dict[str, tuple[str, str]] = {}  # agent -> (target, task) it asks during its turn
    world = None

    async def _run(self, prompt):
        loop = asyncio.get_running_loop()
        self.active[self.name] = self.active.get(self.name, 0) + 1
        assert self.active[self.name] == 1, f"{self.name} got overlapping turns"
        start = loop.time()
        try:
            if "SLOW" in prompt:
                await asyncio.Event().wait()
            if self.name in self.hold:
                await self.hold[self.name].wait()
            if self.name in self.ask_from:
                target, task = self.ask_from[self.name]
                try:
                    answer = await self.world.ask(target, task, requester_id=f"id-{self.name}")
                except IdeaError as exc:  # what a tool result tells the model
                    answer = f"{exc.code} {exc.message}"
                prompt = f"{prompt} <- {answer}"
            for _ in range(3):  # the turn's work: others run meanwhile, an overlap would show
                await asyncio.sleep(0)
        finally:
            self.active[self.name] -= 1
        self.log.append((self.name, prompt, start, loop.time()))
        self.reply = lambda p, text=prompt: f"{self.name}: {text}"
        await super()._run(prompt)


class World:
    def __init__(self, queue_cap_s=900.0, caller_timeout_s=None):
        TimedSession.log = []
        TimedSession.active = {}
        TimedSession.hold = {}
        TimedSession.ask_from = {}
        TimedSession.world = self
        agents = [Agent(id=f"id-{n}", name=n, profile="claude") for n in NAMES[:-1]]
        agents.append(Agent(id="id-sh", name="sh", profile="shell"))
        self.w = bootstrap_test_app(
            *agents,
            starter=FakeSessionStarter(TimedSession),
            queue_cap_s=queue_cap_s,
            caller_timeout_s=caller_timeout_s,
        )
        self.agents, self.sessions, self.starter = self.w.agents, self.w.sessions, self.w.starter
        self.bus, self.events = self.w.bus, self.w.events
        self.launch, self.ask, self.stop = self.w.launch, self.w.ask, self.w.stop


@pytest.fixture
async def world():
    w = World()
    yield w
    await w.ask.close()
    await w.stop.stop_all("test over")


async def test_unknown_target(world):
    with pytest.raises(NotFound):
        await world.ask("ghost", "hi")


async def test_dead_target_is_launched_structured_then_asked(world):
    assert await world.ask("a", "hello") == "a: hello"
    assert world.starter.starts == [("a", "structured", None)]
    assert world.sessions.host_node("id-a") is None  # background
    assert await world.ask("a", "again") == "a: again"
    assert len(world.starter.starts) == 1


async def test_terminal_target_is_invalid_not_acknowledged(world):
    await world.launch(LaunchRequest("a", node_id="n1", mode=Mode.TERMINAL))
    with pytest.raises(Invalid) as err:
        await world.ask("a", "hi")
    assert "terminal" in err.value.message


async def test_terminal_only_profile_is_invalid(world):
    with pytest.raises(Invalid):
        await world.ask("sh", "hi")


async def test_every_turn_publishes_turn_finished(world):
    await world.ask("a", "x")
    with pytest.raises(IdeaTimeout):
        await world.ask("a", "SLOW", timeout_s=0.2)
    finished = [e for e in world.events if isinstance(e, AgentTurnFinished)]
    assert [(e.agent_id, e.ok) for e in finished] == [("id-a", True), ("id-a", False)]


async def test_success_publishes_agent_replied_with_requester(world):
    await world.ask("a", "x", requester_id="id-b")
    replied = [e for e in world.events if isinstance(e, AgentReplied)]
    assert len(replied) == 1
    assert replied[0].agent_id == "id-a"
    assert replied[0].requester_id == "id-b"


async def test_turn_starts_carry_prompt_and_requester_and_the_queue_length_is_published(world):
    await asyncio.gather(*(world.ask("a", f"t{i}", requester_id="id-b") for i in range(3)))
    started = [e for e in world.events if isinstance(e, AgentTurnStarted)]
    assert [(e.agent_id, e.prompt, e.requester_id) for e in started] == [
        ("id-a", f"t{i}", "id-b") for i in range(3)
    ]
    lengths = [e.queued for e in world.events if isinstance(e, AgentQueueChanged)]
    assert max(lengths) == 3
    assert lengths[-1] == 0
    assert all(a != b for a, b in itertools.pairwise(lengths))  # published on change only


async def test_fifo_no_overlap_and_arrival_order(world):
    tasks = [asyncio.create_task(world.ask("a", f"t{i}")) for i in range(12)]
    replies = await asyncio.gather(*tasks)
    assert replies == [f"a: t{i}" for i in range(12)]
    order = [prompt for agent, prompt, _, _ in TimedSession.log if agent == "a"]
    assert order == [f"t{i}" for i in range(12)]
    intervals = sorted((s, e) for agent, _, s, e in TimedSession.log if agent == "a")
    assert all(prev[1] <= nxt[0] for prev, nxt in itertools.pairwise(intervals))


async def test_different_agents_run_in_parallel(world):
    names = ("a", "b", "c")
    for name in names:
        TimedSession.hold[name] = asyncio.Event()
    asks = asyncio.gather(*(world.ask(n, "p") for n in names))
    # All three are in their turn at the same moment; none waits for another's to end.
    await until(lambda: all(TimedSession.active.get(n) == 1 for n in names), what="three turns")
    for name in names:
        TimedSession.hold[name].set()
    assert await asks == [f"{n}: p" for n in names]


async def test_timeout_keeps_target_alive_and_queue_moves_on(world):
    """A timeout interrupts the turn, never the session: the same session answers next."""
    slow = asyncio.create_task(world.ask("a", "SLOW", timeout_s=0.5))
    await until(lambda: world.sessions.structured_session("id-a") is not None)
    session = world.sessions.structured_session("id-a")
    queued = asyncio.create_task(world.ask("a", "next"))
    with pytest.raises(IdeaTimeout):
        await slow
    assert await queued == "a: next"
    assert world.sessions.structured_session("id-a") is session
    assert session.alive
    assert session.closed_count == 0
    assert session.interrupts == 1
    assert len(world.starter.starts) == 1  # not relaunched behind the caller's back


async def test_queue_cap_times_out_waiting_in_line():
    w = World(queue_cap_s=0.2)
    try:
        TimedSession.hold["a"] = asyncio.Event()
        first = asyncio.create_task(w.ask("a", "first"))
        while w.ask.queue_length("id-a") < 1:
            await asyncio.sleep(0)
        with pytest.raises(IdeaTimeout) as err:
            await w.ask("a", "second")
        assert "queue" in err.value.message
        TimedSession.hold["a"].set()
        assert await first == "a: first"
    finally:
        await w.ask.close()
        await w.stop.stop_all("test over")


async def test_progress_reports_position_and_working(world):
    TimedSession.hold["a"] = asyncio.Event()
    first = asyncio.create_task(world.ask("a", "one"))
    seen = []
    second = asyncio.create_task(world.ask("a", "two", progress=seen.append))
    while not any(p.position == 1 for p in seen):
        await asyncio.sleep(0)
    assert seen[-1].target_working
    TimedSession.hold["a"].set()
    await asyncio.gather(first, second)
    assert seen[-1].position == 0


async def test_cancelled_waiter_leaves_the_queue(world):
    TimedSession.hold["a"] = asyncio.Event()
    first = asyncio.create_task(world.ask("a", "one"))
    second = asyncio.create_task(world.ask("a", "two"))
    while world.ask.queue_length("id-a") < 2:
        await asyncio.sleep(0)
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    assert world.ask.queue_length("id-a") == 1
    TimedSession.hold["a"].set()
    await first
    assert [p for agent, p, _, _ in TimedSession.log if agent == "a"] == ["one"]


async def test_cancelled_running_ask_interrupts_the_turn(world):
    running = asyncio.create_task(world.ask("a", "SLOW"))
    while world.sessions.structured_session("id-a") is None or not (
        world.sessions.structured_session("id-a").busy
    ):
        await asyncio.sleep(0)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert await world.ask("a", "after") == "a: after"
    assert world.sessions.structured_session("id-a").interrupts >= 1


async def test_two_agent_cycle_fails_at_once(world):
    TimedSession.ask_from["a"] = ("b", "help me")
    TimedSession.ask_from["b"] = ("a", "and you help me")
    reply = await world.ask("a", "start")
    assert "CONFLICT" in reply
    assert "b → a → b" in reply  # named from the ask that closes it


async def test_three_agent_cycle_fails_at_once(world):
    TimedSession.ask_from["a"] = ("b", "x")
    TimedSession.ask_from["b"] = ("c", "y")
    TimedSession.ask_from["c"] = ("a", "z")
    reply = await world.ask("a", "start")
    assert "c → a → b → c" in reply


async def test_self_ask_is_a_cycle(world):
    with pytest.raises(Conflict):
        await world.ask("a", "me", requester_id="id-a")


async def test_fan_out_is_not_a_cycle(world):
    TimedSession.hold["b"] = asyncio.Event()
    one = asyncio.create_task(world.ask("b", "x", requester_id="id-a"))
    two = asyncio.create_task(world.ask("c", "y", requester_id="id-a"))
    assert await two == "c: y"
    TimedSession.hold["b"].set()
    assert await one == "b: x"


# -- deadlines (DESIGN.md §15) ---------------------------------------------------------------


async def test_a_cli_caller_gets_the_timeout_before_its_own_tool_timeout():
    """The CLI gives up after its MCP tool timeout (here 1 s): IdeA's TIMEOUT comes first."""
    world = World(caller_timeout_s=1.0)
    try:
        started = asyncio.get_running_loop().time()
        with pytest.raises(IdeaTimeout):
            await world.ask("a", "SLOW", requester_id="id-b", from_cli=True)
        elapsed = asyncio.get_running_loop().time() - started
        assert 0.5 < elapsed < 1.0, elapsed  # 1 s minus the margin (0.2 s in tests)
        assert world.sessions.structured_session("id-a").alive  # interrupted, not killed
    finally:
        await world.ask.close()
        await world.stop.stop_all("test over")


async def test_a_nested_ask_gets_what_remains_of_its_parent_minus_the_margin():
    world = World()
    try:
        TimedSession.ask_from["a"] = ("b", "SLOW")  # a asks b, who never answers in time
        started = asyncio.get_running_loop().time()
        reply = await world.ask("a", "go", timeout_s=1.0)
        elapsed = asyncio.get_running_loop().time() - started
        assert reply.startswith("a: go <- TIMEOUT "), reply  # a heard b's TIMEOUT, and answered
        assert elapsed < 1.0, elapsed  # within its own deadline
    finally:
        await world.ask.close()
        await world.stop.stop_all("test over")
