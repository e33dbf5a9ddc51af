"""A save made on a version of an agent's file or of the policy never replaces a file changed since.

The file is changed on disk as another editor would (plain writes); IdeA's saves name the version
they were made on, and two of them racing on one version: one wins, the other is refused.
"""

import hashlib
import json
import threading

import pytest

from idea.domain.agent import Agent
from idea.domain.errors import Conflict
from idea.domain.policy import Policy
from idea.infrastructure.files import file_version
from idea.infrastructure.stores.agents import MarkdownAgentStore
from idea.infrastructure.stores.paths import ProjectPaths
from idea.infrastructure.stores.policy import JsonPolicyStore
from tests.fakes.ports.clock import FakeClock, SequentialIds


@pytest.fixture
def paths(tmp_path):
    p = ProjectPaths(tmp_path)
    p.ideai.mkdir()
    return p


@pytest.fixture
def agents(paths):
    store = MarkdownAgentStore(paths, FakeClock(), SequentialIds())
    store.save(Agent(id="a-1", name="dev", profile="shell", context="first\n"))
    return store


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hand_edit(path, old: str, new: str) -> bytes:
    text = path.read_text(encoding="utf-8").replace(old, new)
    path.write_text(text, encoding="utf-8")
    return text.encode("utf-8")


def test_an_agents_version_is_the_hash_of_its_file_as_on_disk(agents, paths):
    agent, version = agents.get_versioned("dev")
    assert agent.context == "first\n"
    assert version == sha(paths.agent_file("dev").read_bytes())


def test_a_hand_written_agent_gets_its_id_before_its_version_is_taken(agents, paths):
    path = paths.agent_file("hand")
    path.write_text("---\nprofile: shell\n---\nby hand\n", encoding="utf-8")
    agent, version = agents.get_versioned("hand")
    assert version == sha(path.read_bytes())  # the file with its id written back
    agents.save(agent.with_context("edited\n"), version)  # no spurious conflict
    assert agents.get("hand").context == "edited\n"


def test_a_save_on_an_old_version_is_refused_with_both_versions_and_the_file_kept(agents, paths):
    path = paths.agent_file("dev")
    agent, version = agents.get_versioned("dev")
    on_disk = hand_edit(path, "first", "edited by hand")
    with pytest.raises(Conflict) as refused:
        agents.save(agent.with_context("mine\n"), version)
    assert refused.value.code == "CONFLICT" and str(path) in refused.value.message
    error = refused.value.changed
    assert error is not None and error.path == str(path)
    assert error.version_on_disk == sha(on_disk)
    assert error.content_on_disk == on_disk.decode("utf-8")
    assert "mine" in error.yours and error.yours == agent.with_context("mine\n").to_markdown()
    assert path.read_bytes() == on_disk  # the hand edit is kept
    agents.save(agent.with_context("mine\n"), error.version_on_disk)  # overwrite, knowingly
    assert agents.get("dev").context == "mine\n"


def test_a_save_without_a_version_replaces_the_file_as_before(agents, paths):
    agent = agents.get("dev")
    hand_edit(paths.agent_file("dev"), "first", "edited by hand")
    agents.save(agent.with_context("mine\n"))
    assert agents.get("dev").context == "mine\n"


def test_a_rename_on_an_old_version_is_refused_and_writes_nothing(agents, paths):
    _, version = agents.get_versioned("dev")
    on_disk = hand_edit(paths.agent_file("dev"), "first", "edited by hand")
    with pytest.raises(Conflict):
        agents.rename("dev", "builder", version)
    assert paths.agent_file("dev").read_bytes() == on_disk
    assert not paths.agent_file("builder").exists()
    assert agents.rename("dev", "builder", sha(on_disk)).name == "builder"


def test_two_saves_racing_on_one_version_one_wins_the_other_is_refused(agents, paths):
    agent, version = agents.get_versioned("dev")
    start = threading.Barrier(8)
    outcomes: list[str] = []

    def save(n: int) -> None:
        start.wait(timeout=10)
        try:
            agents.save(agent.with_context(f"writer {n}\n"), version)
            outcomes.append(f"saved {n}")
        except Conflict:
            outcomes.append("refused")

    threads = [threading.Thread(target=save, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    saved = [o for o in outcomes if o.startswith("saved")]
    assert len(saved) == 1 and outcomes.count("refused") == 7
    assert agents.get("dev").context == f"writer {saved[0].split()[1]}\n"


def test_the_policy_version_is_empty_without_a_file_and_its_hash_with_one(paths):
    store = JsonPolicyStore(paths, FakeClock(), lambda _: None)
    assert store.current_versioned() == (Policy(), "")
    store.save(Policy(max_depth=2), "")  # made on no file: there is none yet
    policy, version = store.current_versioned()
    assert policy.max_depth == 2 and version == sha(paths.policy.read_bytes())


def test_a_policy_save_on_an_old_version_is_refused_and_the_file_kept(paths):
    store = JsonPolicyStore(paths, FakeClock(), lambda _: None)
    store.save(Policy())
    policy, version = store.current_versioned()
    on_disk = json.dumps({**Policy().to_json(), "max_depth": 7}).encode()
    paths.policy.write_bytes(on_disk)
    with pytest.raises(Conflict) as refused:
        store.save(policy.changed({"ask_timeout_s": 60}), version)
    assert refused.value.changed.version_on_disk == sha(on_disk)
    assert json.loads(refused.value.changed.content_on_disk)["max_depth"] == 7
    assert json.loads(refused.value.changed.yours)["ask_timeout_s"] == 60
    assert paths.policy.read_bytes() == on_disk
    store.save(policy.changed({"ask_timeout_s": 60}), refused.value.changed.version_on_disk)
    assert store.current().ask_timeout_s == 60


def test_a_conflicts_texts_are_bounded():
    shown = file_version.bounded_text("é".encode() * 500, 100)
    assert len(shown.encode("utf-8")) < 200 and "900 more bytes not shown" in shown
    assert file_version.bounded_text(b"\xff ok") == "\ufffd ok"  # not UTF-8: still shown
