import json
import os
from collections.abc import Callable

import pytest

from idea.domain.agent import Agent
from idea.domain.builtin_profiles import builtin_profiles
from idea.domain.errors import Conflict, CorruptFile, Internal, Invalid, NotFound
from idea.domain.knowledge import MemoryNote, Skill
from idea.domain.work_state import Status, WorkRow, WorkState
from idea.infrastructure.stores.agents import MarkdownAgentStore
from idea.infrastructure.stores.knowledge import MarkdownMemoryStore, MarkdownSkillStore
from idea.infrastructure.stores.layouts import JsonLayoutStore
from idea.infrastructure.stores.paths import ProjectPaths
from idea.infrastructure.stores.profiles import JsonProfileStore
from idea.infrastructure.stores.project import JsonProjectStore
from idea.infrastructure.stores.work_state import JsonWorkStateStore
from tests.fakes.ports.clock import FakeClock, SequentialIds


@pytest.fixture
def paths(tmp_path):
    p = ProjectPaths(tmp_path)
    p.ideai.mkdir()
    return p


@pytest.fixture
def clock():
    return FakeClock()


def corrupt_files(folder):
    return sorted(p.name for p in folder.iterdir() if ".corrupt-" in p.name)


def test_project_created_once_with_stable_id_and_gitignore(tmp_path, clock):
    store = JsonProjectStore(ProjectPaths(tmp_path), clock, SequentialIds("p"))
    first = store.open_or_create("demo")
    second = store.open_or_create("renamed")
    assert first == second
    assert first.id == "p-1"
    ignore = (tmp_path / ".ideai" / ".gitignore").read_text(encoding="utf-8")
    assert "run/" in ignore.splitlines()
    assert "log/" in ignore.splitlines()


def test_project_json_unknown_fields_survive(paths, clock):
    paths.project_file.write_text(
        json.dumps({"id": "x", "name": "n", "created_at_ms": 1, "future": [1]}), encoding="utf-8"
    )
    info = JsonProjectStore(paths, clock, SequentialIds()).open_or_create("n")
    assert info.to_json()["future"] == [1]


def test_agents_save_get_rename_delete(paths, clock):
    store = MarkdownAgentStore(paths, clock, SequentialIds())
    agent = Agent(id="a-1", name="dev", profile="shell", context="ctx ✓\n")
    store.save(agent)
    assert store.get("dev") == agent
    assert store.get_by_id("a-1") == agent
    renamed = store.rename("dev", "builder")
    assert renamed.id == "a-1"
    assert not store.exists("dev")
    assert store.all() == [renamed]
    store.delete("builder")
    assert store.all() == []
    with pytest.raises(NotFound):
        store.get("builder")
    with pytest.raises(NotFound):
        store.delete("builder")


def test_agent_name_conflicts(paths, clock):
    store = MarkdownAgentStore(paths, clock, SequentialIds())
    store.save(Agent(id="a-1", name="dev", profile="shell"))
    store.save(Agent(id="a-2", name="ops", profile="shell"))
    with pytest.raises(Conflict):
        store.save(Agent(id="a-3", name="dev", profile="shell"))
    with pytest.raises(Conflict):
        store.rename("ops", "dev")
    with pytest.raises(Invalid):
        store.get("../etc")


def test_hand_written_agent_gets_an_id_saved_back(paths, clock):
    paths.agents.mkdir()
    paths.agent_file("dev").write_text("---\nprofile: shell\n---\nhello", encoding="utf-8")
    store = MarkdownAgentStore(paths, clock, SequentialIds("gen"))
    agent = store.get("dev")
    assert agent.id.startswith("gen-")
    assert store.get("dev").id == agent.id  # persisted, stable


def test_corrupt_agent_is_quarantined_and_reported_others_still_listed(paths, clock):
    reported = []
    store = MarkdownAgentStore(paths, clock, SequentialIds(), reported.append)
    store.save(Agent(id="a-1", name="good", profile="shell"))
    bad = paths.agent_file("bad")
    original = b"---\nid: x\nprofile: shell\nno closing line\n\xc3\xa9"
    bad.write_bytes(original)
    assert [a.name for a in store.all()] == ["good"]
    assert len(reported) == 1
    assert reported[0].code == "CORRUPT_FILE"
    assert not bad.exists()
    (moved,) = corrupt_files(paths.agents)
    assert (paths.agents / moved).read_bytes() == original


def test_profiles_builtin_overridden_and_extended(paths, clock):
    paths.profiles.write_text(
        json.dumps(
            {
                "version": 1,
                "profiles": {
                    "claude": {"command": ["/opt/bin/claude"]},
                    "aider": {"command": ["aider"], "description": "Aider"},
                },
                "unknown": True,
            }
        ),
        encoding="utf-8",
    )
    store = JsonProfileStore(paths, clock, builtin_profiles("/bin/sh"))
    profiles = store.all()
    assert profiles["claude"].command == ("/opt/bin/claude",)
    assert profiles["claude"].structured is not None
    assert profiles["aider"].description == "Aider"
    with pytest.raises(NotFound) as err:
        store.get("nope")
    assert "aider" in err.value.message
    store.save_entry("mine", {"command": ["sh"]})
    raw = json.loads(paths.profiles.read_text(encoding="utf-8"))
    assert raw["unknown"] is True
    assert set(raw["profiles"]) == {"claude", "aider", "mine"}


def test_profiles_that_do_not_parse_are_quarantined(paths, clock):
    paths.profiles.write_text("{not json", encoding="utf-8")
    store = JsonProfileStore(paths, clock, builtin_profiles("/bin/sh"))
    with pytest.raises(CorruptFile):
        store.all()
    assert corrupt_files(paths.ideai) == [f"profiles.json.corrupt-{clock.ms}"]
    assert set(store.all()) == {"claude", "codex", "gemini", "qwen", "opencode", "shell"}


def test_layout_default_and_round_trip_with_unknown_fields(paths, clock):
    store = JsonLayoutStore(paths, clock, SequentialIds())
    layouts = store.load()
    assert len(layouts.leaves()) == 1
    store.save(layouts)
    raw = json.loads(paths.layouts.read_text(encoding="utf-8"))
    raw["zoom"] = 2
    raw["tabs"][0]["root"]["theme"] = "dark"
    paths.layouts.write_text(json.dumps(raw), encoding="utf-8")
    store.save(store.load())
    assert json.loads(paths.layouts.read_text(encoding="utf-8")) == raw


def test_layout_with_bad_shape_is_quarantined_not_overwritten(paths, clock):
    original = json.dumps({"version": 1, "tabs": [{"id": "t", "root": {"type": "blob"}}]})
    paths.layouts.write_text(original, encoding="utf-8")
    store = JsonLayoutStore(paths, clock, SequentialIds())
    with pytest.raises(CorruptFile) as err:
        store.load()
    moved = paths.ideai / corrupt_files(paths.ideai)[0]
    assert err.value.quarantined_to == str(moved)
    assert moved.read_text(encoding="utf-8") == original
    assert len(store.load().leaves()) == 1


def test_work_state_update_merges_and_persists(paths, clock):
    store = JsonWorkStateStore(paths, clock)
    row = WorkRow("a", Status.WORKING, 5, intent="x")
    store.update(lambda s: s.merge(row))
    assert JsonWorkStateStore(paths, clock).load().rows["a"] == row
    store.update(lambda s: s.merge(WorkRow("a", Status.IDLE, 4)))
    assert store.load().rows["a"] == row


def test_skills_and_memory_index_kept_in_sync(paths, clock):
    skills = MarkdownSkillStore(paths, clock)
    skills.save(Skill("review", "Review a PR", "steps"))
    assert skills.get("review").body == "steps"
    assert [s.name for s in skills.all()] == ["review"]

    memory = MarkdownMemoryStore(paths, clock)
    memory.save(MemoryNote("n1", "Note one", "first", "project", "body"))
    memory.save(MemoryNote("n2", "Note two", "second", "reference", "body"))
    index = paths.memory_index.read_text(encoding="utf-8")
    assert "(n1.md)" in index
    assert "(n2.md)" in index
    memory.delete("n1")
    index = paths.memory_index.read_text(encoding="utf-8")
    assert "(n1.md)" not in index
    assert "(n2.md)" in index
    assert [n.slug for n in memory.all()] == ["n2"]
    with pytest.raises(NotFound):
        memory.get("n1")


def test_agent_edited_on_disk_is_read_again(paths, clock):
    store = MarkdownAgentStore(paths, clock, SequentialIds())
    store.save(Agent(id="a-1", name="dev", profile="shell", context="one"))
    assert store.get("dev").context == "one"
    # An editor replacing the file (new inode), then one writing in place with another size.
    replaced = Agent(id="a-1", name="dev", profile="shell", context="two").to_markdown()
    tmp = paths.agents / "dev.md.new"
    tmp.write_text(replaced, encoding="utf-8")
    tmp.replace(paths.agent_file("dev"))
    assert store.get("dev").context == "two"
    in_place = Agent(id="a-1", name="dev", profile="shell", context="three!").to_markdown()
    paths.agent_file("dev").write_text(in_place, encoding="utf-8")
    assert store.get("dev").context == "three!"
    paths.agent_file("dev").unlink()
    assert store.all() == []


def test_a_folder_or_a_fifo_named_like_an_agent_is_ignored_not_fatal(paths, clock):
    agents = MarkdownAgentStore(paths, clock, SequentialIds("a"), lambda _: None)
    agents.save(Agent(id="id-a", name="a", profile="claude"))
    (paths.agents / "x.md").mkdir()
    if hasattr(os, "mkfifo"):
        os.mkfifo(paths.agents / "y.md")
    assert [a.name for a in agents.all()] == ["a"]


def test_a_copied_agent_file_becomes_an_agent_of_its_own(paths, clock):
    """cp helper.md helper2.md: two agents, two ids; the older file keeps the id."""
    notices = []
    store = MarkdownAgentStore(paths, clock, SequentialIds("new"), lambda _: None, notices.append)
    store.save(Agent(id="id-h", name="helper", profile="shell", context="You help."))
    original = paths.agent_file("helper")
    os.utime(original, ns=(1_000_000_000, 1_000_000_000))
    paths.agent_file("helper2").write_bytes(original.read_bytes())
    by_name = {a.name: a for a in store.all()}
    assert by_name["helper"].id == "id-h"
    assert by_name["helper2"].id.startswith("new-")
    assert by_name["helper2"].context == "You help."
    assert store.get("helper2").id == by_name["helper2"].id  # saved back: stable
    assert store.get_by_id("id-h").name == "helper"
    (notice,) = notices
    assert (notice.name, notice.original, notice.old_id) == ("helper2", "helper", "id-h")
    assert "helper2" in notice.message and "helper" in notice.message
    assert [a.name for a in store.all()] == ["helper", "helper2"] and len(notices) == 1


def test_the_agent_list_follows_the_folder(paths, clock):
    """Files added, removed, renamed or replaced by a folder behind the store's back are seen at
    the next listing, however often it was listed before."""
    store = MarkdownAgentStore(paths, clock, SequentialIds("new"), lambda _: None)
    store.save(Agent(id="id-a", name="a", profile="shell"))
    assert [a.name for a in store.all()] == [a.name for a in store.all()] == ["a"]
    (paths.agents / "b.md").write_text(
        Agent(id="id-b", name="b", profile="shell").to_markdown(), encoding="utf-8"
    )
    assert [a.name for a in store.all()] == ["a", "b"]
    paths.agent_file("a").rename(paths.agent_file("c"))
    assert [(a.name, a.id) for a in store.all()] == [("b", "id-b"), ("c", "id-a")]
    paths.agent_file("b").unlink()
    paths.agent_file("b").mkdir()
    assert [a.name for a in store.all()] == ["c"]


def test_a_settled_agent_folder_is_not_listed_again_until_it_changes(paths, clock, monkeypatch):
    """A folder whose mtime is well before the listing is trusted while its mtime stays; a file
    added or removed since changes the mtime, and the next listing sees it."""
    store = MarkdownAgentStore(paths, clock, SequentialIds("new"), lambda _: None)
    store.save(Agent(id="id-a", name="a", profile="shell"))
    old_ns = (clock.now_ms() - 60_000) * 1_000_000
    os.utime(paths.agents, ns=(old_ns, old_ns))
    assert [a.name for a in store.all()] == ["a"]
    listed = []
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: listed.append(path) or real_scandir(path))
    assert [a.name for a in store.all()] == ["a"]
    assert listed == []  # settled: one stat of the folder, no listing
    store.save(Agent(id="id-b", name="b", profile="shell"))
    assert [a.name for a in store.all()] == ["a", "b"]
    paths.agent_file("a").unlink()
    assert [a.name for a in store.all()] == ["b"]


def test_an_agent_folder_changed_lately_is_listed_at_each_call(paths, clock):
    """A change in the same timestamp step as the listing leaves the folder's mtime as it was:
    a folder changed less than SETTLED_AFTER_NS before a listing is never trusted on its mtime."""
    store = MarkdownAgentStore(paths, clock, SequentialIds("new"), lambda _: None)
    store.save(Agent(id="id-a", name="a", profile="shell"))
    recent_ns = (clock.now_ms() - 1_000) * 1_000_000
    os.utime(paths.agents, ns=(recent_ns, recent_ns))
    assert [a.name for a in store.all()] == ["a"]
    store.save(Agent(id="id-b", name="b", profile="shell"))
    os.utime(paths.agents, ns=(recent_ns, recent_ns))  # the same step: the mtime did not move
    assert [a.name for a in store.all()] == ["a", "b"]


def _saves(monkeypatch, store: JsonWorkStateStore, fail: list[bool] | None = None) -> list[object]:
    """Count (and make fail, while ``fail[0]``) the store's writes."""
    saves: list[object] = []
    real_save = store._doc.save

    def save(obj):
        saves.append(obj)
        if fail and fail[0]:
            raise Internal("disk full")
        real_save(obj)

    monkeypatch.setattr(store._doc, "save", save)
    return saves


def _row(agent_id: str, status: Status, at: int) -> Callable[[WorkState], WorkState]:
    return lambda state: state.merge(WorkRow(agent_id, status, at))


async def test_on_the_loop_work_state_writes_are_coalesced_and_flushed(paths, clock, monkeypatch):
    store = JsonWorkStateStore(paths, clock)
    saves = _saves(monkeypatch, store)
    for n in range(50):
        store.update(_row(f"a{n}", Status.WORKING, n + 1))
    assert len(store.load().rows) == 50  # at once, in memory
    await store.flushed()
    assert len(saves) <= 2  # the first update's write, then one for the 49 made meanwhile
    on_disk = json.loads(paths.work_state.read_text(encoding="utf-8"))["agents"]
    assert len(on_disk) == 50
    store.update(_row("a0", Status.IDLE, 100))
    await store.flushed()
    assert json.loads(paths.work_state.read_text(encoding="utf-8"))["agents"]["a0"]["status"] == (
        "idle"
    )
    # Written, the file is the truth again: a change made by hand is seen.
    paths.work_state.write_text('{"version": 1, "agents": {}}', encoding="utf-8")
    assert store.load().rows == {}


async def test_a_failed_work_state_write_is_raised_to_who_waits_and_drops_its_updates(
    paths, clock, monkeypatch
):
    store = JsonWorkStateStore(paths, clock)
    store.update(_row("a", Status.WORKING, 1))
    await store.flushed()
    fail = [True]
    _saves(monkeypatch, store, fail)
    store.update(_row("b", Status.WORKING, 2))
    with pytest.raises(Internal, match="disk full"):
        await store.flushed()
    assert set(store.load().rows) == {"a"}  # as on disk, as when update itself failed
    fail[0] = False
    store.update(_row("c", Status.WORKING, 3))
    await store.flushed()
    assert set(json.loads(paths.work_state.read_text(encoding="utf-8"))["agents"]) == {"a", "c"}
