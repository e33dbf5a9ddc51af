"""A hand edit is never silently lost: ``agents.update`` / ``policy.set`` with the ``version``
they were made on, over the real WebSocket API, the files changed on disk as another editor would.
"""

# ruff: noqa: F811 - the UI server's fixtures are imported, then named by the tests that use them

import hashlib
import json

from tests.integration.app.ui.test_server import (  # noqa: F401 - the fixtures
    api,
    clock,
    dist,
    host,
    runtime,
    starter,
    ui,
)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hand_edit(path, old, new):
    text = path.read_text(encoding="utf-8").replace(old, new)
    path.write_text(text, encoding="utf-8")
    return text.encode("utf-8")


async def test_an_agent_edited_on_disk_meanwhile_is_a_conflict_and_the_file_is_kept(api, runtime):
    await api.ok("agents.create", name="rev", profile="claude", context="Review.")
    path = runtime.services.paths.agent_file("rev")
    got = await api.ok("agents.get", name="rev")
    assert got["version"] == sha(path.read_bytes())
    on_disk = hand_edit(path, "Review.", "Review, and mind the tests.")
    error = await api.fail("agents.update", name="rev", context="Mine.", version=got["version"])
    assert error["code"] == "CONFLICT" and str(path) in error["message"]
    assert error["path"] == str(path)
    assert error["version_on_disk"] == sha(on_disk)
    assert error["content_on_disk"] == on_disk.decode("utf-8")
    assert "Mine." in error["yours"] and "mind the tests" not in error["yours"]
    assert path.read_bytes() == on_disk  # nothing written
    # Overwrite, knowingly: the version on disk is sent back.
    saved = await api.ok(
        "agents.update", name="rev", context="Mine.", version=error["version_on_disk"]
    )
    assert saved["context"] == "Mine."
    assert saved["version"] == sha(path.read_bytes())
    # The version the save returned is the one to edit next.
    again = await api.ok("agents.update", name="rev", description="d", version=saved["version"])
    assert again["description"] == "d"


async def test_a_rename_on_an_old_version_renames_nothing(api, runtime):
    await api.ok("agents.create", name="rev", profile="claude", context="Review.")
    got = await api.ok("agents.get", name="rev")
    path = runtime.services.paths.agent_file("rev")
    on_disk = hand_edit(path, "Review.", "By hand.")
    error = await api.fail("agents.update", name="rev", new_name="reviewer", version=got["version"])
    assert error["code"] == "CONFLICT"
    assert "name: reviewer" in error["yours"]
    assert path.read_bytes() == on_disk
    assert not runtime.services.paths.agent_file("reviewer").exists()


async def test_without_a_version_a_save_is_accepted_as_before(api, runtime):
    # Old clients and scripts send no version: the last save wins, as it always did.
    await api.ok("agents.create", name="rev", profile="claude", context="Review.")
    hand_edit(runtime.services.paths.agent_file("rev"), "Review.", "By hand.")
    assert (await api.ok("agents.update", name="rev", context="Mine."))["context"] == "Mine."
    assert (await api.ok("policy.set", policy={"max_depth": 4}))["policy"]["max_depth"] == 4


async def test_a_version_that_is_not_one_is_invalid_naming_it(api, runtime):
    for bad in (7, ["x"], "not-a-hash", "A" * 64):
        error = await api.fail("agents.update", name="bot", context="x", version=bad)
        assert (error["code"], error["field"]) == ("INVALID", "version"), bad
        error = await api.fail("policy.set", policy={"max_depth": 2}, version=bad)
        assert (error["code"], error["field"]) == ("INVALID", "version"), bad
    assert (await api.ok("agents.get", name="bot"))["context"] == ""  # nothing changed


async def test_a_policy_edited_on_disk_meanwhile_is_a_conflict_and_the_file_is_kept(api, runtime):
    path = runtime.services.paths.policy
    got = await api.ok("policy.get")
    assert got["version"] == (sha(path.read_bytes()) if path.exists() else "")
    saved = await api.ok("policy.set", policy={"max_depth": 2}, version=got["version"])
    assert saved["version"] == sha(path.read_bytes())
    on_disk = json.dumps({**saved["policy"], "max_depth": 9}, indent=2).encode()
    path.write_bytes(on_disk)
    error = await api.fail("policy.set", policy={"ask_timeout_s": 60}, version=saved["version"])
    assert error["code"] == "CONFLICT" and str(path) in error["message"]
    assert error["version_on_disk"] == sha(on_disk)
    assert json.loads(error["content_on_disk"])["max_depth"] == 9
    assert json.loads(error["yours"])["ask_timeout_s"] == 60
    assert path.read_bytes() == on_disk
    after = await api.ok(
        "policy.set", policy={"ask_timeout_s": 60}, version=error["version_on_disk"]
    )
    assert (after["policy"]["max_depth"], after["policy"]["ask_timeout_s"]) == (9, 60)
