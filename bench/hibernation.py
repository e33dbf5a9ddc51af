"""Hibernation (DESIGN.md §15) with the REAL Claude Code CLI, offline against the mock model.

Ten structured agents, two of them busy (a turn the mock holds open), eight idle after one
turn each. Measured side by side in one run:

- memory: the RSS of IdeA's whole process tree (IdeA, every CLI and its MCP bridge) without
  hibernation, and with it once the idle eight hibernated; against one agent's tree (its CLI
  and its bridge), target: with hibernation <= 2 x one agent's tree + 60 MB;
- wake: the first ask to a hibernated agent (launch resuming its conversation + a turn) against
  the first ask to an agent never started (a cold start + a turn), medians over the eight,
  target: wake <= cold start + 100 ms.

Needs ``tests/real_cli/install.sh``. Usage: python bench/hibernation.py [--agents 10 --busy 2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from idea.domain.policy import Policy
from tests.integration.test_real_delegation import World
from tests.real_cli.mock_model import Hold, Reply, Request

MB = 1024 * 1024


def tree_rss(root: psutil.Process) -> int:
    total = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            total += process.memory_info().rss
        except psutil.Error:
            continue
    return total


def agent_tree_rss(pids: list[int]) -> int:
    """One agent's CLI and everything it started (its MCP bridge)."""
    total = 0
    for pid in pids:
        try:
            total += tree_rss(psutil.Process(pid))
        except psutil.Error:
            continue
    return total


async def timed_ask(world: World, name: str) -> float:
    started = time.perf_counter()
    reply = await world.ask(name, "hello")
    assert reply == f"hello from {name}", reply
    return time.perf_counter() - started


async def scenario(agents: int, busy: int, hibernate: bool) -> dict[str, float]:
    names = [f"agent{i}" for i in range(agents)]
    busy_names = set(names[:busy])
    with tempfile.TemporaryDirectory(prefix="idea-hibernation-") as tmp:
        world = World(Path(tmp))
        turns: dict[str, int] = {}

        def respond(name: str, _request: Request) -> Reply:
            turns[name] = turns.get(name, 0) + 1
            if name in busy_names and turns[name] > 1:
                return Hold(300.0)
            return f"hello from {name}"

        world.responder = respond
        runtime = await world.open(dict.fromkeys(names, "claude"))
        held: list[asyncio.Task[object]] = []
        try:
            runtime.services.policy.save(Policy(hibernate_after_s=1.0 if hibernate else None))
            cold = [await timed_ask(world, name) for name in names]
            one_agent = statistics.median(
                agent_tree_rss(runtime.sessions.structured_session(a.id).pids())  # type: ignore[union-attr]
                for a in world.agents.values()
            )
            held = [asyncio.create_task(world.ask(name, "work")) for name in busy_names]
            while sum(turns.get(n, 0) for n in busy_names) < 2 * busy:
                await asyncio.sleep(0.05)
            if hibernate:
                await asyncio.sleep(1.2)
                asleep = await runtime.core.hibernation.check()
                assert len(asleep) == agents - busy, asleep
            await asyncio.sleep(0.5)  # let stopped trees finish exiting
            whole = tree_rss(psutil.Process())
            result = {
                "cold_s": statistics.median(cold[busy:]),
                "one_agent_mb": one_agent / MB,
                "tree_mb": whole / MB,
            }
            if hibernate:
                wakes = [await timed_ask(world, n) for n in names if n not in busy_names]
                result["wake_s"] = statistics.median(wakes)
            return result
        finally:
            for task in held:
                task.cancel()
            await asyncio.gather(*held, return_exceptions=True)
            await world.close()


async def run(agents: int, busy: int) -> None:
    without = await scenario(agents, busy, hibernate=False)
    with_ = await scenario(agents, busy, hibernate=True)
    one = without["one_agent_mb"]
    print(f"{agents} structured agents (real Claude Code), {busy} busy")
    print(f"one agent's tree (CLI + bridge): {one:.0f} MB RSS")
    print(f"whole tree without hibernation: {without['tree_mb']:.0f} MB")
    print(
        f"whole tree with hibernation:    {with_['tree_mb']:.0f} MB "
        f"(target <= 2 x {one:.0f} + 60 = {2 * one + 60:.0f} MB; "
        f"ratio to without: {with_['tree_mb'] / without['tree_mb']:.2f})"
    )
    wake_ms, cold_ms = with_["wake_s"] * 1000, with_["cold_s"] * 1000
    print(
        f"wake on ask {wake_ms:.0f} ms vs cold start {cold_ms:.0f} ms "
        f"(difference {wake_ms - cold_ms:+.0f} ms, target <= +100 ms)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--busy", type=int, default=2)
    args = parser.parse_args(argv)
    asyncio.run(run(args.agents, args.busy))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
