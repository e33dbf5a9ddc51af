"""End to end on Windows: ``idea serve`` (headless) on a project whose agents are the fake Claude
CLI; a request through the file door; then the official MCP SDK client spawning ``idea
mcp-server`` exactly as IdeA declares it (an environment of PATH and the declaration's own
variables only), over the named pipe, with ``idea_ask_agent`` answered by a structured agent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from idea.infrastructure.clis.declaration import mcp_server_entry
from idea.infrastructure.stores.mcp_secret import write_agent_key
from idea.infrastructure.stores.paths import ProjectPaths
from tests.paths import FAKE_CLIS
from tests.processes import LineWatcher
from tests.waiting import until_blocking
from tests.windows_lane import windows_only

pytestmark = [windows_only, pytest.mark.timeout(120)]

START_S = 60


def make_project(tmp_path: Path, folder: str) -> Path:
    project = tmp_path / folder
    ideai = project / ".ideai"
    (ideai / "agents").mkdir(parents=True)
    profiles = {
        "profiles": {
            "fake": {
                "command": [sys.executable, str(FAKE_CLIS / "claude.py")],
                "structured": "claude",
                "description": "The fake Claude CLI",
            }
        }
    }
    (ideai / "profiles.json").write_text(json.dumps(profiles), encoding="utf-8")
    for name in ("bot", "caller"):
        (ideai / "agents" / f"{name}.md").write_text(
            f"---\nid: id-{name}\nname: {name}\nprofile: fake\nmode: structured\n---\nEcho.\n",
            encoding="utf-8",
        )
    return project


# A user's folder as Windows users name them too: spaces, accents.
@pytest.fixture(params=["project", "Mes projets/Été 2026", "项目"])
def served(request, tmp_path):
    project = make_project(tmp_path, request.param)
    log = (tmp_path / "serve.stderr").open("w", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "idea", "serve", str(project), "--port", "0", "--trust"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        encoding="utf-8",
        cwd=tmp_path,
    )
    try:
        watcher = LineWatcher(proc.stdout)
        try:
            watcher.wait_for(lambda line: line.startswith("IdeA UI: "), timeout=START_S)
        except AssertionError:
            log.flush()
            raise AssertionError((tmp_path / "serve.stderr").read_text("utf-8")) from None
        yield project
    finally:
        proc.kill()  # TerminateProcess: the agents' job objects take them down with it
        proc.wait(timeout=30)
        proc.stdout.close()
        log.close()


def ask_by_file(project: Path, request_id: str, request: dict) -> dict:
    inbox = project / ".ideai" / "orchestrator"
    temporary = inbox / f".{request_id}.tmp"
    temporary.write_text(json.dumps(request), encoding="utf-8")
    os.replace(temporary, inbox / f"{request_id}.request.json")
    response = inbox / f"{request_id}.response.json"
    until_blocking(response.exists, timeout=60, what="the file door's response", poll_s=0.1)
    return json.loads(response.read_text(encoding="utf-8"))


async def test_file_door_then_the_sdk_client_over_the_named_pipe(served, tmp_path):
    answer = ask_by_file(
        served, "q1", {"action": "agent.message", "targetAgent": "bot", "task": "from a file"}
    )
    assert answer["ok"], answer
    assert answer["reply"] == "echo: from a file"

    paths = ProjectPaths(served)
    project_id = json.loads(paths.project_file.read_text(encoding="utf-8"))["id"]
    key_file = write_agent_key(paths.mcp_key, paths.run_dir("caller"), "id-caller")
    entry = mcp_server_entry(project_id, served, "id-caller", key_file)
    assert entry.args[entry.args.index("--endpoint") + 1].startswith("\\\\.\\pipe\\idea-")
    params = StdioServerParameters(
        command=entry.command,
        args=list(entry.args),
        env={"PATH": os.environ.get("PATH", ""), **entry.env},  # SystemRoot comes declared
    )
    errors = (tmp_path / "bridge.stderr").open("w", encoding="utf-8")  # a real file: fileno
    async with (
        stdio_client(params, errlog=errors) as (read, write),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        assert init.server_info.name == "idea"
        result = await session.call_tool(
            "idea_ask_agent", {"target": "bot", "task": "over the pipe"}
        )
        assert not result.is_error, result
        text = "".join(block.text for block in result.content if block.type == "text")
        assert "echo: over the pipe" in text
    errors.close()
