"""Running git for IdeA: bounded, never interactive, its failures as typed errors."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from idea.domain.errors import Internal, Unavailable

TIMEOUT_S = 120.0
# Never a prompt (credentials, an editor for a merge message), never a pager, messages in English.
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true", "GIT_PAGER": "cat", "LC_ALL": "C"}
# Who commits when the user's git has no identity (a fresh machine): named, so it is recognised.
IDENTITY = ("-c", "user.name=IdeA", "-c", "user.email=idea@localhost")


def git(
    cwd: Path,
    *args: str,
    ok: Sequence[int] = (0,),
    identity: bool = False,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """``git <args>`` in ``cwd``; raises ``Internal`` naming the command and git's own words
    when its exit status is not in ``ok``, ``Unavailable`` when git is not installed."""
    exe = shutil.which("git")
    if exe is None:
        raise Unavailable("git is not installed (it is needed for agents in their own worktree)")
    argv = [exe, *(IDENTITY if identity and not has_identity(cwd) else ()), *args]
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env={**os.environ, **_ENV},
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=TIMEOUT_S,
            check=False,
            input=stdin,
        )
    except subprocess.TimeoutExpired:
        raise Internal(f"git {args[0]} did not finish within {TIMEOUT_S:g} s") from None
    except OSError as exc:
        raise Unavailable(f"git could not start: {exc}") from exc
    if done.returncode not in ok:
        words = (done.stderr or done.stdout).strip().splitlines()
        raise Internal(
            f"git {' '.join(args[:2])} failed: {' '.join(words[-3:]) or done.returncode}"
        )
    return done


def has_identity(cwd: Path) -> bool:
    exe = shutil.which("git") or "git"
    done = subprocess.run(
        [exe, "config", "user.email"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    return done.returncode == 0 and bool(done.stdout.strip())


def listing_and_patch(cwd: Path, args: Sequence[str], limit: int) -> tuple[str, str, bool]:
    """``git diff --raw -p -z <args>``, one pass of git's over the files: its NUL-separated raw
    listing whole, then the first ``limit`` characters of the patch, and whether the patch went
    on (git is then stopped: a diff of a thousand files is not read whole to show its start)."""
    exe = shutil.which("git")
    if exe is None:
        raise Unavailable("git is not installed")
    with subprocess.Popen(
        [exe, "diff", "--raw", "-p", "-z", *args],
        cwd=cwd,
        env={**os.environ, **_ENV},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        errors="replace",
    ) as proc:
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
