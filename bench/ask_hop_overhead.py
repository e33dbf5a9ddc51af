"""IdeA's own latency per delegation hop, with zero-time turns: p50 and p99 over N asks.

Agent `caller` asks `target` through the orchestrator (the MCP door's path: dispatch, the
target's FIFO, its session, the answer back), both fake structured sessions answering at once.
Two hops are timed per ask: dispatched → the target's turn starts (in), and the target's final
text → the caller has its answer (out). The target is p50 <= 5 ms per hop.
Usage: python bench/ask_hop_overhead.py [--asks 500]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from idea.domain import commands as c
from idea.domain.agent import Agent
from tests.fakes.ports.agent_session import FakeAgentSession
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.worlds import bootstrap_test_app

MARKS: dict[str, float] = {}


class Stamped(FakeAgentSession):
    """A turn that answers at once, noting when it started and when its answer was ready."""

    async def _run(self, prompt: str) -> None:
        MARKS["started"] = time.perf_counter()
        await super()._run(prompt)
        MARKS["answered"] = time.perf_counter()


def quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def run(asks: int) -> tuple[list[float], list[float]]:
    world = bootstrap_test_app(
        Agent(id="id-caller", name="caller", profile="claude"),
        Agent(id="id-target", name="target", profile="claude"),
        starter=FakeSessionStarter(Stamped),
    )
    hop_in, hop_out = [], []
    try:
        await world.service.dispatch(c.AskAgent("target", "warm up"), c.Source.MCP, "id-caller")
        for n in range(asks):
            sent = time.perf_counter()
            await world.service.dispatch(
                c.AskAgent("target", f"ask {n}"), c.Source.MCP, "id-caller"
            )
            back = time.perf_counter()
            hop_in.append(MARKS["started"] - sent)
            hop_out.append(back - MARKS["answered"])
    finally:
        await world.close()
    return hop_in, hop_out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asks", type=int, default=500)
    args = parser.parse_args()
    hop_in, hop_out = asyncio.run(run(args.asks))
    for name, samples in (
        ("in  (dispatched -> turn started)", hop_in),
        ("out (answer -> caller)", hop_out),
    ):
        p50, p99 = quantiles(samples)
        print(f"hop {name}: p50 {p50 * 1000:.3f} ms  p99 {p99 * 1000:.3f} ms")
    print("target: p50 <= 5 ms per hop")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
