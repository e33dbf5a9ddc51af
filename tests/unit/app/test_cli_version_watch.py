"""A launch of a CLI whose version changed since doctor passed pushes one CliVersionChanged."""

import asyncio

from idea.app.cli_version_watch import CliVersionWatch
from idea.application.event_bus import EventBus
from idea.domain.agent import Agent
from idea.domain.events import AgentLaunched, CliVersionChanged
from idea.domain.profile import Mode
from tests.fakes.ports.memory_stores import InMemoryAgentStore
from tests.waiting import until


def launched(agent_id: str) -> AgentLaunched:
    return AgentLaunched(agent_id, agent_id, Mode.STRUCTURED)


async def test_a_changed_version_is_told_once_and_nothing_else_is():
    bus = EventBus()
    seen: list[object] = []
    bus.subscribe(seen.append)
    agents = InMemoryAgentStore(
        Agent(id="a", name="a", profile="codex"),
        Agent(id="b", name="b", profile="claude"),
        Agent(id="c", name="c", profile="gemini"),
    )
    passed = {"codex": "0.170.0", "claude": "2.1.332"}
    now = {"codex": "0.171.0", "claude": "2.1.332", "gemini": "0.61.0"}
    asked: list[str] = []

    async def version_of(argv):
        asked.append(argv[0])
        return now[argv[0]]

    watch = CliVersionWatch(bus, agents, passed.get, lambda profile: (profile,), version_of)
    try:
        for agent_id in ("a", "b", "c", "a"):
            bus.publish(launched(agent_id))
        await until(lambda: len(asked) == 3)  # gemini never passed doctor: not even asked
        await asyncio.sleep(0)
        changes = [e for e in seen if isinstance(e, CliVersionChanged)]
        assert changes == [CliVersionChanged("codex", "0.170.0", "0.171.0")]
        assert "gemini" not in asked
    finally:
        await watch.close()
