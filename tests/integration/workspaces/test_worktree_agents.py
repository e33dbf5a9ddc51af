"""A worktree agent as a user runs one: `idea agent new --worktree`, `idea serve`, a real shell
agent started from the UI writes a file, and the file is in its worktree, not in the project,
until `workspace.merge` brings it in; a request file can ask for the same review."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from idea.app.bootstrap import open_project
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


def git_out(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30, check=True
    ).stdout


@pytest.mark.timeout(120)
async def test_a_crash_in_the_middle_of_a_merge_leaves_the_project_untouched_after_reopen(
    tmp_path,
):
    """kill -9 of IdeA and of git while git merges (held open by the project's own
    pre-merge-commit hook, after the files were updated and before the commit): the next open
    undoes it, so the project is as it was, not half merged."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("hello\n", encoding="utf-8")
    git("init", "-q", "-b", "main", cwd=project)
    assert idea("init", str(project), cwd=tmp_path).returncode == 0
    assert (
        idea("agent", "new", "dev", "--profile", "shell", "--worktree", cwd=project).returncode == 0
    )
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "start", cwd=project)
    tree = project / ".ideai" / "worktrees" / "dev"
    flag = tmp_path / "merging"
    hook = project / ".git" / "hooks" / "pre-merge-commit"
    hook.write_text(f'#!/bin/sh\ntouch "{flag}"\nexec sleep 60\n', encoding="utf-8")
    hook.chmod(0o755)
    before = git_out(project, "rev-parse", "HEAD")
    with spawned([*IDEA, "serve", str(project)]) as serve:
        line = LineWatcher(serve.stdout).wait_for(lambda s: s.startswith("IdeA UI: "), timeout=30)
        async with UiClient.connect(line.removeprefix("IdeA UI: ").strip()) as ui:
            await ui.call("session.launch", name="dev")
            await ui.call("terminal.write", name="dev", data="echo x > made.txt\r")
            await until((tree / "made.txt").exists, 15, "the agent's file")
            await ui.call("session.stop", name="dev")
            merging = asyncio.create_task(ui.call("workspace.merge", name="dev"))
            await until(flag.exists, 30, "git to be merging")
            assert (project / "made.txt").exists()  # half way: the files are there already
            doomed = [p for p in psutil.Process(serve.pid).children(recursive=True)]
            serve.send_signal(signal.SIGKILL)
            serve.wait(timeout=10)
            for proc in doomed:  # the machine went down: git and its hook die too
                with contextlib.suppress(psutil.Error):
                    proc.kill()
            merging.cancel()
            with contextlib.suppress(BaseException):
                await merging
    hook.unlink()
    runtime = await open_project(project, resume=False, file_door=False)
    try:
        assert runtime.report.worktrees == ["undid the merge of dev's work that was cut short"]
    finally:
        await runtime.close()
    assert git_out(project, "rev-parse", "HEAD") == before
    assert not (project / "made.txt").exists()
    assert git_out(project, "status", "--porcelain", "--untracked-files=no") == ""
    assert not (project / ".git" / "MERGE_HEAD").exists()
