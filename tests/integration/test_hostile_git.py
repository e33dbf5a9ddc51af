"""git never runs a restricted project's own code, and no path from the project leaves it
(DESIGN.md §18), tried through the real doors: `idea serve` as a process, its UI's websocket.

The project is laid out as an archive brings it: a real repository whose `.git/config` names a
core.fsmonitor program, an external diff, a textconv driver and a filter driver (both named by
`.gitattributes`), and whose hooks write marker files; an agent's worktree with work in it; and
`.ideai/run/merging.json` saying a merge was cut short at HEAD. Restricted, nothing of it runs:
not at open, not when the board asks for counts or the changes are read; a merge is UNTRUSTED.
Trusted, the cut-short merge is finished and a merge runs the hooks, as it would for the user.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

from idea.domain.agent import Agent, Workspace
from idea.domain.layout import Layouts
from tests.git_repos import git
from tests.processes import LineWatcher, spawned
from tests.ui_client import UiClient

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git (apt-get install git)"),
    pytest.mark.skipif(sys.platform == "win32", reason="the planted programs are POSIX shell's"),
]

IDEA = [sys.executable, "-m", "idea"]
DEV = Agent(id="id-dev", name="dev", profile="idle", workspace=Workspace.WORKTREE)
PROFILES = {"profiles": {"idle": {"command": ["sh", "-c", "exec sleep 60"], "structured": None}}}
HOOKS = (
    "post-index-change",
    "reference-transaction",
    "pre-merge-commit",
    "post-commit",
    "post-merge",
    "post-checkout",
    "pre-commit",
)


def planted(markers: Path, name: str, then: str = "") -> str:
    return f"#!/bin/sh\ntouch '{markers / name}'\n{then}"


def executable(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


def archived_project(tmp_path: Path) -> tuple[Path, Path]:
    """The project and the (empty) folder its planted programs would leave markers in."""
    markers = tmp_path / "markers"
    markers.mkdir()
    root = tmp_path / "project"
    (root / ".ideai" / "agents").mkdir(parents=True)
    (root / ".ideai" / ".gitignore").write_text("run/\nlog/\nworktrees/\n", encoding="utf-8")
    (root / ".ideai" / "agents" / "dev.md").write_text(DEV.to_markdown(), encoding="utf-8")
    (root / ".ideai" / "profiles.json").write_text(json.dumps(PROFILES), encoding="utf-8")
    layouts = Layouts.empty("t1", "l1").bind("l1", DEV.id, "terminal")
    (root / ".ideai" / "layouts.json").write_text(json.dumps(layouts.to_json()), encoding="utf-8")
    (root / "notes.txt").write_text("one\n", encoding="utf-8")
    (root / ".gitattributes").write_text("*.txt filter=evil diff=evil\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    tree = root / ".ideai" / "worktrees" / "dev"
    git(root, "worktree", "add", "-q", "-b", "idea/dev", str(tree))
    (tree / "notes.txt").write_text("one\ntwo\n", encoding="utf-8")  # a filtered, textconv file
    (tree / "new.py").write_text("x = 1\n", encoding="utf-8")
    git(tree, "add", "new.py")
    git(tree, "commit", "-q", "-m", "dev's work")
    (tree / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")  # uncommitted work
    # What the archive's .git brings: programs of the stranger's, each leaving a marker.
    programs = tmp_path / "programs"
    programs.mkdir()
    config = {
        "core.fsmonitor": executable(programs / "fsmonitor", planted(markers, "fsmonitor")),
        "diff.external": executable(programs / "extdiff", planted(markers, "diff.external")),
        "diff.evil.textconv": executable(
            programs / "textconv", planted(markers, "textconv", 'cat "$1"\n')
        ),
        "filter.evil.clean": executable(programs / "clean", planted(markers, "clean", "cat\n")),
        "filter.evil.smudge": executable(programs / "smudge", planted(markers, "smudge", "cat\n")),
        "filter.evil.required": "true",
    }
    for key, value in config.items():
        git(root, "config", key, str(value))
    for name in HOOKS:
        executable(root / ".git" / "hooks" / name, planted(markers, name))
    head = git(root, "rev-parse", "HEAD").strip()
    (root / ".ideai" / "run").mkdir()
    merging = {"agent": "dev", "before": head}
    (root / ".ideai" / "run" / "merging.json").write_text(json.dumps(merging), encoding="utf-8")
    return root, markers


def ran(markers: Path) -> list[str]:
    return sorted(os.listdir(markers))


def ui_url(out: LineWatcher) -> str:
    line = out.wait_for(lambda s: s.startswith("IdeA UI: "), timeout=30)
    return line.removeprefix("IdeA UI: ").strip()


@pytest.mark.timeout(180)
async def test_a_restricted_archive_runs_none_of_its_git_code_and_trusted_it_runs_at_merge(
    tmp_path,
):
    project, markers = archived_project(tmp_path)
    merging = project / ".ideai" / "run" / "merging.json"
    with spawned([*IDEA, "serve", str(project)]) as serve:
        url = ui_url(LineWatcher(serve.stdout))
        async with UiClient.connect(url) as ui:
            trust = await ui.call("trust.get")
            assert trust["state"] == "restricted"
            hooks_dir = (project / ".git" / "hooks").resolve()
            assert trust["git_hooks"] == {"dir": str(hooks_dir), "names": sorted(HOOKS)}
            # The board's load: the agents, then each worktree agent's counts.
            await ui.call("agents.list")
            summary = await ui.call("workspace.summary", name="dev")
            assert summary == {"files": 2, "ahead": 1}
            changes = await ui.call("workspace.changes", name="dev")
            assert {f["path"]: f["status"] for f in changes["files"]} == {
                "new.py": "added",
                "notes.txt": "modified",
            }
            assert "+three" in changes["diff"]  # the file itself, not a textconv of it
            for action in ("workspace.merge", "workspace.discard"):
                refused = await ui.reply(action, name="dev")
                assert refused["error"]["code"] == "UNTRUSTED", refused
            assert ran(markers) == []
            assert merging.exists()  # the cut-short merge waits for trust

            trusted = await ui.call("trust.grant")
            assert trusted["state"] == "trusted"
            assert not merging.exists()  # finished at trust: undone, HEAD had not moved
            merged = await ui.call("workspace.merge", name="dev")
            assert merged["into"] == "main"
            # The user's own git would run these at a merge; with trust, IdeA's does too.
            assert {"pre-merge-commit", "post-merge"} <= set(ran(markers))
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=20) == 0
    assert (project / "new.py").is_file()


@pytest.mark.timeout(120)
async def test_a_cloned_worktrees_symlink_is_invalid_named_and_nothing_is_written_outside(
    tmp_path,
):
    outside = tmp_path / "autostart"
    outside.mkdir()
    origin = tmp_path / "stranger"
    (origin / ".ideai" / "agents").mkdir(parents=True)
    (origin / ".ideai" / "agents" / "dev.md").write_text(DEV.to_markdown(), encoding="utf-8")
    (origin / ".ideai" / "profiles.json").write_text(json.dumps(PROFILES), encoding="utf-8")
    layouts = Layouts.empty("t1", "l1").bind("l1", DEV.id, "terminal")
    (origin / ".ideai" / "layouts.json").write_text(json.dumps(layouts.to_json()), "utf-8")
    (origin / ".ideai" / "worktrees").symlink_to(outside)
    (origin / "README.md").write_text("A helpful project.\n", encoding="utf-8")
    git(origin, "init", "-q", "-b", "main")
    git(origin, "add", "-A", "-f")
    git(origin, "commit", "-q", "-m", "start")
    project = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(project))
    assert (project / ".ideai" / "worktrees").is_symlink()

    with spawned([*IDEA, "serve", "--trust", str(project)]) as serve:
        url = ui_url(LineWatcher(serve.stdout))
        async with UiClient.connect(url) as ui:
            assert (await ui.call("trust.get"))["state"] == "trusted"
            refused = await ui.reply("session.launch", name="dev", node_id="l1")
            assert refused["error"]["code"] == "INVALID", refused
            assert str(project / ".ideai" / "worktrees") in refused["error"]["message"]
            summary = await ui.reply("workspace.summary", name="dev")
            assert summary["error"]["code"] == "INVALID", summary
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=20) == 0
    assert list(outside.iterdir()) == []
    assert "idea/dev" not in git(project, "branch", "--list")
