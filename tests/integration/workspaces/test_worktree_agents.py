"""A worktree agent as a user runs one: `idea agent new --worktree`, `idea serve`, a real shell
agent started from the UI writes a file, and the file is in its worktree, not in the project,
until `workspace.merge` brings it in; a request file can ask for the same review."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_hostile_project import git
from tests.processes import LineWatcher, spawned
from tests.ui_client import UiClient
from tests.waiting import until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git (apt-get install git)"),
    pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell agent"),
]

IDEA = [sys.executable, "-m", "idea"]


def idea(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*IDEA, *args], cwd=cwd, capture_output=True, text=True, timeout=30, check=False
    )


@pytest.mark.timeout(120)
async def test_a_shell_agent_in_its_own_worktree_then_its_work_merged(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("hello\n", encoding="utf-8")
    git("init", "-q", "-b", "main", cwd=project)
    assert idea("init", str(project), cwd=tmp_path).returncode == 0
    made = idea("agent", "new", "dev", "--profile", "shell", "--worktree", cwd=project)
    assert made.returncode == 0, made.stderr
    assert "in its own worktree (branch idea/dev)" in made.stdout
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "start", cwd=project)
    tree = project / ".ideai" / "worktrees" / "dev"
    with spawned([*IDEA, "serve", str(project)]) as serve:
        line = LineWatcher(serve.stdout).wait_for(lambda s: s.startswith("IdeA UI: "), timeout=30)
        async with UiClient.connect(line.removeprefix("IdeA UI: ").strip()) as ui:
            with pytest.raises(AssertionError, match="NOT_FOUND"):
                await ui.call("workspace.changes", name="dev")  # not started yet
            await ui.call("session.launch", name="dev")
            assert (tree / "README.md").is_file()
            await ui.call("terminal.write", name="dev", data="pwd > where.txt; echo x > made.txt\r")
            await until((tree / "made.txt").exists, 15, "the agent's file")
            assert not (project / "made.txt").exists()
            changes = await ui.call("workspace.changes", name="dev")
            paths = {f["path"]: f["status"] for f in changes["files"]}
            assert paths == {"made.txt": "added", "where.txt": "added"}
            assert "+x" in changes["diff"]
            await ui.call("session.stop", name="dev")
            merged = await ui.call("workspace.merge", name="dev")
            assert (merged["branch"], merged["into"], merged["files"]) == ("idea/dev", "main", 2)
        assert (project / "made.txt").read_text(encoding="utf-8") == "x\n"
        assert (project / "where.txt").read_text(encoding="utf-8").strip() == str(tree)
        # The file door asks for the same review: it is empty now.
        door = project / ".ideai" / "orchestrator"
        (door / "r1.request.json").write_text(
            json.dumps({"action": "agent.changes", "name": "dev"}), encoding="utf-8"
        )
        response = door / "r1.response.json"
        await until(response.exists, 15, "the door's answer")
        answer = json.loads(response.read_text(encoding="utf-8"))
        assert (answer["ok"], answer["data"]["files"]) == (True, [])
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=20) == 0
