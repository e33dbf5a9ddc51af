"""agent.changes on a worktree with 1,000 changed files, beside `git diff --stat` alone.

The worktree is a real one made by GitWorktrees: 500 committed modifications, 300 uncommitted
ones and 200 new files. The figure is the median time of `changes()` (the file list with counts
and the bounded diff) over the median of `git diff --stat <base>` in the same worktree, run side
by side. The target is a ratio <= 1.5. Usage: python bench/worktree_changes.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from idea.domain.agent import Agent, Workspace
from idea.infrastructure.stores.paths import ProjectPaths
from idea.infrastructure.workspaces.worktrees import GitWorktrees
from tests.git_repos import git

AGENT = Agent(id="id-dev", name="dev", profile="claude", workspace=Workspace.WORKTREE)


def project_with_changes(root: Path) -> tuple[GitWorktrees, Path, str]:
    (root / ".ideai").mkdir(parents=True)
    src = root / "src"
    src.mkdir()
    for i in range(800):
        (src / f"m{i}.py").write_text("".join(f"line {n}\n" for n in range(40)), "utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    worktrees = GitWorktrees(ProjectPaths(root))
    tree = worktrees.folder(AGENT)
    for i in range(500):
        (tree / "src" / f"m{i}.py").write_text("changed\n" * 5, "utf-8")
    git(tree, "commit", "-q", "-am", "the agent's first work")
    for i in range(500, 800):
        (tree / "src" / f"m{i}.py").write_text("uncommitted\n", "utf-8")
    for i in range(200):
        (tree / "src" / f"new{i}.py").write_text("new\n" * 3, "utf-8")
    base = git(root, "merge-base", "HEAD", "idea/dev").strip()
    return worktrees, tree, base


def timed(work, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        worktrees, tree, base = project_with_changes(Path(tmp) / "project")
        changes = worktrees.changes(AGENT)
        assert len(changes.files) == 1000, len(changes.files)
        stat = timed(lambda: git(tree, "diff", "--stat", base), args.runs)
        ours = timed(lambda: worktrees.changes(AGENT), args.runs)
    print(f"git diff --stat: {stat * 1000:.1f} ms   agent.changes: {ours * 1000:.1f} ms")
    print(f"ratio: {ours / stat:.2f} (target <= 1.5)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
