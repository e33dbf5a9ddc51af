"""kill_tree against real process trees: grandchildren included, signals ignored or not."""

from __future__ import annotations

import contextlib
import select
import subprocess
import sys
import time
from collections.abc import Iterator

import psutil
import pytest

from idea.infrastructure.processes.tree import ProcessRecord, is_alive, kill_tree, kill_tree_async

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell and signals")


def gone(proc: psutil.Process) -> bool:
    try:
        return not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@contextlib.contextmanager
def tree_of(script: str) -> Iterator[tuple[subprocess.Popen[str], list[psutil.Process]]]:
    """Runs ``script`` (which prints ``ready`` once its children run); nothing outlives the test."""
    proc = subprocess.Popen(
        ["sh", "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        start_new_session=True,
    )
    assert proc.stdout is not None
    try:
        # Bounded: the line comes in one write, so a readable pipe holds all of it.
        readable, _, _ = select.select([proc.stdout], [], [], 10)
        assert readable, "the tree never said ready"
        assert proc.stdout.readline().strip() == "ready"
        root = psutil.Process(proc.pid)
        yield proc, [root, *root.children(recursive=True)]
    finally:
        if proc.returncode is None:  # not reaped yet, so the pid is still ours
            kill_tree(proc.pid, grace_s=0.1)
        proc.wait(timeout=10)
        proc.stdout.close()


def test_kills_children_and_grandchildren():
    with tree_of("sleep 1000 & (sleep 1000 & echo ready; wait) & wait") as (proc, tree):
        assert len(tree) >= 4
        assert kill_tree(proc.pid, grace_s=1.0) is True
        assert all(gone(p) for p in tree)


def test_escalates_to_sigkill_when_hangup_and_terminate_are_ignored():
    with tree_of("trap '' HUP TERM; sleep 1000 & echo ready; wait") as (proc, tree):
        started = time.monotonic()
        assert kill_tree(proc.pid, grace_s=0.2) is True
        assert time.monotonic() - started >= 0.4  # both grace periods ran out first
        assert all(gone(p) for p in tree)
        assert proc.wait(timeout=10) == -9


async def test_async_variant_and_records():
    with tree_of("sleep 1000 & echo ready; wait") as (proc, tree):
        record = ProcessRecord.of(proc.pid)
        assert is_alive(record)
        assert await kill_tree_async(proc.pid, grace_s=1.0) is True
        assert not is_alive(record)  # a zombie is dead
        assert all(gone(p) for p in tree)
