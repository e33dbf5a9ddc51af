"""Agents in worktrees of their own, with real git: made on first use from the project's HEAD,
changes listed with their diff, merged with nothing half-applied, discarded back to the base."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from idea.domain.agent import Agent, Workspace
from idea.domain.errors import Conflict, Invalid, NotFound, Unavailable, Untrusted
from idea.infrastructure.stores.paths import GITIGNORE, ProjectPaths
from idea.infrastructure.workspaces.worktrees import GitWorktrees
from tests.git_repos import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

DEV = Agent(id="id-dev", name="dev", profile="claude", workspace=Workspace.WORKTREE)
QA = Agent(id="id-qa", name="qa", profile="claude", workspace=Workspace.WORKTREE)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".ideai").mkdir(parents=True)
    (root / ".ideai" / ".gitignore").write_text("run/\nlog/\n", encoding="utf-8")  # an old one
    (root / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


def test_a_worktree_is_made_from_head_on_its_branch_and_ignored(project):
    worktrees = GitWorktrees(ProjectPaths(project))
    folder = worktrees.folder(DEV)
    assert folder == project / ".ideai" / "worktrees" / "dev"
    assert (folder / "app.py").read_text(encoding="utf-8") == "def main():\n    return 1\n"
    assert git(folder, "branch", "--show-current").strip() == "idea/dev"
    assert git(project, "status", "--porcelain").strip() == "M .ideai/.gitignore"
    assert "worktrees/" in (project / ".ideai" / ".gitignore").read_text(encoding="utf-8")
    assert worktrees.folder(DEV) == folder  # the next launch finds it
    assert worktrees.folder(DEV.__class__(id="p", name="p", profile="claude")) == project
    assert "worktrees/" in GITIGNORE  # a new project ignores them from the start


def test_changes_list_committed_uncommitted_and_new_files_with_the_diff(project):
    worktrees = GitWorktrees(ProjectPaths(project))
    folder = worktrees.folder(DEV)
    (folder / "app.py").write_text("def main():\n    return 2\n", encoding="utf-8")
    git(folder, "commit", "-q", "-am", "two")
    (folder / "new.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    (folder / "gone.txt").write_text("", encoding="utf-8")
    changes = worktrees.changes(DEV)
    assert changes.branch == "idea/dev" and changes.ahead == 1
    assert [(f.path, f.status, f.additions, f.deletions) for f in changes.files] == [
        ("app.py", "modified", 1, 1),
        ("gone.txt", "added", 0, 0),
        ("new.py", "added", 2, 0),
    ]
    assert "+    return 2" in changes.diff and "+y = 2" in changes.diff
    assert not changes.truncated
    assert not (project / "new.py").exists()  # the project is untouched


def test_merge_commits_the_agents_work_then_merges_it_into_the_projects_branch(project):
    worktrees = GitWorktrees(ProjectPaths(project))
    folder = worktrees.folder(DEV)
    (folder / "new.py").write_text("x = 1\n", encoding="utf-8")  # never committed by the agent
    result = worktrees.merge(DEV, "dev: add new.py (asked: add a module)")
    assert (result.branch, result.into, result.files) == ("idea/dev", "main", 1)
    assert (project / "new.py").read_text(encoding="utf-8") == "x = 1\n"
    log = git(project, "log", "--format=%s", "-3")
    assert "dev: add new.py (asked: add a module)" in log
    assert worktrees.changes(DEV).files == ()


def test_a_conflicting_second_merge_lists_the_files_and_leaves_the_project_untouched(project):
    worktrees = GitWorktrees(ProjectPaths(project))
    for agent, value in ((DEV, "2"), (QA, "3")):
        folder = worktrees.folder(agent)
        (folder / "app.py").write_text(f"def main():\n    return {value}\n", encoding="utf-8")
    worktrees.merge(DEV, "dev's change")
    head = git(project, "rev-parse", "HEAD")
    before = (project / "app.py").read_bytes()
    with pytest.raises(Conflict) as err:
        worktrees.merge(QA, "qa's change")
    assert "app.py" in err.value.message and "nothing was changed" in err.value.message
    assert git(project, "rev-parse", "HEAD") == head
    assert (project / "app.py").read_bytes() == before
    assert git(project, "status", "--porcelain", "--untracked-files=no").strip() == (
        "M .ideai/.gitignore"
    )


def test_discard_goes_back_to_the_base(project):
    worktrees = GitWorktrees(ProjectPaths(project))
    folder = worktrees.folder(DEV)
    (folder / "app.py").write_text("broken\n", encoding="utf-8")
    git(folder, "commit", "-q", "-am", "oops")
    (folder / "junk.txt").write_text("junk", encoding="utf-8")
    base = worktrees.discard(DEV)
    assert base == git(project, "rev-parse", "HEAD").strip()
    assert (folder / "app.py").read_text(encoding="utf-8") == "def main():\n    return 1\n"
    assert not (folder / "junk.txt").exists()
    assert worktrees.changes(DEV).ahead == 0


def test_what_cannot_be_made_says_why(project, tmp_path):
    plain = tmp_path / "plain"
    (plain / ".ideai").mkdir(parents=True)
    with pytest.raises(Invalid, match="not a git repository"):
        GitWorktrees(ProjectPaths(plain)).folder(DEV)
    (project / "app.py").write_text("dirty\n", encoding="utf-8")
    with pytest.raises(Conflict, match=r"uncommitted changes \(app\.py\)"):
        GitWorktrees(ProjectPaths(project)).folder(DEV)
    git(project, "checkout", "-q", "app.py")
    git(project, "checkout", "-q", "--orphan", "other")
    git(project, "commit", "-q", "-m", "unrelated", "--allow-empty")
    git(project, "branch", "-q", "idea/dev")
    git(project, "checkout", "-q", "main")
    with pytest.raises(Conflict, match="exists with another history"):
        GitWorktrees(ProjectPaths(project)).folder(DEV)
    with pytest.raises(NotFound, match="no worktree yet"):
        GitWorktrees(ProjectPaths(project)).changes(QA)


def test_a_worktree_deleted_by_hand_is_made_again_on_its_branch(project):
    worktrees = GitWorktrees(ProjectPaths(project))
    folder = worktrees.folder(DEV)
    (folder / "kept.py").write_text("k = 1\n", encoding="utf-8")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "kept")
    shutil.rmtree(folder)
    again = worktrees.folder(DEV)
    assert (again / "kept.py").exists()  # the branch's work is still there


def test_reconcile_forgets_a_deleted_worktree_and_drops_a_stale_lock(project):
    worktrees = GitWorktrees(ProjectPaths(project))
    dev, qa = worktrees.folder(DEV), worktrees.folder(QA)
    lock = project / ".git" / "worktrees" / "qa" / "index.lock"
    lock.write_text("", encoding="utf-8")  # a git killed while it wrote qa's index
    shutil.rmtree(dev)
    assert worktrees.reconcile() == [
        "forgot worktrees deleted by hand",
        "removed a stale index lock in qa's worktree",
    ]
    assert not lock.exists()
    (qa / "note.txt").write_text("n\n", encoding="utf-8")
    assert [f.path for f in worktrees.changes(QA).files] == ["note.txt"]  # git works there again
    assert worktrees.reconcile() == []  # a second open finds nothing to do


def test_counts_hold_for_tricky_lines_binary_files_and_a_cut_diff(project, monkeypatch):
    worktrees = GitWorktrees(ProjectPaths(project))
    folder = worktrees.folder(DEV)
    (folder / "app.py").write_text("++ not a header\n--- nor this\n", encoding="utf-8")
    (folder / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    (folder / "z.txt").write_text("".join(f"{n}\n" for n in range(50)), encoding="utf-8")
    whole = {f.path: (f.status, f.additions, f.deletions) for f in worktrees.changes(DEV).files}
    assert whole == {
        "app.py": ("modified", 2, 2),
        "blob.bin": ("added", 0, 0),
        "z.txt": ("added", 50, 0),
    }
    monkeypatch.setattr("idea.infrastructure.workspaces.worktrees.DIFF_MAX_CHARS", 200)
    cut = worktrees.changes(DEV)
    assert cut.truncated and len(cut.diff) == 200
    assert {f.path: (f.status, f.additions, f.deletions) for f in cut.files} == whole


def test_the_projects_worktree_setup_runs_in_a_new_worktree_only_when_trusted(project):
    setup = project / ".ideai" / "worktree-setup"
    setup.write_text("echo ready > .env.local\n", encoding="utf-8")
    untrusted = GitWorktrees(ProjectPaths(project), trusted=lambda: False)
    assert not (untrusted.folder(DEV) / ".env.local").exists()
    trusted = GitWorktrees(ProjectPaths(project), trusted=lambda: True)
    assert (trusted.folder(QA) / ".env.local").read_text(encoding="utf-8") == "ready\n"
    setup.write_text("echo no network >&2; exit 3\n", encoding="utf-8")
    other = Agent(id="id-o", name="other", profile="claude", workspace=Workspace.WORKTREE)
    with pytest.raises(Unavailable, match=r"worktree-setup failed \(exit 3\).*no network"):
        trusted.folder(other)


def test_a_deleted_agents_worktree_and_branch_are_removed_when_asked(project):
    worktrees = GitWorktrees(ProjectPaths(project))
    folder = worktrees.folder(DEV)
    assert worktrees.exists(DEV) and not worktrees.exists(QA)
    worktrees.remove(DEV)
    assert not folder.exists() and not worktrees.exists(DEV)
    assert "idea/dev" not in git(project, "branch", "--list")


def test_the_boards_summary_counts_files_and_commits_ahead(project):
    worktrees = GitWorktrees(ProjectPaths(project))
    assert worktrees.summary(DEV) == (0, 0)  # not started yet
    folder = worktrees.folder(DEV)
    (folder / "app.py").write_text("changed\n", encoding="utf-8")
    git(folder, "commit", "-q", "-am", "one")
    (folder / "new.txt").write_text("n\n", encoding="utf-8")
    (folder / "README").write_text("r\n", encoding="utf-8")
    assert worktrees.summary(DEV) == (3, 1)


def test_a_gitdir_line_pointing_outside_is_invalid_and_its_lock_is_never_removed(project, tmp_path):
    worktrees = GitWorktrees(ProjectPaths(project))
    worktrees.folder(DEV)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    lock = elsewhere / "index.lock"
    lock.write_text("someone else's\n", encoding="utf-8")
    planted = project / ".ideai" / "worktrees" / "qa"
    planted.mkdir()
    (planted / ".git").write_text(f"gitdir: {elsewhere}\n", encoding="utf-8")
    with pytest.raises(Invalid, match=f"gitdir: {elsewhere}"):
        worktrees.exists(QA)
    done = worktrees.reconcile()
    assert any("left qa's worktree alone" in line for line in done), done
    assert lock.read_text(encoding="utf-8") == "someone else's\n"


def test_reads_leave_the_index_alone_and_writes_are_untrusted_in_a_restricted_project(project):
    GitWorktrees(ProjectPaths(project)).folder(DEV)
    restricted = GitWorktrees(ProjectPaths(project), may_write=lambda: False)
    folder = project / ".ideai" / "worktrees" / "dev"
    (folder / "new.py").write_text("x = 1\n", encoding="utf-8")
    index = project / ".git" / "worktrees" / "dev" / "index"
    before = index.read_bytes()
    assert [f.path for f in restricted.changes(DEV).files] == ["new.py"]
    assert restricted.summary(DEV) == (1, 0)
    assert index.read_bytes() == before  # the new file was told of to a copy of the index
    for write in (lambda: restricted.merge(DEV, "m"), lambda: restricted.discard(DEV)):
        with pytest.raises(Untrusted):
            write()
    (project / ".ideai" / "run").mkdir()
    (project / ".ideai" / "run" / "merging.json").write_text("{}", encoding="utf-8")
    assert restricted.reconcile() == ["a merge cut short is finished when the project is trusted"]
    assert (project / ".ideai" / "run" / "merging.json").exists()


def test_the_hooks_listed_are_the_executable_ones_where_core_hookspath_points(project):
    worktrees = GitWorktrees(ProjectPaths(project))
    default = project / ".git" / "hooks"
    (default / "post-merge").write_text("#!/bin/sh\n", encoding="utf-8")
    (default / "post-merge").chmod(0o755)
    assert worktrees.hooks() == (default.resolve(), ["post-merge"])  # the .sample ones are not
    ours = project / "githooks"
    ours.mkdir()
    for name, mode in (("pre-commit", 0o755), ("README", 0o644)):
        (ours / name).write_text("#!/bin/sh\n", encoding="utf-8")
        (ours / name).chmod(mode)
    git(project, "config", "core.hooksPath", "githooks")
    assert worktrees.hooks() == (ours.resolve(), ["pre-commit"])
