"""Delegation governance (DESIGN.md §15): chains and depth, asks_from, token budgets, usage,
rate limits and the in-flight journal, through the orchestrator as the doors use it."""

from __future__ import annotations

import asyncio

import pytest

from idea.application.reconcile_at_open import reconcile_lost_asks
from idea.domain import commands as c
from idea.domain.agent import Agent
from idea.domain.errors import (
    Forbidden,
    IdeaError,
    RateLimited,
)
from idea.domain.events import (
    AgentRateLimited,
    AgentTurnFinished,
    AgentTurnStarted,
    OrchestratorRequestProcessed,
)
from idea.domain.policy import Policy
from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.stores.ask_journal import JsonlAskJournal
from tests.fakes.ports.agent_session import FakeAgentSession
from tests.fakes.ports.clock import FakeClock
from tests.fakes.ports.memory_log import MemoryDelegationLog
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.waiting import until
from tests.worlds import AppWorld, bootstrap_test_app

pytestmark = pytest.mark.timeout(30)

TURN_USAGE = Usage(input_tokens=40, output_tokens=10, cache_read_tokens=8, cache_write_tokens=2)


class NestingSession(FakeAgentSession):
    """During its turn, an agent asks the agents of ``plan[name]`` in turn, through the
    orchestrator as its MCP tool would, and answers with what it heard."""

    plan: dict[str, list[str]] = {}
    errors: list[str] = []  # the messages of the errors the agents heard
    world: AppWorld | None = None

    def __init__(self, name: str, conversation_id: str = "conv-fake") -> None:
        super().__init__(name, conversation_id=conversation_id)
        self.usage = TURN_USAGE

    async def _run(self, prompt: str) -> None:
        heard: list[str] = []
        for target in self.plan.get(self.name, []):
            assert self.world is not None
            try:
                outcome = await self.world.service.dispatch(
                    c.AskAgent(target=target, task=f"from {self.name}"),
                    c.Source.MCP,
                    requester_id=f"id-{self.name}",
                )
                heard.append(outcome.reply or "")
            except IdeaError as exc:
                heard.append(exc.code)
                self.errors.append(exc.message)
        self.reply = lambda p, heard=heard: f"{self.name}[{', '.join(heard)}]"
        await super()._run(prompt)


def world_with(*agents: Agent, policy: Policy | None = None) -> AppWorld:
    NestingSession.plan, NestingSession.errors = {}, []
    world = bootstrap_test_app(*agents, starter=FakeSessionStarter(NestingSession), policy=policy)
    NestingSession.world = world
    return world


def agent(name: str, **kw: object) -> Agent:
    return Agent(id=f"id-{name}", name=name, profile="claude", **kw)  # type: ignore[arg-type]


@pytest.fixture
async def world():
    w = world_with(*(agent(n) for n in "abcd"))
    yield w
    await w.close()


async def ask(world: AppWorld, target: str, source: c.Source = c.Source.UI) -> str:
    outcome = await world.service.dispatch(c.AskAgent(target=target, task="go"), source)
    return outcome.reply or ""


def asks_logged(world: AppWorld) -> list[dict]:
    return [r for r in world.log.records if r["action"] == "agent.message"]


async def test_nested_asks_join_their_root_chain_one_level_deeper(world):
    NestingSession.plan = {"a": ["b"], "b": ["c"]}
    assert await ask(world, "a") == "a[b[c[]]]"
    started = [e for e in world.events if isinstance(e, AgentTurnStarted)]
    assert [(e.agent_name, e.depth) for e in started] == [("a", 1), ("b", 2), ("c", 3)]
    assert len({e.chain_id for e in started}) == 1
    rows = {r["target"]: r for r in asks_logged(world)}
    assert {t: r["depth"] for t, r in rows.items()} == {"a": 1, "b": 2, "c": 3}
    assert len({r["chain_id"] for r in rows.values()}) == 1
    assert rows["a"]["chain_id"] == started[0].chain_id
    # A second root ask is a chain of its own.
    NestingSession.plan = {}
    await ask(world, "a")
    assert asks_logged(world)[-1]["chain_id"] != started[0].chain_id
    assert asks_logged(world)[-1]["depth"] == 1


async def test_each_nested_ask_names_its_parent_ask_on_its_row_and_its_events(world):
    # a asks b, b asks c and then d; a second root ask to a starts a tree of its own.
    NestingSession.plan = {"a": ["b"], "b": ["c", "d"]}
    assert await ask(world, "a") == "a[b[c[], d[]]]"
    rows = {r["target"]: r for r in asks_logged(world)}
    ids = {t: r["ask_id"] for t, r in rows.items()}
    assert len(set(ids.values())) == 4 and all(isinstance(i, str) and i for i in ids.values())
    parents = {t: r["parent_ask_id"] for t, r in rows.items()}
    assert parents == {"a": None, "b": ids["a"], "c": ids["b"], "d": ids["b"]}
    started = {e.agent_name: e for e in world.events if isinstance(e, AgentTurnStarted)}
    assert {n: (e.ask_id, e.parent_ask_id) for n, e in started.items()} == {
        t: (ids[t], parents[t]) for t in "abcd"
    }
    finished = [e for e in world.events if isinstance(e, AgentTurnFinished)]
    assert sorted((e.ask_id, e.parent_ask_id) for e in finished) == sorted(
        (ids[t], parents[t]) for t in "abcd"
    )
    processed = [e for e in world.events if isinstance(e, OrchestratorRequestProcessed)]
    assert {(e.target, e.ask_id, e.parent_ask_id) for e in processed} == {
        (t, ids[t], parents[t]) for t in "abcd"
    }
    NestingSession.plan = {}
    await ask(world, "a")
    again = asks_logged(world)[-1]
    assert again["parent_ask_id"] is None and again["ask_id"] not in ids.values()


async def test_a_failed_or_cancelled_nested_ask_is_logged_under_its_parent_ask():
    world = world_with(*(agent(n) for n in "abc"), policy=Policy(max_depth=2))
    try:
        NestingSession.plan = {"a": ["b"], "b": ["c"]}
        assert await ask(world, "a") == "a[b[DEPTH_EXCEEDED]]"
        rows = {r["target"]: r for r in asks_logged(world)}
        assert rows["c"]["parent_ask_id"] == rows["b"]["ask_id"]
        assert rows["b"]["parent_ask_id"] == rows["a"]["ask_id"]
        # b waits on a turn that never ends; the root ask is cancelled under it.
        NestingSession.plan = {"a": ["b"]}
        gate = asyncio.Event()
        session = world.sessions.structured_session("id-b")
        assert session is not None
        session.gate = gate
        root = asyncio.create_task(ask(world, "a"))
        await until(lambda: world.ask.serving("id-b") is not None)
        serving_b = world.ask.serving("id-b")
        serving_a = world.ask.serving("id-a")
        assert serving_a is not None and serving_b is not None
        assert serving_b.hop.parent_ask_id == serving_a.hop.ask_id
        root.cancel()
        with pytest.raises(asyncio.CancelledError):
            await root
        await until(lambda: len(asks_logged(world)) == 5)
        cancelled = {r["target"]: r for r in asks_logged(world)[3:]}
        assert cancelled["b"]["code"] == "CANCELLED"
        assert cancelled["b"]["ask_id"] == serving_b.hop.ask_id
        assert cancelled["b"]["parent_ask_id"] == cancelled["a"]["ask_id"]
    finally:
        await world.close()


async def test_the_board_shows_a_running_ask_under_the_ask_it_serves_with_its_logged_ids(world):
    NestingSession.plan = {"a": ["b"]}
    await ask(world, "b")  # b is running: its next turn can be held
    session = world.sessions.structured_session("id-b")
    assert session is not None
    gate = session.gate = asyncio.Event()
    root = asyncio.create_task(ask(world, "a"))
    await until(lambda: world.ask.serving("id-b") is not None)
    board = await world.service.dispatch(c.GetProjectWorkState(), c.Source.UI)
    assert isinstance(board.data, dict)
    serving = {r["name"]: r["serving"] for r in board.data["agents"] if r["serving"]}
    assert serving["b"]["parent_ask_id"] == serving["a"]["ask_id"]
    assert serving["a"]["parent_ask_id"] is None
    gate.set()
    await root
    rows = {r["target"]: r for r in asks_logged(world)[1:]}
    assert {t: r["ask_id"] for t, r in rows.items()} == {t: serving[t]["ask_id"] for t in "ab"}


async def test_an_ask_deeper_than_max_depth_is_refused_before_the_target_starts():
    world = world_with(*(agent(n) for n in "abc"), policy=Policy(max_depth=2))
    try:
        NestingSession.plan = {"a": ["b"], "b": ["c"]}
        assert await ask(world, "a") == "a[b[DEPTH_EXCEEDED]]"
        assert [name for name, *_ in world.starter.starts] == ["a", "b"]  # c never started
        refused = asks_logged(world)[0]
        assert (refused["target"], refused["code"], refused["depth"]) == ("c", "DEPTH_EXCEEDED", 3)
        assert "max_depth is 2" in NestingSession.errors[0]
    finally:
        await world.close()


async def test_asks_from_lets_only_the_listed_agents_ask_and_the_user_always():
    world = world_with(agent("a"), agent("b", asks_from=("c",)), agent("c"))
    try:
        NestingSession.plan = {"a": ["b"], "c": ["b"]}
        assert await ask(world, "a") == "a[FORBIDDEN]"
        assert await ask(world, "c") == "c[b[]]"
        assert await ask(world, "b") == "b[]"  # the user
        with pytest.raises(Forbidden, match="a may not ask b: only c may"):
            await world.ask("b", "x", requester_id="id-a")
        forbidden = [r for r in asks_logged(world) if r["code"] == "FORBIDDEN"]
        assert [(r["requester"], r["target"]) for r in forbidden] == [("id-a", "b")]
    finally:
        await world.close()


async def test_a_chain_that_spent_its_budget_starts_no_nested_ask():
    # Each turn reports 60 tokens: a root turn is never refused; b (spent 0) and c (spent 60)
    # start; d would start after 120 >= 100 were spent.
    world = world_with(*(agent(n) for n in "abcd"), policy=Policy(chain_token_budget=100))
    try:
        NestingSession.plan = {"a": ["b", "c", "d"]}
        assert await ask(world, "a") == "a[b[], c[], BUDGET_EXCEEDED]"
        assert [name for name, *_ in world.starter.starts] == ["a", "b", "c"]
        refused = asks_logged(world)[2]
        assert (refused["target"], refused["code"]) == ("d", "BUDGET_EXCEEDED")
        # The root is not a nested ask: a new chain starts with nothing spent.
        NestingSession.plan = {"a": ["b"]}
        assert await ask(world, "a") == "a[b[]]"
    finally:
        await world.close()


async def test_the_budget_is_checked_again_when_a_queued_nested_ask_would_start():
    world = world_with(*(agent(n) for n in "abc"), policy=Policy(chain_token_budget=100))
    try:
        b_gate = asyncio.Event()
        await world.ask("b", "warm up")
        b = world.sessions.structured_session("id-b")
        assert b is not None
        b.gate = b_gate
        # b is busy with the user's ask; a's nested ask to b waits in b's line.
        busy = asyncio.create_task(world.ask("b", "busy"))
        await until(lambda: b.busy)
        NestingSession.plan = {"a": ["b"]}
        hop_of_a = asyncio.create_task(ask(world, "a"))
        await until(lambda: world.ask.queue_length("id-b") == 2)
        # Meanwhile the chain spends past its budget (another nested turn of it ends).
        serving = world.ask.serving("id-a")
        assert serving is not None
        world.ask.chains.spent(serving.hop, Usage(input_tokens=150))
        b_gate.set()
        assert await hop_of_a == "a[BUDGET_EXCEEDED]"
        await busy
        assert b.prompts == ["warm up", "busy"]  # a's ask never reached b
    finally:
        await world.close()


async def test_usage_is_on_the_log_row_the_turn_event_and_the_agent_totals(world):
    NestingSession.plan = {"a": ["b"]}
    await ask(world, "a")
    rows = {r["target"]: r for r in asks_logged(world)}
    assert rows["b"]["usage"] == {**TURN_USAGE.to_json()}
    assert rows["b"]["usage"]["total_tokens"] == 60
    finished = [e for e in world.events if isinstance(e, AgentTurnFinished)]
    assert all(e.usage == TURN_USAGE for e in finished)
    await ask(world, "a")
    assert world.ask.usage.of("id-a") == {**(TURN_USAGE + TURN_USAGE).to_json(), "turns": 2}
    assert world.ask.usage.of("id-c") is None
    assert world.ask.chains.in_flight() == []  # chains end with their root


async def test_a_rate_limited_turn_is_a_typed_error_and_an_event_and_the_agent_lives_on(world):
    await world.ask("a", "warm up")
    session = world.sessions.structured_session("id-a")
    assert session is not None
    session.rate_limit_next = RateLimit("usage limit reached", 1_900_000_000_000)
    with pytest.raises(RateLimited) as err:
        await world.ask("a", "go")
    assert err.value.code == "RATE_LIMITED"
    assert err.value.to_dict()["resets_at_ms"] == "1900000000000"
    limited = [e for e in world.events if isinstance(e, AgentRateLimited)]
    assert [(e.agent_name, e.resets_at_ms) for e in limited] == [("a", 1_900_000_000_000)]
    assert await world.ask("a", "again") == "a[]"
    assert world.sessions.structured_session("id-a") is session


async def test_every_accepted_ask_is_journalled_from_start_to_end(world):
    await ask(world, "a")
    world.agents.save(agent("b", asks_from=("c",)))
    with pytest.raises(Forbidden):  # refused: never accepted, never journalled
        await world.ask("b", "x", requester_id="id-a")
    gate = asyncio.Event()
    session = world.sessions.structured_session("id-a")
    assert session is not None
    session.gate = gate
    cancelled = asyncio.create_task(ask(world, "a"))
    await until(lambda: len(world.journal.records) == 3)
    assert world.journal.unfinished()[0]["target"] == "a"
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    ends = [r["code"] for r in world.journal.records if r["event"] == "end"]
    assert ends == [None, "CANCELLED"]
    assert world.journal.unfinished() == []


def test_asks_that_never_ended_are_logged_lost_once(tmp_path):
    journal = JsonlAskJournal(tmp_path / "run" / "asks.jsonl")
    record = {"at_ms": 5, "source": "mcp", "requester": "id-a", "target": "b"}
    journal.started("ask-1", {**record, "chain_id": "ch-1", "depth": 2, "parent_ask_id": "ask-0"})
    journal.started("ask-2", {**record, "chain_id": "ch-2", "depth": 1})
    journal.ended("ask-2", {"code": None})
    # The app dies here: a new journal object reads what the old one wrote.
    after_crash = JsonlAskJournal(tmp_path / "run" / "asks.jsonl")
    log = MemoryDelegationLog()
    lost = reconcile_lost_asks(after_crash, log, FakeClock())
    assert [(r["target"], r["code"], r["chain_id"], r["depth"]) for r in log.records] == [
        ("b", "LOST", "ch-1", 2)
    ]
    assert (log.records[0]["ask_id"], log.records[0]["parent_ask_id"]) == ("ask-1", "ask-0")
    assert lost == log.records
    again = JsonlAskJournal(tmp_path / "run" / "asks.jsonl")
    assert reconcile_lost_asks(again, log, FakeClock()) == []
    assert len(log.records) == 1


def test_a_hostile_journal_gives_bounded_typed_rows(tmp_path):
    path = tmp_path / "asks.jsonl"
    path.write_text(
        '{"event":"start","ask_id":"x","target":' + '"' + "t" * 5000 + '","depth":true}\n'
        "not json\n"
        '{"event":"start","ask_id":7}\n'
        "[1,2]\n"
        '{"event":"start","ask_id":"y","depth":-3,"requester":{"a":1}}\n'
    )
    log = MemoryDelegationLog()
    lost = reconcile_lost_asks(JsonlAskJournal(path), log, FakeClock())
    assert [(len(r["target"] or ""), r["depth"], r["requester"]) for r in lost] == [
        (256, None, None),
        (0, None, None),
    ]
    assert path.read_bytes() == b""
