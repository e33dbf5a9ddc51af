"""A real ``idea serve`` while a structured agent answers 200 MB (DESIGN.md §18): the UI answers
HTTP throughout, SIGTERM ends IdeA and its agent, and what it keeps stays small."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import psutil
import pytest

from tests.paths import FAKE_CLIS, ROOT
from tests.processes import LineWatcher
from tests.waiting import until_blocking

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(sys.platform != "linux", reason="reads the server's RSS in /proc"),
]

AUTH = {"security": {"auth": {"selectedType": "gemini-api-key"}}}


def gemini_project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A project whose ``bot`` runs the fake Gemini CLI, and the environment to serve it in."""
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".ideai" / "agents").mkdir(parents=True)
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(AUTH), encoding="utf-8")
    wrapper = tmp_path / "fake-gemini"
    wrapper.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_CLIS / "gemini.py"}" "$@"\n', encoding="utf-8"
    )
    wrapper.chmod(0o755)
    profiles = {"profiles": {"fake": {"command": [str(wrapper)], "structured": "gemini"}}}
    (project / ".ideai" / "profiles.json").write_text(json.dumps(profiles), encoding="utf-8")
    (project / ".ideai" / "agents" / "bot.md").write_text(
        "---\nname: bot\nprofile: fake\n---\nAnswers.\n", encoding="utf-8"
    )
    env = {
        **os.environ,
        "HOME": str(home),
        "FAKE_GEMINI_LOG": str(tmp_path / "gemini.log"),
        "PYTHONPATH": str(ROOT),  # this checkout's IdeA, whatever the environment points at
    }
    return project, env


def http_ok(url: str) -> bool:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.status == 200 and b"<html" in answer.read().lower()


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def peak_rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    line = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def test_during_a_200_mb_reply_the_ui_answers_and_sigterm_ends_idea(tmp_path: Path):
    project, env = gemini_project(tmp_path)
    replies = project / ".ideai" / "run" / "replies.d"
    door = project / ".ideai" / "orchestrator"
    stderr = (tmp_path / "serve.stderr").open("w", encoding="utf-8")
    serve = subprocess.Popen(
        [sys.executable, "-m", "idea", "serve", str(project), "--port", "0", "--trust"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=tmp_path,
    )
    try:
        out = LineWatcher(serve.stdout)  # type: ignore[arg-type]
        url = out.wait_for(lambda s: s.startswith("IdeA UI: "), timeout=60)
        url = url.removeprefix("IdeA UI: ").strip()
        assert http_ok(url)
        door.mkdir(parents=True, exist_ok=True)
        request = {"action": "agent.message", "targetAgent": "bot", "task": "HUGE_REPLY 200"}
        (door / ".r.tmp").write_text(json.dumps(request), encoding="utf-8")
        os.replace(door / ".r.tmp", door / "r.request.json")
        # Past the cap: the reply is being written, 1 MiB of it kept in memory.
        until_blocking(lambda: any(replies.glob("bot-*.txt")), timeout=120, what="a cut reply")
        for _ in range(3):
            assert http_ok(url)  # the UI answers while the reply streams
        [kept] = replies.glob("bot-*.txt")
        assert kept.stat().st_size < 200 * 10**6  # still streaming when it was asked
        assert peak_rss_mib(serve.pid) < 150  # nothing near 200 MB held
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=60) == 0
        log = (tmp_path / "gemini.log").read_text(encoding="utf-8").splitlines()
        agents = [pid for line in log if (pid := json.loads(line).get("pid"))]
        assert agents
        until_blocking(lambda: all(map(gone, agents)), timeout=30, what="the agent's CLI gone")
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait(timeout=10)
        if serve.stdout is not None:
            serve.stdout.close()
        stderr.close()
