"""Agent edits and layout changes, with fakes."""

import pytest

from idea.application.change_layout import change_layout
from idea.application.edit_agent import AgentChanges, delete_agent, update_agent
from idea.application.launch_agent import LaunchRequest
from idea.application.live_sessions import LiveSessions
from idea.domain.agent import Agent, Workspace
from idea.domain.errors import Conflict, Invalid, MissingField
from idea.domain.events import LayoutChanged
from idea.domain.layout import Layouts
from idea.domain.profile import Mode
from tests.fakes.ports.memory_stores import InMemoryAgentStore, InMemoryLayoutStore
from tests.fakes.ports.workspaces import FakeWorkspaces
from tests.worlds import bootstrap_test_app


@pytest.fixture
async def world():
    w = bootstrap_test_app(Agent(id="id-a", name="a", profile="claude", description="d"))
    yield w.agents, w.profiles, w.sessions, w.bus, w.launch
    await w.close()


async def test_update_keeps_what_is_not_given_and_checks_the_mode(world):
    agents, profiles, sessions, _, _ = world
    changed = update_agent(agents, profiles, sessions, "a", AgentChanges(context="new"))
    assert (changed.context, changed.description, changed.profile) == ("new", "d", "claude")
    cleared = update_agent(agents, profiles, sessions, "a", AgentChanges(clear_description=True))
    assert cleared.description is None
    with pytest.raises(Invalid):
        update_agent(
            agents,
            profiles,
            sessions,
            "a",
            AgentChanges(profile="shell", mode=Mode.STRUCTURED, keep_mode=False),
        )


async def test_an_edit_made_on_an_old_version_changes_nothing_and_says_what_it_would_write(world):
    agents, profiles, sessions, _, _ = world
    _, version = agents.get_versioned("a")
    agents.save(agents.get("a").with_context("by hand"))  # another writer, meanwhile
    for changes in (
        AgentChanges(context="mine", version=version),
        AgentChanges(new_name="b", version=version),
    ):
        with pytest.raises(Conflict) as refused:
            update_agent(agents, profiles, sessions, "a", changes)
        assert refused.value.changed is not None
        assert refused.value.changed.version_on_disk == agents.get_versioned("a")[1]
        assert "by hand" in refused.value.changed.content_on_disk
    assert "name: b" in refused.value.changed.yours  # the rename's file, as it would be
    assert [a.name for a in agents.all()] == ["a"] and agents.get("a").context == "by hand"
    renamed = AgentChanges(new_name="b", version=refused.value.changed.version_on_disk)
    assert update_agent(agents, profiles, sessions, "a", renamed).name == "b"


async def test_update_sets_keeps_and_clears_model_and_permission_mode(world):
    agents, profiles, sessions, _, _ = world
    changes = AgentChanges(
        model="opus", keep_model=False, permission_mode="plan", keep_permission_mode=False
    )
    set_ = update_agent(agents, profiles, sessions, "a", changes)
    assert (set_.model, set_.permission_mode) == ("opus", "plan")
    kept = update_agent(agents, profiles, sessions, "a", AgentChanges(description="e"))
    assert (kept.model, kept.permission_mode) == ("opus", "plan")
    # Another CLI: a mode it lacks is refused, not carried over silently.
    with pytest.raises(Invalid) as err:
        update_agent(agents, profiles, sessions, "a", AgentChanges(profile="shell"))
    assert err.value.field == "permission_mode"
    cleared = update_agent(
        agents,
        profiles,
        sessions,
        "a",
        AgentChanges(profile="shell", model=None, keep_model=False, keep_permission_mode=False),
    )
    assert (cleared.profile, cleared.model, cleared.permission_mode) == ("shell", None, None)


async def test_rename_and_delete_only_when_stopped(world):
    agents, profiles, sessions, _, launch = world
    await launch(LaunchRequest("a"))
    with pytest.raises(Conflict):
        update_agent(agents, profiles, sessions, "a", AgentChanges(new_name="b"))
    with pytest.raises(Conflict):
        delete_agent(agents, sessions, "a")
    # Other edits of a running agent are fine (they apply at its next start).
    update_agent(agents, profiles, sessions, "a", AgentChanges(context="x"))


async def test_rename_keeps_the_id(world):
    agents, profiles, sessions, _, _ = world
    renamed = update_agent(agents, profiles, sessions, "a", AgentChanges(new_name="b"))
    assert (renamed.name, renamed.id) == ("b", "id-a")
    assert not agents.exists("a")
    assert delete_agent(agents, sessions, "b").id == "id-a"


async def test_a_host_cell_closed_leaves_its_agent_running_in_the_background(world):
    _, _, sessions, bus, launch = world
    events = []
    bus.subscribe(events.append)
    store = InMemoryLayoutStore(
        Layouts.empty("t", "l1").split("l1", "row", "l2", "s").bind("l1", "id-a", "chat")
    )
    await launch(LaunchRequest("a", node_id="l1"))
    change_layout(store, sessions, bus, lambda layouts: layouts.close("l1"))
    assert sessions.is_agent_live("id-a")
    assert sessions.host_node("id-a") is None
    assert [leaf.id for leaf in store.layouts.leaves()] == ["l2"]
    assert any(isinstance(e, LayoutChanged) for e in events)
    # Shown elsewhere now, without AGENT_ALREADY_RUNNING pointing at the closed cell.
    assert not (await launch(LaunchRequest("a", node_id="l2"))).started


def test_an_agent_with_a_worktree_is_deleted_only_once_told_what_becomes_of_it():
    agents = InMemoryAgentStore(
        Agent(id="id-w", name="w", profile="claude", workspace=Workspace.WORKTREE),
        Agent(id="id-k", name="k", profile="claude", workspace=Workspace.WORKTREE),
    )
    sessions = LiveSessions()
    workspaces = FakeWorkspaces()
    workspaces.made += ["w", "k"]
    with pytest.raises(MissingField) as err:
        delete_agent(agents, sessions, "w", workspaces)
    assert err.value.field == "worktree" and "idea/w" in err.value.message
    assert agents.exists("w")
    delete_agent(agents, sessions, "w", workspaces, "remove")
    delete_agent(agents, sessions, "k", workspaces, "keep")
    assert workspaces.made == ["k"]
    assert not agents.exists("w") and not agents.exists("k")


async def test_an_agent_moves_to_another_host_only_when_stopped_and_never_with_a_worktree(world):
    agents, profiles, sessions, _, launch = world
    moved = update_agent(agents, profiles, sessions, "a", AgentChanges(host="gpu", keep_host=False))
    assert moved.host == "gpu"
    assert update_agent(agents, profiles, sessions, "a", AgentChanges(context="x")).host == "gpu"
    with pytest.raises(Invalid) as bad:
        update_agent(agents, profiles, sessions, "a", AgentChanges(host="No!", keep_host=False))
    assert bad.value.field == "host"
    with pytest.raises(Invalid) as worktree:
        update_agent(agents, profiles, sessions, "a", AgentChanges(workspace=Workspace.WORKTREE))
    assert worktree.value.field == "host"
    await launch(LaunchRequest("a"))
    with pytest.raises(Conflict):
        update_agent(agents, profiles, sessions, "a", AgentChanges(keep_host=False))
    assert agents.get("a").host == "gpu"
