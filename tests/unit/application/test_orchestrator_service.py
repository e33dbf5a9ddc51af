"""dispatch: every action, the processed event and the log line, whatever the outcome."""

import asyncio

import pytest

from idea.application.launch_agent import LaunchRequest
from idea.domain import commands as c
from idea.domain.agent import Agent
from idea.domain.errors import Forbidden, MissingField, NotFound
from idea.domain.events import AgentStopped, OrchestratorRequestProcessed
from idea.domain.orchestrator_request import validate_request
from idea.domain.work_state import Status
from tests.waiting import until
from tests.worlds import bootstrap_test_app


class World:
    def __init__(self):
        self.w = bootstrap_test_app(
            Agent(id="id-a", name="a", profile="claude", context="old"),
            Agent(id="id-b", name="b", profile="claude"),
        )
        self.agents, self.skills, self.live = self.w.agents, self.w.skills, self.w.work_state
        self.sessions, self.launch, self.log = self.w.sessions, self.w.launch, self.w.log
        self.service, self.events = self.w.service, self.w.events

    async def wire(self, obj, source=c.Source.UI, requester=None):
        return await self.service.dispatch(validate_request(obj), source, requester)

    def processed(self):
        return [e for e in self.events if isinstance(e, OrchestratorRequestProcessed)]


@pytest.fixture
async def world():
    w = World()
    yield w
    await w.w.close()


async def test_ask_returns_reply_logs_and_records_the_delegation(world):
    out = await world.wire(
        {"action": "agent.message", "targetAgent": "b", "task": "do it"}, c.Source.MCP, "id-a"
    )
    assert out.reply == "echo: do it"
    (event,) = world.processed()
    assert (event.source, event.requester_id, event.action, event.target, event.ok) == (
        c.Source.MCP,
        "id-a",
        "agent.message",
        "b",
        True,
    )
    (line,) = world.log.records
    assert line["prompt_chars"] == len("do it")
    assert line["reply"] == "echo: do it"
    assert line["ok"] is True
    assert world.live.state.rows["id-a"].last_delegation["target"] == "b"


async def test_failure_is_processed_and_logged_with_its_code(world):
    with pytest.raises(NotFound):
        await world.wire({"action": "agent.message", "targetAgent": "ghost", "task": "x"})
    (event,) = world.processed()
    assert (event.ok, event.code) == (False, "NOT_FOUND")
    assert world.log.records[0]["code"] == "NOT_FOUND"


async def test_run_creates_a_new_agent_with_the_task_as_context(world):
    out = await world.wire({"action": "agent.run", "name": "newbie", "task": "You review."})
    assert "created" in out.detail
    agent = world.agents.get("newbie")
    assert agent.context == "You review."
    assert world.sessions.is_agent_live(agent.id)
    again = await world.wire({"action": "agent.run", "name": "newbie", "task": "ignored"})
    assert "already running" in again.detail
    assert world.agents.get("newbie").context == "You review."


async def test_spawn_visible_goes_to_the_cell(world):
    await world.wire({"action": "agent.spawn", "name": "a", "visible": True, "nodeId": "leaf-1"})
    assert world.sessions.host_node("id-a") == "leaf-1"


async def test_stop(world):
    await world.launch(LaunchRequest("a"))
    out = await world.wire({"action": "agent.stop", "name": "a"})
    assert "stopped" in out.detail
    assert not world.sessions.is_agent_live("id-a")
    out = await world.wire({"action": "agent.stop", "name": "a"})
    assert "not running" in out.detail


async def test_a_stop_whose_caller_leaves_still_ends_and_is_logged_as_it_ended(world):
    """A bridge that leaves cancels its call; the stop already begun is not left half done."""
    await world.launch(LaunchRequest("a"))
    (session,) = world.w.starter.structured
    session.close_gate = asyncio.Event()
    call = asyncio.create_task(world.wire({"action": "agent.stop", "name": "a"}, c.Source.MCP))
    await until(lambda: session.closed_count == 1)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert world.log.records == []  # still stopping
    session.close_gate.set()
    await until(lambda: world.log.records)
    (line,) = world.log.records
    assert (line["action"], line["ok"], line["code"]) == ("agent.stop", True, None)
    assert any(isinstance(e, AgentStopped) for e in world.events)
    assert not world.sessions.is_agent_live("id-a")


async def test_context_update_says_when_it_applies(world):
    out = await world.wire({"action": "agent.context.update", "name": "a", "context": "new"})
    assert world.agents.get("a").context == "new"
    assert "next session start" in out.detail
    await world.launch(LaunchRequest("a"))
    out = await world.wire({"action": "agent.context.update", "name": "a", "context": "newer"})
    assert "restarts" in out.detail


async def test_skill_created_then_updated(world):
    body = {"action": "skill.create", "name": "review", "description": "d", "body": "b"}
    assert "created" in (await world.wire(body)).detail
    assert "updated" in (await world.wire({**body, "body": "b2"})).detail
    assert world.skills.get("review").body == "b2"


async def test_workstate_is_self_only(world):
    out = await world.wire(
        {"action": "workstate.set", "status": "working", "intent": "refactor"}, c.Source.MCP, "id-a"
    )
    assert "working" in out.detail
    assert world.live.state.rows["id-a"].status is Status.WORKING
    with pytest.raises(Forbidden) as err:
        await world.wire({"action": "workstate.set", "status": "idle"}, c.Source.FILE, None)
    assert err.value.code == "FORBIDDEN"
    with pytest.raises(Forbidden):
        await world.wire({"action": "workstate.set", "status": "idle"}, c.Source.MCP, "id-zz")


async def test_workstate_get_lists_every_agent(world):
    await world.wire({"action": "workstate.set", "status": "blocked"}, c.Source.MCP, "id-b")
    await world.launch(LaunchRequest("a", node_id="n1"))
    out = await world.wire({"action": "workstate.get"})
    rows = {row["name"]: row for row in out.data["agents"]}
    assert rows["b"]["status"] == "blocked"
    assert rows["a"]["status"] == "idle"
    assert rows["a"]["live"] is True
    assert rows["a"]["node_id"] == "n1"


async def test_validation_errors_name_the_field():
    with pytest.raises(MissingField) as err:
        validate_request({"action": "agent.message", "targetAgent": "b"})
    assert err.value.field == "task"
