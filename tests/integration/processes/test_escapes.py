"""Processes that leave an agent's tree die with it: a double-forked background job keeps the
agent's session, a `setsid` one does not, and both keep the session's tag in their environment.
Tried with a real shell agent in a real terminal, stopped through the orchestrator, and after a
`kill -9` of IdeA followed by a reopen."""

from __future__ import annotations

import json
import random
import signal
import sys
from pathlib import Path

import psutil
import pytest

from idea.app.bootstrap import open_project
from idea.application.launch_agent import LaunchRequest
from idea.domain.agent import Agent
from idea.domain.layout import Layouts
from tests.processes import LineWatcher, spawned
from tests.waiting import until, until_blocking
from tests.worlds import trust_project

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX sessions (Windows: job objects)"),
]


def duration() -> str:
    return f"{random.randint(3000, 9000)}.{random.randint(100, 999)}"


def escaping_project(root: Path, also: str = "") -> tuple[str, str]:
    """A project whose agent `escaper` starts two sleeps that leave its tree; their durations."""
    a, b = duration(), duration()
    script = f"(sleep {a} &); (setsid sleep {b} &); {also}echo ESCAPED; exec sleep 600"
    ideai = root / ".ideai"
    (ideai / "agents").mkdir(parents=True)
    profiles = {"profiles": {"escaper": {"command": ["sh", "-c", script]}}}
    (ideai / "profiles.json").write_text(json.dumps(profiles), encoding="utf-8")
    agent = Agent(id="id-escaper", name="escaper", profile="escaper")
    (ideai / "agents" / "escaper.md").write_text(agent.to_markdown(), encoding="utf-8")
    trust_project(root)
    return a, b


def sleeping(duration: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if proc.info["cmdline"] == ["sleep", duration] and proc.status() != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


def escaped(a: str, b: str) -> bool:
    return bool(sleeping(a)) and bool(sleeping(b))


def gone(a: str, b: str) -> bool:
    return not sleeping(a) and not sleeping(b)


@pytest.mark.timeout(60)
async def test_stopping_the_agent_kills_what_left_its_tree(tmp_path):
    a, b = escaping_project(tmp_path)
    runtime = await open_project(tmp_path, resume=False, file_door=False)
    try:
        await runtime.launch(LaunchRequest("escaper", node_id=None))
        await until(lambda: escaped(a, b), 15, "the two escaping sleeps")
        leader = psutil.Process(runtime.sessions.terminal_session("id-escaper").pid)
        # They really left: neither is a descendant of the agent's process any more.
        descendants = {p.pid for p in leader.children(recursive=True)}
        assert not {p.pid for p in sleeping(a) + sleeping(b)} & descendants
        assert await runtime.stop_agent("escaper")
        await until(lambda: gone(a, b), 15, "the escaped sleeps to die with the agent")
    finally:
        await runtime.close()
        for proc in sleeping(a) + sleeping(b):
            proc.kill()


@pytest.mark.timeout(90)
async def test_a_reopen_after_kill_9_kills_what_left_the_trees(tmp_path):
    a, b = escaping_project(tmp_path)
    layouts = {
        "version": 1,
        "tabs": [
            {
                "id": "t1",
                "title": "Main",
                "root": {
                    "type": "leaf",
                    "id": "l1",
                    "agent": "id-escaper",
                    "view": "terminal",
                    "agent_was_running": True,
                    "conversation_id": None,
                },
            }
        ],
        "active_tab": "t1",
    }
    (tmp_path / ".ideai" / "layouts.json").write_text(json.dumps(layouts), encoding="utf-8")
    try:
        with spawned([sys.executable, "-m", "idea", "serve", str(tmp_path)]) as serve:
            LineWatcher(serve.stdout).wait_for(lambda line: line.startswith("resumed: escaper"))
            until_blocking(lambda: escaped(a, b), 15, "the two escaping sleeps")
            serve.send_signal(signal.SIGKILL)
            serve.wait(timeout=10)
        # The crash left the setsid one behind (the other may die of its terminal's hang-up).
        assert sleeping(b)
        runtime = await open_project(tmp_path, resume=False, file_door=False)
        try:
            assert gone(a, b)
            assert runtime.report.leftover_processes_killed
        finally:
            await runtime.close()
    finally:
        for proc in sleeping(a) + sleeping(b) + sleeping("600"):
            if proc.environ().get("IDEA_PROJECT_ROOT") == str(tmp_path):
                proc.kill()


@pytest.mark.timeout(60)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux subreaper")
def test_what_cleared_its_environment_and_left_its_session_dies_when_idea_closes(tmp_path):
    """No tag and no session to find it by: only the subreaper keeps it in IdeA's tree."""
    c = duration()
    a, b = escaping_project(tmp_path, also=f"(env -i setsid sleep {c} &); ")
    layouts = Layouts.empty("t1", "l1").bind("l1", "id-escaper", "terminal").set_running("l1", True)
    (tmp_path / ".ideai" / "layouts.json").write_text(json.dumps(layouts.to_json()), "utf-8")
    try:
        with spawned([sys.executable, "-m", "idea", "serve", str(tmp_path)]) as serve:
            LineWatcher(serve.stdout).wait_for(lambda line: line.startswith("resumed: escaper"))
            until_blocking(lambda: escaped(a, b) and sleeping(c), 15, "the three escaping sleeps")
            (hidden,) = sleeping(c)
            assert "IDEA_SESSION_TAG" not in hidden.environ()
            assert hidden.ppid() == serve.pid  # adopted by IdeA, not by init
            serve.send_signal(signal.SIGTERM)
            assert serve.wait(timeout=20) == 0
        assert not sleeping(c)
        assert gone(a, b)
    finally:
        for proc in sleeping(a) + sleeping(b) + sleeping(c):
            proc.kill()
