"""A launch of a CLI whose version changed since it last passed ``idea doctor`` pushes
``CliVersionChanged`` (DESIGN.md §17): CLI updates are what silently breaks integrations.

Invariant: never delays or fails a launch. The check runs after the launch, in the background
(owned here, cancelled at close), only for a profile that once passed doctor, and at most once
per executable file as it is (``current_version``'s cache); each change is pushed once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from idea.application.event_bus import EventBus
from idea.application.ports import AgentStore
from idea.application.tasks import TaskSet
from idea.domain.errors import IdeaError
from idea.domain.events import AgentLaunched, CliVersionChanged, DomainEvent

log = logging.getLogger(__name__)

# profile name -> the command line that runs its CLI now (empty: not found)
Runs = Callable[[str], Sequence[str]]
VersionOf = Callable[[Sequence[str]], Awaitable[str | None]]


class CliVersionWatch:
    def __init__(
        self,
        bus: EventBus,
        agents: AgentStore,
        passed: Callable[[str], str | None],
        runs: Runs,
        version_of: VersionOf,
    ) -> None:
        self._bus = bus
        self._agents = agents
        self._passed = passed
        self._runs = runs
        self._version_of = version_of
        self._tasks = TaskSet("CLI version watch")
        self._told: set[tuple[str, str]] = set()
        self._unsubscribe = bus.subscribe(self._on_event)

    async def close(self) -> None:
        self._unsubscribe()
        await self._tasks.close()

    def _on_event(self, event: DomainEvent) -> None:
        if isinstance(event, AgentLaunched):
            self._tasks.spawn(self._check(event.agent_id), name="cli-version-check")

    async def _check(self, agent_id: str) -> None:
        try:
            profile = self._agents.get_by_id(agent_id).profile
        except IdeaError:
            return
        previous = self._passed(profile)
        if previous is None:
            return  # never passed doctor: nothing to compare with
        argv = self._runs(profile)
        current = await self._version_of(argv) if argv else None
        if current is None or current == previous or (profile, current) in self._told:
            return
        self._told.add((profile, current))
        log.warning("%s: its CLI is %s now; %s passed idea doctor", profile, current, previous)
        self._bus.publish(CliVersionChanged(profile, previous, current))
