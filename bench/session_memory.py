"""Memory IdeA itself holds per live session (the CLI processes are not counted).

Starts N terminal sessions (a shell in a PTY, each given some output) and N structured sessions
(Claude Code's adapter over the fake CLI, each after one turn), and reports the growth of this
process's Python heap (tracemalloc) and RSS divided by the number of sessions.
Usage: python bench/session_memory.py [--sessions 10]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import tracemalloc
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from idea.application.session_ports import StructuredSpec, TerminalSpec
from idea.domain.profile import AdapterKind
from idea.infrastructure.clis.claude.session import start_claude_session
from idea.infrastructure.terminal.posix import PosixPtyLauncher

FAKE_CLAUDE = Path(__file__).resolve().parents[1] / "tests" / "fakes" / "clis" / "claude.py"


def footprint() -> tuple[int, int]:
    gc.collect()
    return tracemalloc.get_traced_memory()[0], psutil.Process().memory_info().rss


async def terminals(count: int) -> tuple[list[object], int, int]:
    launcher = PosixPtyLauncher()
    before = footprint()
    sessions = []
    for _ in range(count):
        session = await launcher.start(
            TerminalSpec(argv=("/bin/sh",), cwd="/", env={"PATH": os.environ["PATH"]})
        )
        done = asyncio.Event()
        session.subscribe(lambda text, d=done: "ready-mark" in text and d.set())
        session.write("seq 1 2000; echo ready-mark\n")
        await asyncio.wait_for(done.wait(), 20)
        sessions.append(session)
    after = footprint()
    for session in sessions:
        await session.stop()
    return sessions, after[0] - before[0], after[1] - before[1]


async def structured(count: int, root: Path) -> tuple[int, int]:
    before = footprint()
    sessions = []
    for i in range(count):
        run_dir = root / f"run-{i}"
        run_dir.mkdir()
        spec = StructuredSpec(
            kind=AdapterKind.CLAUDE,
            program=(sys.executable, str(FAKE_CLAUDE)),
            cwd=str(root),
            run_dir=str(run_dir),
            env={**os.environ, "HOME": str(root)},
            context="You are a benchmark.",
        )
        session = await start_claude_session(spec)
        await session.send_blocking("hello", timeout=30)
        sessions.append(session)
    after = footprint()
    for session in sessions:
        await session.shutdown()
    return after[0] - before[0], after[1] - before[1]


async def run(count: int) -> None:
    tracemalloc.start()
    _, heap_t, rss_t = await terminals(count)
    with tempfile.TemporaryDirectory() as tmp:
        heap_s, rss_s = await structured(count, Path(tmp))
    print(f"sessions of each kind: {count}")
    for kind, heap, rss in (("terminal (PTY)", heap_t, rss_t), ("structured", heap_s, rss_s)):
        each_heap, each_rss = heap / count / 1024, rss / count / 1024
        print(f"{kind}: {each_heap:.1f} KiB heap, {each_rss:.1f} KiB RSS per session")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    args = parser.parse_args(argv)
    asyncio.run(run(args.sessions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
