"""The file door against files a clone or a local attacker can plant: each gets one bounded,
typed answer (or is moved aside with the reason logged), none is dispatched twice, and the app
keeps serving meanwhile."""

import json
import os
import sys

import pytest

from tests.integration.doors.test_file import response, write_request
from tests.waiting import until

posix = pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs and links")
SKILL = {"action": "skill.create", "name": "s", "description": "d", "body": "b"}


def dispatches(runtime) -> list[dict]:
    path = runtime.services.paths.delegations_log
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def rescan(runtime, rounds=3):
    """Scan the folder again ``rounds`` times, each time until the scan is done and so is
    whatever it found."""
    door = runtime.file_door
    for _ in range(rounds):
        done = door.scans
        door.scan()
        await until(
            lambda done=done: door.scans > done and not door.in_hand(), what="a scan, and its finds"
        )


async def still_serving(folder, request_id):
    """Another request is answered: the door (and the core loop) did not freeze."""
    write_request(folder, request_id, {"action": "workstate.get"})
    assert (await response(folder, request_id))["ok"] is True


@pytest.mark.timeout(30)
async def test_an_id_too_long_for_its_response_is_dispatched_once_and_moved_aside(runtime):
    folder = runtime.services.paths.orchestrator
    # A legal file name (<= 255 bytes) whose response's temporary name is not.
    request_id = "x" * 235
    write_request(folder, request_id, SKILL)
    failed = folder / "failed" / f"{request_id}.request.json"
    await until(failed.exists, 15, "the request moved to failed/")
    await still_serving(folder, "after-long")
    await rescan(runtime)  # scans and events come and go: nothing dispatches it again
    assert [d["action"] for d in dispatches(runtime)].count("skill.create") == 1
    assert not (folder / f"{request_id}.request.json").exists()


@pytest.mark.timeout(30)
async def test_a_folder_in_place_of_the_response_is_dispatched_once(runtime):
    folder = runtime.services.paths.orchestrator
    (folder / "blocked.response.json").mkdir()
    write_request(folder, "blocked", SKILL)
    await until((folder / "failed" / "blocked.request.json").exists, 15, "moved to failed/")
    await still_serving(folder, "after-blocked")
    assert [d["action"] for d in dispatches(runtime)].count("skill.create") == 1


@posix
@pytest.mark.timeout(30)
async def test_a_fifo_request_gets_an_error_and_the_app_keeps_serving(runtime):
    folder = runtime.services.paths.orchestrator
    os.mkfifo(folder / "pipe.request.json")  # nobody will ever write to it
    answer = await response(folder, "pipe")
    assert answer["ok"] is False
    assert answer["error"]["code"] == "INVALID"
    assert "not a regular file" in answer["error"]["message"]
    await still_serving(folder, "after-pipe")


@posix
@pytest.mark.timeout(30)
async def test_a_link_to_dev_zero_or_to_nothing_gets_an_error(runtime):
    folder = runtime.services.paths.orchestrator
    (folder / "zero.request.json").symlink_to("/dev/zero")
    (folder / "dangling.request.json").symlink_to(folder / "no-such-file")
    zero, dangling = await response(folder, "zero"), await response(folder, "dangling")
    assert "not a regular file" in zero["error"]["message"]
    assert "link to nothing" in dangling["error"]["message"]
    assert not (folder / "dangling.request.json").is_symlink()  # archived, not re-read


@pytest.mark.timeout(60)
async def test_a_request_over_the_size_cap_gets_an_error(runtime):
    folder = runtime.services.paths.orchestrator
    big = json.dumps({"action": "workstate.get", "pad": "x" * (16 * 1024 * 1024)})
    write_request(folder, "big", big)
    answer = await response(folder, "big", timeout=30)
    assert answer["error"]["code"] == "INVALID"
    assert "larger than" in answer["error"]["message"]


@pytest.mark.timeout(30)
async def test_a_utf16_request_as_powershell_writes_it_is_understood(runtime):
    folder = runtime.services.paths.orchestrator
    tmp = folder / ".ps.tmp"
    tmp.write_bytes(json.dumps({"action": "workstate.get"}).encode("utf-16"))  # with a BOM
    os.replace(tmp, folder / "ps.request.json")
    assert (await response(folder, "ps"))["ok"] is True


@pytest.mark.timeout(30)
async def test_a_lone_surrogate_in_a_request_is_invalid_not_internal(runtime):
    # Found by the fuzz: stores writing it as UTF-8 raised, and the answer was INTERNAL.
    folder = runtime.services.paths.orchestrator
    write_request(
        folder, "ask", '{"action":"agent.message","targetAgent":"helper","task":"\\ud800"}'
    )
    write_request(
        folder, "ctx", '{"action":"agent.context.update","name":"helper","context":"a\\udfffb"}'
    )
    ask, ctx = await response(folder, "ask"), await response(folder, "ctx")
    assert (ask["error"]["code"], ctx["error"]["code"]) == ("INVALID", "INVALID")
    assert ask["error"]["message"].startswith("task: not valid Unicode text")
    assert ctx["error"]["message"].startswith("context: not valid Unicode text")
    await still_serving(folder, "after-surrogates")
