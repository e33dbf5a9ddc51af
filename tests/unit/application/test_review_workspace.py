"""agent.changes / agent.merge / agent.discard through the dispatcher, with a fake workspace."""

import pytest

from idea.application.review_workspace import last_ask, merge_message
from idea.domain import commands as c
from idea.domain.agent import Agent, Workspace
from idea.domain.errors import NotFound
from idea.domain.events import AgentsChanged
from idea.domain.orchestrator_request import validate_request
from idea.domain.workspace import FileChange
from tests.worlds import bootstrap_test_app

DEV = Agent(id="id-dev", name="dev", profile="claude", workspace=Workspace.WORKTREE)


@pytest.fixture
async def world():
    w = bootstrap_test_app(DEV, Agent(id="id-lead", name="lead", profile="claude"))
    yield w
    await w.close()


async def wire(world, action, source=c.Source.FILE):
    return await world.service.dispatch(validate_request({"action": action, "name": "dev"}), source)


async def test_before_its_first_start_an_agent_has_no_worktree(world):
    for action in ("agent.changes", "agent.merge", "agent.discard"):
        with pytest.raises(NotFound):
            await wire(world, action)
    assert [line["code"] for line in world.log.records] == ["NOT_FOUND"] * 3


async def test_changes_then_a_merge_named_after_the_ask_then_a_discard(world):
    world.workspaces.made.append("dev")
    world.workspaces.files["dev"] = (FileChange("new.py", "added", 2, 0),)
    await world.service.dispatch(c.AskAgent("dev", "Add a parser module"), c.Source.UI)
    changes = await wire(world, "agent.changes")
    assert changes.data["files"] == [
        {"path": "new.py", "status": "added", "additions": 2, "deletions": 0}
    ]
    assert "changed 1 file(s) on idea/dev" in changes.detail
    merged = await wire(world, "agent.merge", c.Source.MCP)
    assert merged.data["into"] == "main"
    ((agent, message),) = world.workspaces.merges
    assert agent == "dev" and message.startswith("dev: Add a parser module")
    assert (await wire(world, "agent.discard")).data == {"base": "base0"}
    assert world.workspaces.discards == ["dev"]
    assert sum(isinstance(e, AgentsChanged) for e in world.events) == 2


def test_the_merge_message_names_the_agent_and_its_last_answered_ask():
    records = [
        {"action": "agent.message", "target": "dev", "ok": True, "prompt": "first"},
        {"action": "agent.message", "target": "qa", "ok": True, "prompt": "not dev's"},
        {"action": "agent.message", "target": "dev", "ok": False, "prompt": "failed"},
    ]
    assert last_ask(records, "dev") == "first"
    assert merge_message("dev", None) == "dev: work done in IdeA"
    long = merge_message("dev", "x " * 500)
    assert len(long.splitlines()[0]) <= len("dev: ") + 200
