"""Agents in git worktrees of their own (DESIGN.md §14): ``.ideai/worktrees/<agent>`` on branch
``idea/<agent>``, made from the project's HEAD at the agent's first launch.

Invariants:
- Nothing is a surprise: a project that is not a git repository, that has no commit, whose tracked
  files have uncommitted changes (the worktree would start without them), a branch ``idea/<agent>``
  with another history, or a folder in the worktree's place → a clear error naming it.
- Nothing the agent wrote is lost: before a merge its uncommitted work is committed on its branch.
- Nothing is half applied: a merge is tried first without touching any file (``git merge-tree``);
  on a conflict the project is untouched and ``CONFLICT`` lists the files. ``discard`` resets the
  worktree and its branch to where the branch left the project's.
- Nothing leaves the project (DESIGN.md §18): ``.ideai/worktrees``, each worktree and each
  ``gitdir:`` line are resolved; a symlink on the way or a path outside the project's real path
  (or, for ``gitdir:``, outside the repository's real git folder) is ``Invalid`` naming it, and
  nothing is created or deleted there.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from idea.domain.agent import Agent, Workspace
from idea.domain.errors import Conflict, IdeaError, Invalid, NotFound, Unavailable
from idea.domain.workspace import DIFF_MAX_CHARS, FileChange, MergeResult, WorkspaceChanges
from idea.infrastructure.files.atomic import make_folder, read_text, write_atomic
from idea.infrastructure.stores.paths import ProjectPaths
from idea.infrastructure.workspaces.git import GitWriter, hooks, listing_and_patch, read
from idea.infrastructure.workspaces.git_output import (
    conflicted_files,
    count_patch,
    listed,
    parse_numstat,
    parse_raw,
)

IGNORE_LINE = "worktrees/"
SETUP_FILE = "worktree-setup"
MERGING = "merging.json"  # in .ideai/run: the merge in progress, finished or undone after a crash


def branch_of(agent_name: str) -> str:
    return f"idea/{agent_name}"


SETUP_TIMEOUT_S = 600.0
_SETUP_TAIL = 2000


class GitWorktrees:
    def __init__(
        self,
        paths: ProjectPaths,
        trusted: Callable[[], bool] = lambda: False,
        may_write: Callable[[], bool] = lambda: True,
    ) -> None:
        """``trusted``: whether the project's own worktree-setup may run (its profiles are
        trusted); ``may_write``: whether git may write in the repository (the project is not
        restricted: its hooks run then)."""
        self._paths = paths
        self._trusted = trusted
        self._git = GitWriter(may_write)

    def folder(self, agent: Agent) -> Path:
        """Where ``agent``'s CLI works: the project, or its worktree (made on first use).
        Raises ``Invalid``, ``Conflict`` naming why it cannot be made."""
        if agent.workspace is Workspace.PROJECT:
            return self._paths.root
        top = self._toplevel()
        inside = self._paths.root.resolve().relative_to(top)
        tree = self._tree(agent)
        if self.exists(agent):
            return tree / inside
        self._make(agent, top, tree)
        return tree / inside

    def changes(self, agent: Agent) -> WorkspaceChanges:
        """What the agent changed against where its branch left the project's, uncommitted work
        included. Raises ``NotFound`` (no worktree yet), ``Invalid``."""
        tree = self._existing(agent)
        base = self._base(agent)
        # A read: the agent's index is copied, and new files are told of to the copy only.
        with tempfile.TemporaryDirectory(prefix="idea-index-") as scratch:
            index = Path(scratch) / "index"
            own = Path(read(tree, "rev-parse", "--git-path", "index").stdout.strip())
            with contextlib.suppress(FileNotFoundError):
                shutil.copyfile(own if own.is_absolute() else tree / own, index)
            new = read(tree, "ls-files", "--others", "--exclude-standard", "-z", index=index)
            if new.stdout:  # new files show in the diff once git knows of them
                read(
                    tree,
                    "add",
                    "--intent-to-add",
                    "--pathspec-from-file=-",
                    "--pathspec-file-nul",
                    stdin=new.stdout,
                    index=index,
                )
            listing, diff, truncated = listing_and_patch(
                tree, ["--no-renames", base], DIFF_MAX_CHARS, index=index
            )
            numstat = (  # the files past the cut: their counts from a second pass
                read(tree, "diff", "--numstat", "-z", "--no-renames", base, index=index).stdout
                if truncated
                else ""
            )
        statuses = parse_raw(listing)
        if truncated:
            by_path = parse_numstat(numstat)
            counts = [by_path.get(path, (0, 0)) for path, _ in statuses]
        else:
            counts = count_patch(diff, len(statuses))
        files = tuple(
            FileChange(path, status, added, deleted)
            for (path, status), (added, deleted) in zip(statuses, counts, strict=True)
        )
        return WorkspaceChanges(
            branch=branch_of(agent.name),
            base=base,
            ahead=self._ahead(agent),
            files=files,
            diff=diff,
            truncated=truncated,
        )

    def summary(self, agent: Agent) -> tuple[int, int]:
        """(files changed, commits ahead), shown with the work state: counts only, no diff.
        ``(0, 0)`` before its first start. Raises ``Invalid``."""
        if not self.exists(agent):
            return 0, 0
        tree = self._tree(agent)
        base = self._base(agent)
        changed = read(tree, "diff", "--name-only", "-z", base).stdout.split("\0")
        new = read(tree, "ls-files", "--others", "--exclude-standard", "-z").stdout.split("\0")
        return len({name for name in (*changed, *new) if name}), self._ahead(agent)

    def merge(self, agent: Agent, message: str) -> MergeResult:
        """Commit the agent's uncommitted work on its branch, then merge the branch into the
        project's current branch. Raises ``Untrusted`` (a restricted project: nothing ran),
        ``Conflict`` (listing the files; the project untouched), ``NotFound``, ``Invalid``."""
        self._git.require(f"merge {agent.name}'s work")
        tree = self._existing(agent)
        branch = branch_of(agent.name)
        self._commit_work(tree, message)
        root = self._paths.root
        into = read(root, "symbolic-ref", "--quiet", "--short", "HEAD", ok=(0, 1)).stdout.strip()
        if not into:
            raise Invalid("the project is not on a branch (detached HEAD): check one out first")
        trial = self._git(
            root, "merge-tree", "--write-tree", "--name-only", "HEAD", branch, ok=(0, 1)
        )
        if trial.returncode == 1:
            files = conflicted_files(trial.stdout)
            raise Conflict(
                f"merging {branch} into {into} conflicts in {listed(files)}; nothing was changed"
            )
        before = self._head(root)
        # A crash during the merge is finished or undone at the next open (``reconcile``).
        make_folder(self._marker.parent)
        write_atomic(self._marker, json.dumps({"agent": agent.name, "before": before}))
        try:
            done = self._git(
                root,
                "merge",
                "--no-ff",
                "--no-edit",
                "-m",
                message,
                branch,
                ok=(0, 1, 128),
                identity=True,
            )
            if done.returncode != 0:
                with contextlib.suppress(IdeaError):
                    self._git(root, "merge", "--abort", ok=(0, 128))
                words = " ".join((done.stderr or done.stdout).split())
                raise Conflict(
                    f"merging {branch} into {into} was refused; nothing was changed: {words}"
                )
        finally:
            self._marker.unlink(missing_ok=True)
        after = self._head(root)
        changed = read(root, "diff", "--name-only", before, after).stdout.splitlines()
        return MergeResult(branch, into, after, len(changed))

    def discard(self, agent: Agent) -> str:
        """Reset the worktree and its branch to where the branch left the project's; that
        commit. Raises ``Untrusted``, ``NotFound``, ``Invalid``."""
        self._git.require(f"discard {agent.name}'s work")
        tree = self._existing(agent)
        base = self._base(agent)
        self._git(tree, "reset", "--hard", base)
        self._git(tree, "clean", "-fd")
        return base

    def reconcile(self) -> list[str]:
        """At open, before any agent runs (DESIGN.md §7): forget worktrees deleted by hand, drop
        the index locks a killed git left in the agents' worktrees, and finish a merge IdeA was
        doing when it died: merged, or undone (never half applied). What was done, in words.

        A restricted project is left as it is (no git write, no file removed): all of it is done
        when the user trusts it (DESIGN.md §18)."""
        root = self._paths.root
        done: list[str] = []
        if read(root, "rev-parse", "--git-dir", ok=(0, 128)).returncode != 0:
            return done
        if not self._git.may_write():
            if self._marker.exists():
                done.append("a merge cut short is finished when the project is trusted")
            return done
        listed_before = read(root, "worktree", "list", "--porcelain").stdout
        self._git(root, "worktree", "prune")
        if read(root, "worktree", "list", "--porcelain").stdout != listed_before:
            done.append("forgot worktrees deleted by hand")
        try:
            trees = sorted(self._worktrees_folder().glob("*"))
        except Invalid as exc:
            trees = []
            done.append(f"left the worktrees alone: {exc.message}")
        common = self._common_dir()
        for tree in trees:
            try:
                gitdir = self._gitdir_of(self._safe(tree), common)
            except Invalid as exc:
                done.append(f"left {tree.name}'s worktree alone: {exc.message}")
                continue
            lock = gitdir / "index.lock" if gitdir is not None else None
            if lock is not None and lock.exists():
                lock.unlink(missing_ok=True)
                done.append(f"removed a stale index lock in {tree.name}'s worktree")
        if self._marker.exists():
            done.append(self._finish_interrupted_merge())
        return done

    def hooks(self) -> tuple[Path, list[str]] | None:
        """The repository's hooks that a git write (a merge, a commit) would run once the
        project is trusted: their folder (``core.hooksPath`` respected, resolved) and names;
        ``None`` when the project is not in a git repository. A read: nothing runs."""
        root = self._paths.root
        if read(root, "rev-parse", "--git-dir", ok=(0, 128)).returncode != 0:
            return None
        return hooks(root, self._toplevel(), self._common_dir())

    @property
    def _marker(self) -> Path:
        return self._paths.run / MERGING

    def _finish_interrupted_merge(self) -> str:
        """The merge commit is git's last step: if HEAD moved, the merge completed; if not, what
        it had already put in the index and the files is taken back (``git reset --merge``, what
        ``git merge --abort`` does: the user's own unstaged changes are kept)."""
        root = self._paths.root
        try:
            record = json.loads(self._marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # unreadable, or cut short: only that a merge began is known
            record = {}
        record = record if isinstance(record, dict) else {}
        agent, before = record.get("agent"), record.get("before")
        gitdir = self._common_dir()
        if isinstance(before, str) and self._head(root) == before:
            (gitdir / "index.lock").unlink(missing_ok=True)
            self._git(root, "reset", "--merge", "--quiet", before)
            outcome = f"undid the merge of {agent}'s work that was cut short"
        else:
            outcome = f"the merge of {agent}'s work had completed"
        self._marker.unlink(missing_ok=True)
        return outcome

    # --- git ------------------------------------------------------------------------------------

    def _toplevel(self) -> Path:
        done = read(self._paths.root, "rev-parse", "--show-toplevel", ok=(0, 128))
        if done.returncode != 0:
            raise Invalid(
                f"workspace: {self._paths.root} is not a git repository, so an agent cannot have "
                "a worktree of its own there (git init, commit, then try again)"
            )
        return Path(done.stdout.strip()).resolve()

    def _tree(self, agent: Agent) -> Path:
        """``.ideai/worktrees/<agent>``, checked (``Invalid`` naming a path that leaves)."""
        return self._safe(self._worktrees_folder() / agent.name)

    def _worktrees_folder(self) -> Path:
        return self._safe(self._paths.ideai / "worktrees")

    def _safe(self, path: Path) -> Path:
        """``path`` (under the project) as it really is: inside the project's real path, with no
        symlink on the way (a committed ``.ideai/worktrees`` symlink would put a checkout
        anywhere). Raises ``Invalid`` naming the path."""
        real_root = self._paths.root.resolve()
        try:
            parts = path.relative_to(self._paths.root).parts
        except ValueError:
            raise Invalid(f"{path} is outside the project {real_root}") from None
        at = real_root
        for part in parts:
            at = at / part
            if part in ("", ".", "..") or at.is_symlink():
                raise Invalid(
                    f"{self._paths.root / Path(*parts)}: {at} is a symlink or leaves the "
                    f"project; IdeA keeps worktrees inside {real_root}"
                )
        if not at.resolve().is_relative_to(real_root):
            raise Invalid(f"{at} leaves the project {real_root}")
        return at

    def _common_dir(self) -> Path:
        """The repository's real git folder (its common one, shared by the worktrees)."""
        root = self._paths.root
        common = Path(read(root, "rev-parse", "--git-common-dir").stdout.strip())
        return (common if common.is_absolute() else root / common).resolve()

    def _gitdir_of(self, tree: Path, common: Path | None = None) -> Path | None:
        """A worktree's own git folder from its ``.git`` file (``gitdir: <path>``), resolved;
        ``None`` when it has none. Raises ``Invalid`` naming a line that points outside the
        repository's real ``worktrees`` folder (nothing is ever touched there)."""
        gitdir = _gitdir_of(tree)
        if gitdir is None:
            return None
        real = gitdir.resolve()
        inside = (common if common is not None else self._common_dir()) / "worktrees"
        if not real.is_relative_to(inside) or real == inside:
            raise Invalid(
                f"{tree / '.git'} says gitdir: {gitdir}, which leaves the repository's "
                f"git folder {inside}"
            )
        return real

    def _existing(self, agent: Agent) -> Path:
        if agent.workspace is not Workspace.WORKTREE:
            raise Invalid(f"agent {agent.name} works in the project folder, not a worktree")
        if not self.exists(agent):  # no worktree yet, or one deleted by hand
            raise NotFound(
                f"agent {agent.name} has no worktree yet (it is made at its first start)"
            )
        return self._tree(agent)

    def _head(self, where: Path) -> str:
        done = read(where, "rev-parse", "--verify", "--quiet", "HEAD", ok=(0, 1))
        if done.returncode != 0:
            raise Invalid("the project's repository has no commit yet: commit once, then try again")
        return done.stdout.strip()

    def _base(self, agent: Agent) -> str:
        root = self._paths.root
        done = read(root, "merge-base", "HEAD", branch_of(agent.name), ok=(0, 1))
        if done.returncode != 0:
            raise Invalid(f"{branch_of(agent.name)} shares no history with the project's branch")
        return done.stdout.strip()

    def _ahead(self, agent: Agent) -> int:
        done = read(self._paths.root, "rev-list", "--count", f"HEAD..{branch_of(agent.name)}")
        return int(done.stdout.strip() or 0)

    def _make(self, agent: Agent, top: Path, tree: Path) -> None:
        root, branch = self._paths.root, branch_of(agent.name)
        head = self._head(root)
        dirty = read(
            top,
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            ".",
            ":(exclude,glob)**/.ideai/**",
        ).stdout.splitlines()
        if dirty:
            files = [line[3:] for line in dirty]
            raise Conflict(
                f"the project has uncommitted changes ({listed(files)}): {agent.name}'s worktree "
                "would start without them; commit or stash them first"
            )
        if tree.exists():
            with contextlib.suppress(OSError):
                tree.rmdir()  # an empty folder left by a failed start
            if tree.exists():
                raise Conflict(f"{tree} exists and is not {agent.name}'s worktree: move it away")
        self._ignore_worktrees()
        self._git(root, "worktree", "prune")  # a worktree deleted by hand leaves its record behind
        exists = read(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", ok=(0, 1))
        if exists.returncode == 0:
            related = read(root, "merge-base", head, branch, ok=(0, 1)).returncode == 0
            if not related:
                raise Conflict(
                    f"a branch {branch} exists with another history: rename or delete it "
                    f"(git branch -m {branch} {branch}-old)"
                )
            self._git(root, "worktree", "add", "--quiet", str(tree), branch)
        else:
            self._git(root, "worktree", "add", "--quiet", "-b", branch, str(tree), head)
        self._setup(tree)

    def _setup(self, tree: Path) -> None:
        """``.ideai/worktree-setup``: what a fresh checkout lacks (dependencies, env files), run
        in the new worktree, only in a trusted project. Raises ``Unavailable`` with its output's
        end when it fails (the worktree stays; the next start runs nothing again)."""
        script = self._paths.ideai / SETUP_FILE
        if not script.is_file() or not self._trusted():
            return
        argv = ["cmd", "/c", str(script)] if sys.platform == "win32" else ["sh", str(script)]
        try:
            done = subprocess.run(
                argv,
                cwd=tree,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=SETUP_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise Unavailable(
                f"{SETUP_FILE} did not finish within {SETUP_TIMEOUT_S:g} s in {tree}"
            ) from None
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip()[-_SETUP_TAIL:]
            raise Unavailable(f"{SETUP_FILE} failed (exit {done.returncode}) in {tree}: {tail}")

    def _commit_work(self, tree: Path, message: str) -> None:
        self._git(tree, "add", "--all")
        staged = read(tree, "diff", "--cached", "--quiet", ok=(0, 1))
        if staged.returncode == 1:
            self._git(tree, "commit", "--quiet", "--no-verify", "-m", message, identity=True)

    def _ignore_worktrees(self) -> None:
        """``.ideai/.gitignore`` ignores ``worktrees/`` (a project made before it did too)."""
        path = self._paths.gitignore
        text = read_text(path) or ""
        if IGNORE_LINE not in text.splitlines():
            write_atomic(
                path, text + ("" if not text or text.endswith("\n") else "\n") + f"{IGNORE_LINE}\n"
            )

    def exists(self, agent: Agent) -> bool:
        """Whether ``agent`` has a worktree (its first start made one). Raises ``Invalid``
        naming a path that leaves the project or its git folder."""
        tree = self._tree(agent)
        if not (tree / ".git").exists():
            return False
        gitdir = self._gitdir_of(tree)
        return gitdir is not None and gitdir.is_dir()

    def remove(self, agent: Agent) -> None:
        """Remove the worktree and its branch (the agent is deleted and the user said so)."""
        tree = self._tree(agent)
        root = self._paths.root
        if self.exists(agent):
            self._git(root, "worktree", "remove", "--force", str(tree))
        elif tree.exists():
            shutil.rmtree(tree)
        self._git(root, "worktree", "prune")
        self._git(root, "branch", "-D", branch_of(agent.name), ok=(0, 1))


def _gitdir_of(tree: Path) -> Path | None:
    """A worktree's own git folder, from its ``.git`` file (``gitdir: <path>``)."""
    try:
        text = (tree / ".git").read_text(encoding="utf-8")
    except OSError:  # no .git file (deleted by hand, or never a worktree): no git folder
        return None
    if not text.startswith("gitdir:"):
        return None
    path = Path(text.removeprefix("gitdir:").strip())
    return path if path.is_absolute() else tree / path
