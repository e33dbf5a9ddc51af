"""Two checkouts of one repository (a clone and a git worktree of it) share the committed project
id; both are served at once, each with its own endpoint and agents, and a delegation through the
official MCP SDK client works in each. The same folder opened twice is still CONFLICT."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from idea.domain.agent import Agent
from idea.endpoint.naming import mcp_endpoint
from idea.infrastructure.clis.declaration import mcp_server_entry
from idea.infrastructure.stores.mcp_secret import write_agent_key
from idea.infrastructure.stores.paths import ProjectPaths
from tests.integration.test_hostile_project import clone, git
from tests.paths import FAKE_CLIS
from tests.processes import LineWatcher, spawned

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git (apt-get install git)"),
    pytest.mark.skipif(sys.platform == "win32", reason="Unix socket endpoints"),
]

IDEA = [sys.executable, "-m", "idea"]
CALLER = Agent(id="id-caller", name="caller", profile="claude")
HELPER = Agent(id="id-helper", name="helper", profile="claude")


def shared_repository(tmp_path: Path) -> Path:
    """A repository whose `.ideai/` is committed: project id, agents, a profile of the team's."""
    origin = tmp_path / "origin"
    origin.mkdir()
    made = subprocess.run(
        [*IDEA, "init", str(origin)], capture_output=True, timeout=30, check=False
    )
    assert made.returncode == 0, made.stderr
    ideai = origin / ".ideai"
    profiles = {"profiles": {"claude": {"command": [sys.executable, str(FAKE_CLIS / "claude.py")]}}}
    (ideai / "profiles.json").write_text(json.dumps(profiles), encoding="utf-8")
    (ideai / "agents").mkdir(exist_ok=True)
    for agent in (CALLER, HELPER):
        (ideai / "agents" / f"{agent.name}.md").write_text(agent.to_markdown(), encoding="utf-8")
    git("init", "-q", cwd=origin)
    git("add", "-A", "-f", ".", cwd=origin)
    git("commit", "-q", "-m", "team setup", cwd=origin)
    return origin


def project_id(root: Path) -> str:
    return json.loads((root / ".ideai" / "project.json").read_text(encoding="utf-8"))["id"]


async def ask_helper(root: Path, task: str) -> str:
    """What agent `caller`'s CLI does in `root`: spawn the bridge IdeA declares, ask `helper`."""
    paths = ProjectPaths(root)
    key = write_agent_key(paths.mcp_key, paths.run_dir(CALLER.name), CALLER.id)
    entry = mcp_server_entry(project_id(root), root, CALLER.id, key)
    params = StdioServerParameters(command=entry.command, args=list(entry.args), env=entry.env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        answer = await session.call_tool("idea_ask_agent", {"target": "helper", "task": task})
        assert not answer.is_error, answer
        return "".join(block.text for block in answer.content if block.type == "text")


@pytest.mark.timeout(120)
async def test_a_clone_and_a_worktree_are_served_side_by_side_each_with_its_own_agents(tmp_path):
    first = clone(shared_repository(tmp_path), tmp_path / "clone")
    second = tmp_path / "worktree"
    git("worktree", "add", "-q", str(second), cwd=first)
    assert project_id(first) == project_id(second)
    assert mcp_endpoint(project_id(first), str(first)) != mcp_endpoint(
        project_id(second), str(second)
    )
    with (
        spawned([*IDEA, "serve", "--trust", str(first)]) as serve_first,
        spawned([*IDEA, "serve", "--trust", str(second)]) as serve_second,
    ):
        for serve in (serve_first, serve_second):
            LineWatcher(serve.stdout).wait_for(lambda s: s.startswith("IdeA UI: "), timeout=30)
        assert await ask_helper(first, "from the clone") == "echo: from the clone"
        assert await ask_helper(second, "from the worktree") == "echo: from the worktree"
        for root, task in ((first, "from the clone"), (second, "from the worktree")):
            log = ProjectPaths(root).delegations_log.read_text(encoding="utf-8")
            (line,) = [json.loads(text) for text in log.splitlines()]
            assert (line["requester"], line["target"], line["prompt"]) == (
                CALLER.id,
                "helper",
                task,
            )
        # The same folder a second time is still refused: one IdeA per checkout.
        again = subprocess.run(
            [*IDEA, "serve", str(first)], capture_output=True, text=True, timeout=30, check=False
        )
        assert again.returncode != 0
        assert "CONFLICT" in again.stderr or "already open" in again.stderr, again.stderr
        for serve in (serve_first, serve_second):
            serve.send_signal(signal.SIGTERM)
            assert serve.wait(timeout=20) == 0
