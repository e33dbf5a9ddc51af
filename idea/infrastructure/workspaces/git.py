"""The one git runner of IdeA (DESIGN.md §18): bounded, never interactive, its failures as typed
errors, and it never runs the repository's own code unless the project is trusted.

Invariants:
- A read (status, diff, rev-parse, worktree list, merge-base, ls-files, config) always runs with
  fsmonitor off, an empty hooks folder, no pager, no external diff, no textconv, every filter
  driver the configuration names emptied, no optional lock and no submodule recursion: what a
  repository's ``.git/config`` or ``.gitattributes`` would run does not run.
- A write (worktree add, commit, merge, reset, clean, branch -D, worktree prune/remove) runs
  only when ``may_write()`` says so (a trusted project); it is otherwise ``Untrusted`` before any
  process starts. There the repository's hooks run, as they would for the user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from idea.domain.errors import Internal, Unavailable, Untrusted
from idea.infrastructure.processes.executables import start_errors

TIMEOUT_S = 120.0
# Never a prompt (credentials, an editor for a merge message), never a pager, messages in English.
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true", "GIT_PAGER": "cat", "LC_ALL": "C"}
# What the user's environment could add that runs a program on a read.
_DROPPED_ENV = (
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
)
# Who commits when the user's git has no identity (a fresh machine): named, so it is recognised.
IDENTITY = ("-c", "user.name=IdeA", "-c", "user.email=idea@localhost")
# Commands that take diff options: where ``--no-ext-diff --no-textconv`` are valid.
_DIFF_LIKE = frozenset({"diff", "log", "show"})
_SUBMODULES_OFF = frozenset({"diff", "status"})
_FILTER_VARS = ("clean", "smudge", "process")
HOOKS_LISTED_MAX = 100

_EMPTY_HOOKS: list[Path] = []  # made once per process


def _empty_hooks_dir() -> Path:
    """A folder of this user's (0700) with nothing in it: git finds no hook there."""
    if not _EMPTY_HOOKS or not _EMPTY_HOOKS[-1].is_dir() or any(_EMPTY_HOOKS[-1].iterdir()):
        _EMPTY_HOOKS[:] = [Path(tempfile.mkdtemp(prefix="idea-no-hooks-"))]
    return _EMPTY_HOOKS[-1]


def _exe() -> str:
    exe = shutil.which("git")
    if exe is None:
        raise Unavailable("git is not installed (it is needed for agents in their own worktree)")
    return exe


def _base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    return {**env, **_ENV}


def _read_options() -> tuple[str, ...]:
    return (
        "-c",
        "core.fsmonitor=false",
        "-c",
        f"core.hooksPath={_empty_hooks_dir()}",
        "-c",
        "core.pager=cat",
        "-c",
        "diff.external=",
        "-c",
        "submodule.recurse=false",
        "-c",
        "color.ui=false",  # a planted "always" would put escapes in the listing IdeA parses
    )


def _read_env(cwd: Path, exe: str) -> dict[str, str]:
    """The base environment plus ``GIT_OPTIONAL_LOCKS=0`` and, through ``GIT_CONFIG_COUNT``
    (any name is passed whole, an ``=`` in it included), every filter driver the repository's
    configuration defines emptied: ``filter.<x>.clean`` runs on ``git status``/``diff`` of a
    modified file, whatever ``.gitattributes`` or ``.git/info/attributes`` say."""
    env = {**_base_env(), "GIT_OPTIONAL_LOCKS": "0"}
    for key in [
        k for k in env if k.startswith("GIT_CONFIG_KEY_") or k.startswith("GIT_CONFIG_VALUE_")
    ]:
        del env[key]
    env.pop("GIT_CONFIG_COUNT", None)
    pairs: list[tuple[str, str]] = []
    for name in _filter_names(cwd, exe, env):
        pairs += [(f"filter.{name}.{var}", "") for var in _FILTER_VARS]
        pairs.append((f"filter.{name}.required", "false"))
    for i, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    env["GIT_CONFIG_COUNT"] = str(len(pairs))
    return env


def _filter_names(cwd: Path, exe: str, env: dict[str, str]) -> set[str]:
    """The filter drivers the configuration names (``filter.<name>.<var>``, includes followed);
    reading the configuration runs nothing."""
    done = _run(
        [exe, *_read_options(), "config", "--null", "--name-only", "--get-regexp", r"^filter\."],
        cwd,
        env,
        None,
    )
    names: set[str] = set()
    for key in done.stdout.split("\0"):
        head, dot, _var = key.rpartition(".")
        if dot and head.startswith("filter.") and len(head) > len("filter."):
            names.add(head.removeprefix("filter."))
    return names


def _run(
    argv: list[str], cwd: Path, env: dict[str, str], stdin: str | None
) -> subprocess.CompletedProcess[str]:
    try:
        with start_errors("git"):
            return subprocess.run(
                argv,
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=TIMEOUT_S,
                check=False,
                input=stdin,
            )
    except subprocess.TimeoutExpired:
        raise Internal(f"git {' '.join(argv[-1:])} did not finish within {TIMEOUT_S:g} s") from None


def _checked(
    done: subprocess.CompletedProcess[str], args: Sequence[str], ok: Sequence[int]
) -> subprocess.CompletedProcess[str]:
    if done.returncode not in ok:
        words = (done.stderr or done.stdout).strip().splitlines()
        raise Internal(
            f"git {' '.join(args[:2])} failed: {' '.join(words[-3:]) or done.returncode}"
        )
    return done


def _read_argv(exe: str, args: Sequence[str]) -> list[str]:
    command, rest = args[0], list(args[1:])
    extra: list[str] = []
    if command in _DIFF_LIKE:
        extra += ["--no-ext-diff", "--no-textconv"]
    if command in _SUBMODULES_OFF:
        extra.append("--ignore-submodules=all")
    return [exe, *_read_options(), command, *extra, *rest]


def read(
    cwd: Path,
    *args: str,
    ok: Sequence[int] = (0,),
    stdin: str | None = None,
    index: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """``git <args>`` in ``cwd`` as a read that runs none of the repository's code (see the
    module docstring); ``index``: another index file than the repository's (``GIT_INDEX_FILE``),
    for a question that would otherwise write to it. Raises ``Internal`` naming the command and
    git's own words when its exit status is not in ``ok``, ``Unavailable`` without git."""
    exe = _exe()
    env = _read_env(cwd, exe)
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return _checked(_run(_read_argv(exe, args), cwd, env, stdin), args, ok)


class GitWriter:
    """The writes of one project: each one first asks ``may_write`` (is the project trusted?)."""

    def __init__(self, may_write: Callable[[], bool]) -> None:
        self._may_write = may_write

    def may_write(self) -> bool:
        return self._may_write()

    def require(self, what: str) -> None:
        """Raises ``Untrusted`` naming ``what`` in a restricted project."""
        if not self._may_write():
            raise Untrusted(
                f"cannot {what}: this project came from elsewhere and git runs no write command "
                "in it (its hooks would run) until you trust it"
            )

    def __call__(
        self,
        cwd: Path,
        *args: str,
        ok: Sequence[int] = (0,),
        identity: bool = False,
        stdin: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """``git <args>`` in ``cwd``, a command that writes. Raises ``Untrusted`` (nothing ran),
        ``Internal`` naming the command and git's words, ``Unavailable``."""
        self.require(f"run git {args[0]}")
        exe = _exe()
        who = IDENTITY if identity and not has_identity(cwd) else ()
        return _checked(_run([exe, *who, *args], cwd, _base_env(), stdin), args, ok)


def has_identity(cwd: Path) -> bool:
    done = read(cwd, "config", "user.email", ok=(0, 1))
    return done.returncode == 0 and bool(done.stdout.strip())


def hooks(cwd: Path, top: Path, common_dir: Path) -> tuple[Path, list[str]]:
    """The folder the repository's hooks run from (``core.hooksPath`` when configured, resolved;
    else ``<git dir>/hooks``) and the hooks in it that git would run: executable regular files,
    not the ``.sample`` ones git ships, sorted, at most ``HOOKS_LISTED_MAX``."""
    done = read(cwd, "config", "--show-scope", "--get-all", "core.hooksPath", ok=(0, 1))
    configured = [
        line.split("\t", 1)[1]
        for line in done.stdout.splitlines()
        if "\t" in line and not line.startswith("command\t")
    ]
    if configured and configured[-1]:
        where = Path(configured[-1]).expanduser()
        folder = where if where.is_absolute() else top / where  # relative: to the worktree
    else:
        folder = common_dir / "hooks"
    folder = folder.resolve()
    names: list[str] = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:  # no hooks folder (or one that cannot be listed): none listed
        return folder, names
    for entry in entries:
        if entry.name.endswith(".sample") or not entry.is_file():
            continue
        if os.access(entry, os.X_OK):
            names.append(entry.name)
        if len(names) >= HOOKS_LISTED_MAX:
            break
    return folder, names


def listing_and_patch(
    cwd: Path, args: Sequence[str], limit: int, index: Path | None = None
) -> tuple[str, str, bool]:
    """``git diff --raw -p -z <args>`` as a read, one pass of git's over the files: its
    NUL-separated raw listing whole, then the first ``limit`` characters of the patch, and
    whether the patch went on (git is then stopped: a diff of a thousand files is not read whole
    to show its start)."""
    exe = _exe()
    env = _read_env(cwd, exe)
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    with start_errors("git"):
        proc = subprocess.Popen(
            _read_argv(exe, ["diff", "--raw", "-p", "-z", *args]),
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
    with proc:
        assert proc.stdout is not None
        chunks: list[str] = []
        seen = ""
        while "\0\0" not in seen:  # the listing ends with an empty record, then the patch
            chunk = proc.stdout.read(64 * 1024)
            if not chunk:
                break
            chunks.append(chunk)
            seen = chunks[-1] if len(chunks) == 1 else chunks[-2][-1:] + chunks[-1]
        listing, _, patch = "".join(chunks).partition("\0\0")
        if len(patch) <= limit:
            patch += proc.stdout.read(limit + 1 - len(patch))
        more = len(patch) > limit
        if more:
            proc.kill()
        else:
            proc.stdout.read()
        proc.wait(timeout=TIMEOUT_S)
    return listing, patch[:limit], more
