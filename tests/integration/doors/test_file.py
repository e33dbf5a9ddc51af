"""The file door as a script uses it: real files, real watchdog, a real runtime with fake agents."""

import asyncio
import json
import os

import pytest

from idea.app.bootstrap import open_project
from idea.domain.agent import Agent
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.waiting import until
from tests.worlds import trust_project


def write_request(folder, request_id, body):
    """Atomic, as a well-behaved script does it."""
    tmp = folder / f".{request_id}.tmp"
    tmp.write_text(body if isinstance(body, str) else json.dumps(body), encoding="utf-8")
    os.replace(tmp, folder / f"{request_id}.request.json")


async def response(folder, request_id, timeout=15.0):
    """The answer, once the request has left the door too (the response is written first, then
    the request archived: a crash in between answers it again rather than losing it)."""
    path = folder / f"{request_id}.response.json"
    request = folder / f"{request_id}.request.json"
    await until(
        lambda: path.exists() and not os.path.lexists(request),
        timeout,
        f"{request_id} answered and archived",
    )
    return json.loads(path.read_text(encoding="utf-8"))


async def test_well_formed_request_is_answered_and_archived(runtime):
    folder = runtime.services.paths.orchestrator
    write_request(folder, "r1", {"action": "agent.message", "targetAgent": "helper", "task": "hi"})
    answer = await response(folder, "r1")
    assert answer["ok"] is True
    assert answer["reply"] == "echo: hi"
    assert answer["id"] == "r1"
    assert not (folder / "r1.request.json").exists()
    assert (folder / "done" / "r1.request.json").exists()
    line = json.loads(runtime.services.paths.delegations_log.read_text(encoding="utf-8"))
    assert (line["source"], line["action"], line["requester"]) == ("file", "agent.message", None)


async def test_a_request_files_requester_is_claimed_and_sets_no_agents_row(runtime):
    folder = runtime.services.paths.orchestrator
    write_request(
        folder, "r2", {"action": "workstate.set", "status": "working", "requester": "helper"}
    )
    answer = await response(folder, "r2")
    assert answer["error"]["code"] == "FORBIDDEN"
    assert "only claimed" in answer["error"]["message"]
    assert "id-helper" not in runtime.services.work_state.load().rows
    write_request(folder, "r3", {"action": "workstate.get", "requester": "helper"})
    assert (await response(folder, "r3"))["ok"] is True
    lines = runtime.services.paths.delegations_log.read_text(encoding="utf-8").splitlines()
    logged = [json.loads(line) for line in lines]
    assert [(d["requester"], d["requester_claimed"]) for d in logged] == [
        ("id-helper", True),
        ("id-helper", True),
    ]


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ("{not json", "INVALID", None),
        ({"action": "agent.message", "targetAgent": "helper"}, "MISSING_FIELD", "task"),
        ({"action": "agent.explode"}, "INVALID", None),
        ({"action": "workstate.set", "status": "idle"}, "FORBIDDEN", None),
        ([1, 2], "INVALID", None),
    ],
)
async def test_bad_requests_get_an_error_response(runtime, body, code, field):
    folder = runtime.services.paths.orchestrator
    write_request(folder, "bad", body)
    answer = await response(folder, "bad")
    assert answer["ok"] is False
    assert answer["error"]["code"] == code
    if field:
        assert answer["error"]["field"] == field
    assert (folder / "done" / "bad.request.json").exists()


async def test_a_request_written_slowly_in_pieces(runtime):
    folder = runtime.services.paths.orchestrator
    text = json.dumps({"action": "agent.message", "targetAgent": "helper", "task": "slowly"})
    path = folder / "slow.request.json"
    with path.open("w", encoding="utf-8") as f:
        for i in range(0, len(text), 7):
            f.write(text[i : i + 7])
            f.flush()
            await asyncio.sleep(0.03)  # a slow writer, not a synchronisation
    answer = await response(folder, "slow")
    assert answer["reply"] == "echo: slowly"


async def test_requests_waiting_before_open_are_answered(tmp_path):
    folder = tmp_path / ".ideai" / "orchestrator"
    folder.mkdir(parents=True)
    write_request(folder, "early", {"action": "workstate.get"})
    trust_project(tmp_path)
    rt = await open_project(tmp_path, starter=FakeSessionStarter())
    try:
        assert (await response(folder, "early"))["ok"] is True
    finally:
        await rt.close()


@pytest.mark.timeout(120)
async def test_a_flood_of_1000_requests_loses_nothing(runtime):
    folder = runtime.services.paths.orchestrator
    ids = [f"f{i:04d}" for i in range(1000)]
    for i, request_id in enumerate(ids):
        body = (
            {"action": "agent.message", "targetAgent": "helper", "task": f"n{i}"}
            if i % 2
            else {"action": "workstate.get"}
        )
        write_request(folder, request_id, body)
    answers = {}

    def all_answered():
        for request_id in ids:
            path = folder / f"{request_id}.response.json"
            if request_id not in answers and path.exists():
                answers[request_id] = json.loads(path.read_text(encoding="utf-8"))
        # The response is written before its request is moved to done/ and counted: wait for both.
        return (
            len(answers) == len(ids)
            and len(list((folder / "done").glob("*.request.json"))) == len(ids)
            and runtime.file_door.answered == len(ids)
        )

    await until(all_answered, 100, "every request answered and filed", poll_s=0.05)
    assert all(a["ok"] for a in answers.values())
    assert [answers[f"f{i:04d}"]["reply"] for i in range(1, 1000, 2)] == [
        f"echo: n{i}" for i in range(1, 1000, 2)
    ]
    assert len(list((folder / "done").glob("*.request.json"))) == 1000
    assert runtime.file_door.answered == 1000


async def test_files_moved_aside_at_open_are_listed_as_problems(tmp_path):
    ideai = tmp_path / ".ideai"
    ideai.mkdir()
    (ideai / "layouts.json").write_text("{broken", encoding="utf-8")
    (ideai / "live-state.json").write_text("[1]", encoding="utf-8")
    rt = await open_project(tmp_path, starter=FakeSessionStarter(), file_door=False)
    try:
        moved = sorted(os.path.basename(p.quarantined_to) for p in rt.services.problems)
        assert [name.split(".corrupt-")[0] for name in moved] == ["layouts.json", "live-state.json"]
        assert all((ideai / name).exists() for name in moved)
    finally:
        await rt.close()


async def test_a_spawn_into_a_cell_that_does_not_exist_is_refused_and_a_real_one_is_bound(runtime):
    """On disk: the layout file names the spawned agent in its cell."""
    folder = runtime.services.paths.orchestrator
    spawn = {"action": "agent.spawn", "name": "helper", "visible": True}
    write_request(folder, "s1", {**spawn, "nodeId": "no-such-cell"})
    refused = await response(folder, "s1")
    assert (refused["ok"], refused["error"]["code"]) == (False, "NOT_FOUND")
    assert "nodeId" in refused["error"]["message"]
    assert not runtime.sessions.is_agent_live("id-helper")
    (cell,) = runtime.layouts().leaves()
    write_request(folder, "s2", {**spawn, "nodeId": cell.id})
    assert (await response(folder, "s2"))["ok"] is True
    saved = json.loads(runtime.services.paths.layouts.read_text(encoding="utf-8"))
    assert saved["tabs"][0]["root"]["agent"] == "id-helper"
    assert runtime.sessions.host_node("id-helper") == cell.id


async def test_a_request_file_is_governed_like_any_ask(runtime):
    """asks_from applies to a request file's claimed requester; each answered ask's log row has
    its chain, depth and usage (DESIGN.md §15)."""
    s = runtime.services
    s.agents.save(Agent(id="id-lead", name="lead", profile="claude"))
    s.agents.save(Agent(id="id-rev", name="rev", profile="claude", asks_from=("lead",)))
    folder = s.paths.orchestrator
    ask = {"action": "agent.message", "targetAgent": "rev", "task": "review"}
    write_request(folder, "g1", {**ask, "requester": "helper"})
    refused = await response(folder, "g1")
    assert refused["error"]["code"] == "FORBIDDEN"
    assert "helper may not ask rev" in refused["error"]["message"]
    write_request(folder, "g2", {**ask, "requester": "lead"})
    assert (await response(folder, "g2"))["reply"] == "echo: review"
    write_request(folder, "g3", ask)  # no requester: the user, who always may
    assert (await response(folder, "g3"))["ok"] is True
    lines = s.paths.delegations_log.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    assert [(r["code"], r["depth"]) for r in rows] == [("FORBIDDEN", 1), (None, 1), (None, 1)]
    assert len({r["chain_id"] for r in rows}) == 3
    assert (s.paths.run / "asks.jsonl").read_bytes() == b""  # nothing left in flight
