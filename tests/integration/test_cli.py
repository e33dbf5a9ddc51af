"""The scripting CLI as a user runs it: a real process, real files, exit codes and stderr."""

import json
import os
import signal
import socket
import subprocess
import sys

import psutil
import pytest

from idea.domain.layout import Layouts
from tests.processes import LineWatcher, spawned
from tests.waiting import until_blocking

IDEA = [sys.executable, "-m", "idea"]


# Headless on purpose: with a display, a bare `idea` would open a window.
HEADLESS = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}


def idea(*args, cwd, stdin=None):
    return subprocess.run(
        [*IDEA, *args],
        cwd=cwd,
        env=HEADLESS,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=30,
        check=False,
    )


def test_init_new_list_round_trip(tmp_path):
    project = tmp_path / "proj"
    out = idea("init", str(project), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert (project / ".ideai" / "project.json").is_file()
    again = idea("init", str(project), cwd=tmp_path)
    assert "Already" in again.stdout

    ctx = tmp_path / "ctx.md"
    ctx.write_text("Tu es l'architecte ✓\nligne 2\n", encoding="utf-8")
    sub = project / "src"
    sub.mkdir()
    made = idea("agent", "new", "arch", "--profile", "claude", "--context-file", str(ctx), cwd=sub)
    assert made.returncode == 0, made.stderr
    made = idea(
        "agent",
        "new",
        "sh",
        "--profile",
        "shell",
        "--context-file",
        "-",
        cwd=project,
        stdin="from stdin",
    )
    assert made.returncode == 0, made.stderr

    listed = idea("agent", "list", "--json", cwd=project)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [(r["name"], r["profile"], r["mode"]) for r in rows] == [
        ("arch", "claude", "structured"),
        ("sh", "shell", "terminal"),
    ]
    text = (project / ".ideai" / "agents" / "arch.md").read_text(encoding="utf-8")
    assert text.endswith("Tu es l'architecte ✓\nligne 2\n")
    far = idea("agent", "new", "far", "--profile", "shell", "--host", "gpu", cwd=project)
    assert far.returncode == 0, far.stderr
    assert "on host gpu" in far.stdout
    assert "host: gpu" in (project / ".ideai" / "agents" / "far.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["agent", "new", "../x", "--profile", "shell"], "agent name"),
        (["agent", "new", "Upper", "--profile", "shell"], "agent name"),
        (["agent", "new", "ok", "--profile", "nope"], "nope"),
        (["agent", "new", "ok"], "--profile"),
        (
            ["agent", "new", "ok", "--profile", "shell", "--context-file", "/no/such"],
            "context-file",
        ),
        (["agent", "new", "ok", "--profile", "shell", "--mode", "structured"], "structured"),
        (["agent", "new", "ok", "--profile", "shell", "--host", "No Host"], "host"),
        (["agent", "new", "ok", "--profile", "shell", "--host", "gpu", "--worktree"], "host"),
        (["agent"], "action"),
        (["frobnicate"], "frobnicate"),
        ([], "command"),
    ],
)
def test_bad_input_is_one_line_naming_the_problem_and_exit_2(tmp_path, args, needle):
    assert idea("init", cwd=tmp_path).returncode == 0
    out = idea(*args, cwd=tmp_path)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert needle in out.stderr


def test_duplicate_agent_is_refused(tmp_path):
    idea("init", cwd=tmp_path)
    assert idea("agent", "new", "a", "--profile", "shell", cwd=tmp_path).returncode == 0
    out = idea("agent", "new", "a", "--profile", "shell", cwd=tmp_path)
    assert out.returncode == 2
    assert "CONFLICT" in out.stderr


def test_agent_commands_outside_a_project_say_so(tmp_path):
    stray = [f for f in tmp_path.parents if (f / ".ideai" / "project.json").is_file()]
    assert not stray, f"a project was left in a folder above the tests' own: {stray}"
    out = idea("agent", "list", cwd=tmp_path)
    assert out.returncode == 2
    assert "idea init" in out.stderr


def test_serve_reconciles_reports_and_stops_cleanly_on_sigterm(tmp_path):
    idea("init", cwd=tmp_path)
    ideai = tmp_path / ".ideai"
    layouts = (
        Layouts.empty("t1", "l1")
        .split("l1", "row", "l2", "s1")
        .bind("l1", "agent-a", "chat")
        .bind("l2", "agent-a", "chat")
        .set_running("l1", True, "conv-1")
        .set_running("l2", True, "conv-2")
    )
    (ideai / "layouts.json").write_text(json.dumps(layouts.to_json()), encoding="utf-8")
    (ideai / "live-state.json").write_text(
        json.dumps(
            {
                "version": 1,
                "agents": {
                    "agent-a": {
                        "agent_id": "agent-a",
                        "status": "working",
                        "ticket": "T",
                        "updated_at_ms": 10**13,
                    },
                },
            }
        ),
        encoding="utf-8",
    )
    with spawned([*IDEA, "serve", str(tmp_path)]) as proc:
        out = LineWatcher(proc.stdout)
        out.wait_for(lambda line: "running" in line)
        assert "1 duplicate cell(s) cleared" in out.text()
        assert "1 orphan work-state row(s) set idle" in out.text()
        assert "resumed: none" in out.text()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    saved = Layouts.from_json(json.loads((ideai / "layouts.json").read_text(encoding="utf-8")))
    # agent-a is not an agent of the project: it could not be resumed, so at close no cell
    # was running any more.
    assert not [leaf.id for leaf in saved.leaves() if leaf.agent_was_running]
    board = json.loads((ideai / "live-state.json").read_text(encoding="utf-8"))
    assert board["agents"]["agent-a"]["status"] == "idle"
    assert board["agents"]["agent-a"]["ticket"] is None


@pytest.mark.skipif(os.name == "nt", reason="SIGINT delivery differs on Windows")
def test_serve_stops_on_sigint(tmp_path):
    with spawned([*IDEA, "serve", str(tmp_path)]) as proc:
        LineWatcher(proc.stdout).wait_for(lambda line: "running" in line)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
    assert (tmp_path / ".ideai" / "project.json").is_file()


def test_serve_uses_the_port_given(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with spawned([*IDEA, "serve", str(tmp_path), "--port", str(port)]) as proc:
        url = LineWatcher(proc.stdout).wait_for(lambda line: line.startswith("IdeA UI:"))
        assert f"http://127.0.0.1:{port}/?token=" in url
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    out = idea("serve", str(tmp_path), "--port", "70000", cwd=tmp_path)
    assert out.returncode == 2
    assert "--port" in out.stderr


def test_open_without_a_path_and_no_terminal_opens_the_last_project(tmp_path):
    # As a desktop launcher starts it: stdin is no terminal, the cwd is an accident.
    config = tmp_path / "config"
    last, older, plain = tmp_path / "last", tmp_path / "older", tmp_path / "plain"
    for folder in (last, older, plain):
        folder.mkdir()
    for folder in (older, last):  # `last` is opened last: it is first in the recent list
        assert idea("init", str(folder), cwd=tmp_path).returncode == 0
    gone = tmp_path / "gone"
    recent = {
        "version": 1,
        "projects": [{"root": str(gone), "name": "gone"}, {"root": str(last), "name": "last"}],
    }
    config.mkdir()
    (config / "recent-projects.json").write_text(json.dumps(recent), encoding="utf-8")
    env = {**HEADLESS, "IDEA_CONFIG_DIR": str(config)}
    with spawned([*IDEA, "open"], env=env, cwd=plain) as proc:
        out = LineWatcher(proc.stdout)
        opened = out.wait_for(lambda line: line.startswith("IdeA project "), timeout=30)
        assert opened.rstrip().endswith(f"opened at {last.resolve()}")
        out.wait_for(lambda line: line.startswith("IdeA UI: "), timeout=30)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    assert not (plain / ".ideai").exists()


def test_a_second_idea_on_an_open_project_is_refused_and_touches_nothing(tmp_path):
    idea("init", str(tmp_path), cwd=tmp_path)
    (tmp_path / ".ideai" / "agents").mkdir(exist_ok=True)
    (tmp_path / ".ideai" / "agents" / "sh.md").write_text(
        "---\nname: sh\nprofile: shell\n---\nA shell.\n", encoding="utf-8"
    )
    env = {**HEADLESS, "SHELL": "/bin/sh"}
    with spawned([*IDEA, "serve", str(tmp_path)], env=env) as first:
        LineWatcher(first.stdout).wait_for(lambda line: "running" in line, timeout=30)
        folder = tmp_path / ".ideai" / "orchestrator"
        (folder / ".spawn.tmp").write_text(
            json.dumps({"action": "agent.spawn", "name": "sh"}), encoding="utf-8"
        )
        os.replace(folder / ".spawn.tmp", folder / "spawn.request.json")
        answer = folder / "spawn.response.json"
        until_blocking(answer.exists, 30, "the spawn request is answered", poll_s=0.02)
        assert json.loads(answer.read_text(encoding="utf-8"))["ok"] is True
        shells = psutil.Process(first.pid).children(recursive=True)
        assert shells
        layouts_before = (tmp_path / ".ideai" / "layouts.json").read_bytes()

        second = idea("serve", str(tmp_path), cwd=tmp_path)
        assert second.returncode == 2
        assert second.stderr.startswith("idea: CONFLICT: project ")
        assert f"already open in another IdeA (process {first.pid})" in second.stderr
        # Nothing of the first one was touched: its agent lives, its files are as they were.
        assert all(p.is_running() for p in shells)
        assert (tmp_path / ".ideai" / "layouts.json").read_bytes() == layouts_before
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=15) == 0
    # Closed: the project opens again.
    with spawned([*IDEA, "serve", str(tmp_path)], env=env) as again:
        LineWatcher(again.stdout).wait_for(lambda line: "running" in line, timeout=30)
        again.send_signal(signal.SIGTERM)
        assert again.wait(timeout=15) == 0
