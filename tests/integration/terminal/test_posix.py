"""The terminal contract against real pseudo-terminals, plus what only a real PTY can show:
window size, memory under a flood, whole-tree kills, characters split across reads."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import re
import sys
import textwrap

import psutil
import pytest

if sys.platform == "win32":
    pytest.skip("POSIX pseudo-terminals", allow_module_level=True)

from idea.application.session_ports import TerminalSpec
from idea.domain.errors import Unavailable
from idea.infrastructure.terminal.launcher import default_terminal_launcher
from idea.infrastructure.terminal.posix import PosixPtyLauncher
from tests.contracts.terminal_session_contract import (
    WAIT_S,
    Output,
    TerminalSessionContract,
    sentinel,
    terminal_starter,
    wait_exit,
)

BURST_BYTES = 50 * 1024 * 1024
RING_BYTES = 1024 * 1024


def gone(proc: psutil.Process) -> bool:
    """Dead or a zombie (no init reaps orphans in some containers)."""
    try:
        return not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


class ShPrograms:
    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", "TERM": "dumb", "HOME": cwd}

    def sh(self, script: str, *args: str, **options: int) -> TerminalSpec:
        return TerminalSpec(("sh", "-c", script, "sh", *args), self.cwd, self.env, **options)

    def python(self, script: str, *args: str) -> TerminalSpec:
        argv = (sys.executable, "-c", textwrap.dedent(script), *args)
        return TerminalSpec(argv, self.cwd, self.env)

    def echo_line(self) -> TerminalSpec:
        return self.sh('read line; echo "got:$line"')

    def exit_with(self, code: int) -> TerminalSpec:
        return self.sh(f"exit {code}")

    def long_running(self, ready: str) -> TerminalSpec:
        return self.sh('echo "$1"; exec sleep 1000', ready)

    def missing(self, name: str) -> TerminalSpec:
        return TerminalSpec((name,), self.cwd, self.env)


@pytest.fixture
def launcher():
    return PosixPtyLauncher(grace_s=0.3)


@pytest.fixture
def programs(tmp_path):
    return ShPrograms(str(tmp_path))


class TestPosixPtyContract(TerminalSessionContract):
    pass


@pytest.fixture
async def start(launcher):
    async with terminal_starter(launcher) as start:
        yield start


async def test_stty_sees_the_new_size_after_resize(start, programs):
    session = await start(programs.sh('echo "size:$(stty size)"; read x; echo "size:$(stty size)"'))
    out = Output(session)
    await out.wait_for("size:24 80")
    session.resize(33, 101)
    session.write("go\n")
    await out.wait_for("size:33 101")
    assert await wait_exit(session) == 0


async def test_resize_sends_sigwinch_to_the_child(start, programs):
    ready = sentinel()
    session = await start(
        programs.python(
            """
            import os, signal, sys
            def report(*_):
                size = os.get_terminal_size(0)
                # os.write: the signal may land inside print's own buffered write.
                os.write(1, f"winch:{size.lines}x{size.columns}\\n".encode())
            signal.signal(signal.SIGWINCH, report)
            print(sys.argv[1], flush=True)
            while True:
                signal.pause()
            """,
            ready,
        )
    )
    out = Output(session)
    await out.wait_for(ready)
    session.resize(40, 120)
    await out.wait_for("winch:40x120")


async def test_a_50_mb_burst_stays_within_the_ring_bound(start, programs):
    done = sentinel()
    me = psutil.Process()
    gc.collect()
    baseline = peak = me.memory_info().rss
    received = 0
    calls = 0

    def count(chunk: str) -> None:
        nonlocal received, calls, peak
        received += len(chunk)
        calls += 1
        if calls % 256 == 0:
            peak = max(peak, me.memory_info().rss)

    session = await start(
        programs.sh(
            f"head -c {BURST_BYTES} /dev/zero | tr '\\0' x; echo; echo {done}",
            scrollback_bytes=RING_BYTES,
        )
    )
    session.subscribe(count)
    assert await wait_exit(session, timeout=50) == 0
    peak = max(peak, me.memory_info().rss)
    replay = session.scrollback()
    assert received == BURST_BYTES + len(f"\r\n{done}\r\n")
    assert len(replay.encode()) <= RING_BYTES
    assert replay.endswith(f"xxxx\r\n{done}\r\n")
    growth_mb = (peak - baseline) / 2**20
    print(f"50 MB burst: RSS growth {growth_mb:.1f} MiB over {calls} chunks")
    assert growth_mb < 16


async def test_stop_kills_children_and_grandchildren(start, programs):
    ready = sentinel()
    session = await start(programs.sh('sleep 1000 & (sleep 1000 & echo "$1"; wait) & wait', ready))
    out = Output(session)
    await out.wait_for(ready)
    root = psutil.Process(session.pid)
    tree = [root, *root.children(recursive=True)]
    assert len(tree) >= 4
    async with asyncio.timeout(WAIT_S):
        await session.stop()
    assert all(gone(p) for p in tree)
    assert session.exit_code is not None


async def test_a_child_ignoring_hangup_and_terminate_still_dies(start, programs):
    ready = sentinel()
    session = await start(programs.sh("trap '' HUP TERM; sleep 1000 & echo \"$1\"; wait", ready))
    out = Output(session)
    await out.wait_for(ready)
    root = psutil.Process(session.pid)
    tree = [root, *root.children(recursive=True)]
    async with asyncio.timeout(WAIT_S):
        await session.stop()
    assert session.exit_code == -9  # SIGKILL was needed
    assert all(gone(p) for p in tree)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="leader exit is seen through a pidfd")
async def test_the_session_ends_when_the_program_exits_though_a_leftover_holds_the_terminal(
    start, programs
):
    done = sentinel()
    # The leftover ignores SIGHUP, so the leader's exit does not take it down: EOF never comes.
    script = 'trap "" HUP; sleep 1000 & echo "leftover:$! $1"; exit 4'
    session = await start(programs.sh(script, done))
    out = Output(session)
    await out.wait_for(done)
    match = re.search(r"leftover:(\d+)", out.text)
    assert match
    leftover = psutil.Process(int(match[1]))
    try:
        assert await wait_exit(session) == 4
        assert out.text.endswith(f"{done}\r\n")  # what it wrote before exiting was read first
        assert not gone(leftover)
    finally:
        with contextlib.suppress(psutil.NoSuchProcess):
            leftover.kill()


async def test_a_character_split_across_reads_arrives_whole(start, programs):
    done = sentinel()
    session = await start(
        programs.python(
            """
            import sys, termios
            attrs = termios.tcgetattr(0)
            attrs[3] &= ~termios.ECHO  # our "go" line must not land inside the character
            termios.tcsetattr(0, termios.TCSANOW, attrs)
            smile = "🙂".encode()
            out = sys.stdout.buffer
            out.write(b"A" + smile[:2])
            out.flush()
            sys.stdin.readline()
            out.write(smile[2:] + b"B" + sys.argv[1].encode() + b"\\n")
            out.flush()
            """,
            done,
        )
    )
    out = Output(session)
    await out.wait_for("A")
    assert "🙂" not in out.text  # the first read ended inside the character
    session.write("go\n")
    await out.wait_for(done)
    assert f"A🙂B{done}" in out.text
    assert "\ufffd" not in out.text
    assert await wait_exit(session) == 0


async def test_scrollback_replay_holds_the_tail_of_lots_of_output(start, programs):
    done = sentinel()
    ring = 64 * 1024
    session = await start(programs.sh(f"seq 1 200000; echo {done}", scrollback_bytes=ring))
    assert await wait_exit(session) == 0
    replay = session.scrollback()
    assert ring - 3 <= len(replay.encode()) <= ring
    assert replay.endswith(f"199999\r\n200000\r\n{done}\r\n")
    numbers = [int(n) for n in replay.split("\r\n")[1:-2]]  # the first line may be cut
    assert numbers == list(range(numbers[0], 200001))
    assert numbers[0] > 100000


async def test_a_large_paste_is_written_completely(start, programs):
    ready = sentinel()
    size = 300_000  # far more than the terminal's input buffer: the rest waits for writability
    session = await start(programs.sh(f'stty raw -echo; echo "$1"; head -c {size} | wc -c', ready))
    out = Output(session)
    await out.wait_for(ready)
    session.write("y" * size)
    await out.wait_for(str(size))
    assert await wait_exit(session) == 0


async def test_a_failing_listener_is_logged(start, programs, caplog):
    session = await start(programs.exit_with(0))

    def explode(_: str) -> None:
        raise RuntimeError("listener bug")

    session.on_exit(explode)
    with caplog.at_level(logging.ERROR, logger="idea.infrastructure.terminal.posix"):
        await wait_exit(session)
        await asyncio.sleep(0)
    assert any("listener failed" in r.getMessage() for r in caplog.records)


async def test_start_failures_are_unavailable(launcher, programs, tmp_path):
    pid = os.getpid()
    not_executable = tmp_path / "script.txt"
    not_executable.write_text("echo hi\n", encoding="utf-8")
    specs = [
        programs.missing("/no/such/dir/idea-missing"),
        programs.missing(str(not_executable)),
        TerminalSpec(("sh", "-c", "true"), str(tmp_path / "no-such-cwd"), programs.env),
    ]
    for spec in specs:
        with pytest.raises(Unavailable) as err:
            await launcher.start(spec)
        assert os.path.basename(spec.argv[0]) in err.value.message
    assert os.getpid() == pid  # a failure in the forked child never runs on in the parent


async def test_the_default_launcher_here_is_the_posix_one():
    assert isinstance(default_terminal_launcher(), PosixPtyLauncher)
