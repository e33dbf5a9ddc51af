"""Windows Job Objects: a grandchild that left the agent's tree dies with its session, through
both kinds of session (a piped structured CLI and a ConPTY terminal), and with IdeA itself."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil

from idea.application.session_ports import TerminalSpec
from idea.infrastructure.processes.cli_process import CliProcess
from tests.waiting import until, until_blocking
from tests.windows_lane import windows_only

if sys.platform == "win32":
    from idea.infrastructure.processes.job_windows import SessionJob
    from idea.infrastructure.terminal.windows import WindowsPtyLauncher

pytestmark = windows_only

STOP_S = 20

# A child that starts a grandchild, writes the grandchild's pid to argv[1], then exits: the
# grandchild is an orphan, outside any tree rooted at the agent.
ESCAPER = textwrap.dedent(
    """
    import subprocess, sys
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(sys.argv[1] + ".tmp", "w") as out:
        out.write(str(grandchild.pid))
    import os; os.replace(sys.argv[1] + ".tmp", sys.argv[1])
    """
)
AGENT = textwrap.dedent(
    """
    import subprocess, sys, time
    subprocess.run([sys.executable, "-c", sys.argv[1], sys.argv[2]])
    print("ready", flush=True)
    time.sleep(600)
    """
)


def escaped_pid(pid_file: Path) -> int:
    """The grandchild's pid, once it runs (and its parent, the child, has exited)."""
    until_blocking(pid_file.exists, timeout=30, what="the grandchild's pid", poll_s=0.05)
    pid = int(pid_file.read_text(encoding="utf-8"))
    assert not gone(pid), "the grandchild is not running"
    return pid


def gone(pid: int) -> bool:
    return not psutil.pid_exists(pid)  # psutil.Process() of another process fails under wine


def kill(pid: int) -> None:
    subprocess.run(["taskkill", "/F", "/PID", str(pid)], capture_output=True, check=False)


def agent_env() -> dict[str, str]:
    return dict(os.environ)


async def test_the_job_kills_every_process_it_holds():
    job = SessionJob()
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        job.assign(proc.pid)
        assert job.pids() == [proc.pid]
        job.close()
        assert proc.wait(timeout=10) != 0
        job.close()  # idempotent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


async def test_stopping_a_structured_cli_kills_the_grandchild_that_left_its_tree(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    exits: list[int] = []
    process = await CliProcess.start(
        [sys.executable, "-c", AGENT, ESCAPER, str(pid_file)],
        cwd=str(tmp_path),
        env=agent_env(),
        on_stdout=lambda _: None,
        on_exit=exits.append,
    )
    grandchild = escaped_pid(pid_file)
    try:
        async with asyncio.timeout(STOP_S):  # a stop that cannot kill must fail, not hang
            await process.kill(grace_s=0.3)
        await until(lambda: gone(grandchild), timeout=10, what="the grandchild killed")
    finally:
        if not gone(grandchild):
            kill(grandchild)


async def test_stopping_a_terminal_kills_the_grandchild_that_left_its_tree(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    spec = TerminalSpec(
        (sys.executable, "-c", AGENT, ESCAPER, str(pid_file)), str(tmp_path), agent_env()
    )
    session = await WindowsPtyLauncher(grace_s=0.3).start(spec)
    grandchild = escaped_pid(pid_file)
    try:
        async with asyncio.timeout(STOP_S):
            await session.stop()
        await until(lambda: gone(grandchild), timeout=10, what="the grandchild killed")
    finally:
        if not gone(grandchild):
            kill(grandchild)


def test_ideas_death_kills_its_agents(tmp_path):
    """IdeA killed outright (no stop at all): the system closes its job handles."""
    pid_file = tmp_path / "grandchild.pid"
    host = textwrap.dedent(
        f"""
        import asyncio, sys
        from idea.infrastructure.processes.cli_process import CliProcess
        async def main():
            await CliProcess.start(
                [sys.executable, "-c", {AGENT!r}, {ESCAPER!r}, {str(pid_file)!r}],
                cwd={str(tmp_path)!r}, env=dict(__import__("os").environ),
                on_stdout=lambda _: None, on_exit=lambda _: None)
            print("started", flush=True)
            await asyncio.sleep(600)
        asyncio.run(main())
        """
    )
    ide = subprocess.Popen([sys.executable, "-c", host], stdout=subprocess.DEVNULL)
    try:
        grandchild = escaped_pid(pid_file)
        ide.kill()  # TerminateProcess: nothing of IdeA's runs any more
        ide.wait(timeout=10)
        until_blocking(lambda: gone(grandchild), timeout=10, what="the grandchild killed")
    finally:
        if ide.poll() is None:
            ide.kill()
            ide.wait(timeout=10)
        if pid_file.exists() and not gone(int(pid_file.read_text(encoding="utf-8"))):
            kill(int(pid_file.read_text(encoding="utf-8")))
