"""200 asks spread over 10 fake agents with known turn durations: parallel efficiency.

The ideal is the longest per-agent serial sum (asks to one agent are serial by design; different
agents run in parallel). Efficiency = ideal / measured; the target is >= 95 %.
Usage: python bench/asks_parallel.py [--asks 200] [--agents 10] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from idea.domain.agent import Agent
from tests.fakes.ports.agent_session import FakeAgentSession
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.worlds import bootstrap_test_app


class TimedTurn(FakeAgentSession):
    """A turn lasts the number of milliseconds written in its prompt."""

    async def _run(self, prompt: str) -> None:
        await asyncio.sleep(int(prompt.split()[1]) / 1000)
        await super()._run(prompt)


async def run(asks: int, agents: int, seed: int) -> tuple[float, float]:
    rng = random.Random(seed)
    names = [f"agent-{i}" for i in range(agents)]
    world = bootstrap_test_app(
        *(Agent(id=f"id-{n}", name=n, profile="claude") for n in names),
        starter=FakeSessionStarter(TimedTurn),
    )
    ask = world.ask
    plan = [(rng.choice(names), rng.randint(5, 40)) for _ in range(asks)]
    serial: dict[str, int] = {}
    for name, ms in plan:
        serial[name] = serial.get(name, 0) + ms
    ideal = max(serial.values()) / 1000
    for name in names:  # start the sessions first: the bench measures asks, not launches
        await ask(name, "turn 0")
    started = time.perf_counter()
    await asyncio.gather(*(ask(name, f"turn {ms}") for name, ms in plan))
    measured = time.perf_counter() - started
    await world.close()
    return ideal, measured


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asks", type=int, default=200)
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    ideal, measured = asyncio.run(run(args.asks, args.agents, args.seed))
    print(f"asks: {args.asks} over {args.agents} agents")
    print(f"ideal (longest per-agent serial sum): {ideal * 1000:.0f} ms")
    print(f"measured: {measured * 1000:.0f} ms")
    print(f"parallel efficiency: {ideal / measured:.1%} (target >= 95%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
