"""The project lock on Windows (msvcrt byte-range lock): one holder, in this process or another,
the owner's pid in the refusal, free again once released or once its holder died. Errno values
are not asserted: wine reports 0 where Windows reports 13 or 36."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from idea.domain.errors import Conflict
from idea.infrastructure.stores.project_lock import ProjectLock
from tests.windows_lane import windows_only

pytestmark = windows_only

HOLD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from idea.domain.errors import Conflict
    from idea.infrastructure.stores.project_lock import ProjectLock
    try:
        lock = ProjectLock.acquire(Path(sys.argv[1]), "p")
    except Conflict as exc:
        print("refused:", exc, flush=True)
        raise SystemExit(3)
    print("held", flush=True)
    sys.stdin.read()
    """
)


def test_a_second_acquire_is_refused_naming_the_owner(tmp_path):
    path = tmp_path / "run" / "owner.lock"
    lock = ProjectLock.acquire(path, "demo")
    try:
        with pytest.raises(Conflict, match=rf"process {__import__('os').getpid()}"):
            ProjectLock.acquire(path, "demo")
    finally:
        lock.release()
    again = ProjectLock.acquire(path, "demo")
    again.release()
    again.release()  # idempotent


def test_another_process_is_refused_while_held_and_served_once_released(tmp_path):
    path = tmp_path / "owner.lock"
    lock = ProjectLock.acquire(path, "demo")
    try:
        refused = subprocess.run(
            [sys.executable, "-c", HOLD, str(path)],
            input="",
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert refused.returncode == 3, refused.stdout + refused.stderr
        assert "already open in another IdeA" in refused.stdout
    finally:
        lock.release()
    served = subprocess.run(
        [sys.executable, "-c", HOLD, str(path)],
        input="",
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert served.returncode == 0, served.stdout + served.stderr
    assert "held" in served.stdout


def test_a_holder_that_died_leaves_the_project_free(tmp_path):
    path = tmp_path / "owner.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        holder.kill()
        holder.wait(timeout=10)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=10)
        holder.stdin.close()
        holder.stdout.close()
    ProjectLock.acquire(path, "demo").release()
