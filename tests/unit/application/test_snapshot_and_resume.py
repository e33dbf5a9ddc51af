"""Close snapshots which cells were running; open resumes one session per agent."""

from idea.application.launch_agent import LaunchRequest
from idea.application.reconcile_at_open import reconcile_layouts
from idea.application.resume_sessions import resume_sessions
from idea.application.snapshot_running_agents import plan_resume, snapshot_running_agents
from idea.domain.agent import Agent
from idea.domain.layout import Layouts
from idea.domain.profile import Mode
from tests.fakes.ports.memory_stores import (
    InMemoryAgentStore,
    InMemoryLayoutStore,
)
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.worlds import bootstrap_test_app

AGENTS = InMemoryAgentStore(
    Agent(id="id-chat", name="chat", profile="claude"),
    Agent(id="id-sh", name="sh", profile="shell"),
    Agent(id="id-idle", name="idle", profile="shell"),
)


def layout() -> Layouts:
    return (
        Layouts.empty("t1", "l1")
        .split("l1", "row", "l2", "s1")
        .split("l2", "column", "l3", "s2")
        .bind("l1", "id-chat", "chat")
        .bind("l2", "id-sh", "terminal")
        .bind("l3", "id-idle", "terminal")
    )


def runtime(starter):
    w = bootstrap_test_app(*AGENTS.all(), starter=starter)
    return w.sessions, w.launch, w.stop


async def test_snapshot_then_resume_restarts_each_running_agent_once():
    store = InMemoryLayoutStore(layout())
    starter = FakeSessionStarter()
    sessions, launch, stop = runtime(starter)
    chat = await launch(LaunchRequest("chat", node_id="l1"))
    await launch(LaunchRequest("sh", node_id="l2"))
    await chat.entry.session.send_blocking("hello", timeout=5)

    saved = snapshot_running_agents(store, sessions)
    flags = {leaf.id: (leaf.agent_was_running, leaf.conversation_id) for leaf in saved.leaves()}
    assert flags == {
        "l1": (True, chat.entry.session.conversation_id),
        "l2": (True, None),
        "l3": (False, None),
    }
    await stop.stop_all("closing")
    assert sessions.live_agents() == []

    # Next open: reconcile first, then resume with a fresh runtime.
    starter2 = FakeSessionStarter()
    sessions2, launch2, stop2 = runtime(starter2)
    reconciled = reconcile_layouts(store).layouts
    report = await resume_sessions(reconciled, AGENTS, launch2)
    try:
        assert not report.failed
        assert sorted(starter2.starts) == [
            ("chat", "structured", chat.entry.session.conversation_id),
            ("sh", "terminal", None),
        ]
        assert sessions2.host_node("id-chat") == "l1"
        assert sessions2.host_node("id-sh") == "l2"
        resumed = sessions2.structured_session("id-chat")
        assert resumed.conversation_id == chat.entry.session.conversation_id
    finally:
        await stop2.stop_all("test over")


async def test_duplicate_cells_resume_one_session_per_agent():
    dup = layout().bind("l3", "id-chat", "chat").set_running("l1", True, "c1")
    dup = dup.set_running("l3", True, "c2")
    store = InMemoryLayoutStore(dup)
    reconciled = reconcile_layouts(store).layouts
    assert [(i.agent_id, i.node_id) for i in plan_resume(reconciled)] == [("id-chat", "l1")]
    starter = FakeSessionStarter()
    _sessions, launch, stop = runtime(starter)
    try:
        report = await resume_sessions(reconciled, AGENTS, launch)
        assert len(report.resumed) == 1
        assert starter.starts == [("chat", "structured", "c1")]
    finally:
        await stop.stop_all("test over")


async def test_a_failed_resume_is_reported_and_others_go_on():
    layouts = layout().set_running("l1", True, "c1").set_running("l2", True)
    starter = FakeSessionStarter()
    starter.missing.add("claude")
    _sessions, launch, stop = runtime(starter)
    try:
        report = await resume_sessions(layouts, AGENTS, launch)
        assert [f.agent_id for f in report.failed] == ["id-chat"]
        assert report.failed[0].error.code == "UNAVAILABLE"
        assert [r.agent.name for r in report.resumed] == ["sh"]
        assert report.resumed[0].mode is Mode.TERMINAL
    finally:
        await stop.stop_all("test over")


async def test_snapshot_clears_cells_whose_agent_stopped():
    store = InMemoryLayoutStore(layout().set_running("l2", True))
    sessions, _, _ = runtime(FakeSessionStarter())
    saved = snapshot_running_agents(store, sessions)
    assert not any(leaf.agent_was_running for leaf in saved.leaves())
