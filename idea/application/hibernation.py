"""Hibernation (DESIGN.md §15): a structured agent with no turn for the policy's
``hibernate_after_s`` is stopped (its process tree gone) and its conversation kept; the next ask
or chat message launches it again, in the cell it had, resuming that conversation.

A hibernation runs in the agent's own line of asks (``AgentAsker.between_turns``), so it never
cuts a turn short and no ask can slip in between the check and the stop. Terminal agents are
never hibernated; an agent the user starts or stops meanwhile is no longer asleep.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass

from idea.application.ask_agent import AgentAsker
from idea.application.event_bus import EventBus
from idea.application.launch_agent import LaunchRequest
from idea.application.live_sessions import LiveSessions
from idea.application.stop_agent import AgentStopper
from idea.domain.events import (
    AgentHibernated,
    AgentLaunched,
    AgentStopped,
    AgentTurnFinished,
    AgentTurnStarted,
    DomainEvent,
)
from idea.domain.policy import Policy
from idea.domain.profile import Mode

log = logging.getLogger(__name__)

REASON = "hibernated"
CHECK_EVERY_MAX_S = 30.0


@dataclass(frozen=True, slots=True)
class Asleep:
    name: str
    node_id: str | None  # the cell it was shown in
    conversation_id: str | None


class Hibernation:
    def __init__(
        self,
        sessions: LiveSessions,
        asker: AgentAsker,
        stopper: AgentStopper,
        bus: EventBus,
        policy: Callable[[], Policy],
        now: Callable[[], float],
    ) -> None:
        self._sessions = sessions
        self._asker = asker
        self._stopper = stopper
        self._bus = bus
        self._policy = policy
        self._now = now
        self._last_active: dict[str, float] = {}
        self._asleep: dict[str, Asleep] = {}
        self._unsubscribe = bus.subscribe(self._on_event)

    def close(self) -> None:
        self._unsubscribe()

    def is_asleep(self, agent_id: str) -> bool:
        return agent_id in self._asleep

    def asleep(self) -> dict[str, Asleep]:
        return dict(self._asleep)

    def wake(self, agent_id: str) -> LaunchRequest | None:
        """How to launch a hibernated agent again (its cell, its conversation); None if awake."""
        found = self._asleep.pop(agent_id, None)
        if found is None:
            return None
        return LaunchRequest(
            found.name,
            node_id=found.node_id,
            mode=Mode.STRUCTURED,
            reattach=found.node_id is not None,
            resume_conversation_id=found.conversation_id,
        )

    def check_every_s(self) -> float | None:
        after = self._policy().hibernate_after_s
        return None if after is None else max(0.05, min(CHECK_EVERY_MAX_S, after / 4))

    async def run(self) -> None:
        """Check now and then until cancelled (the project closes)."""
        while True:
            every = self.check_every_s()
            await asyncio.sleep(every if every is not None else CHECK_EVERY_MAX_S)
            try:
                await self.check()
            except Exception:  # one bad check must not end hibernation for the project
                log.exception("hibernation check failed")

    async def check(self) -> list[str]:
        """Hibernate every agent idle for long enough; the names hibernated."""
        after = self._policy().hibernate_after_s
        if after is None:
            return []
        now = self._now()
        due = [
            live
            for live in self._sessions.live_agents()
            if live.mode is Mode.STRUCTURED
            and self._asker.queue_length(live.agent_id) == 0
            and now - self._last_active.setdefault(live.agent_id, now) >= after
        ]
        done: list[str] = []
        for live in due:
            if await self._asker.between_turns(
                live.agent_id, functools.partial(self._hibernate, live.agent_id, after)
            ):
                done.append(live.agent_name)
        return done

    async def _hibernate(self, agent_id: str, after: float) -> bool:
        """In the agent's line: still idle, still structured → stopped, conversation kept."""
        session = self._sessions.structured_session(agent_id)
        live = next((a for a in self._sessions.live_agents() if a.agent_id == agent_id), None)
        if session is None or live is None or session.busy:
            return False
        if self._now() - self._last_active.get(agent_id, self._now()) < after:
            return False  # a turn ran while this waited in line
        asleep = Asleep(live.agent_name, live.node_id, session.conversation_id)
        self._asleep[agent_id] = asleep  # before the stop's event, which would clear it
        if not await self._stopper.stop_id(agent_id, live.agent_name, REASON):
            self._asleep.pop(agent_id, None)
            return False
        self._bus.publish(AgentHibernated(agent_id, live.agent_name, asleep.conversation_id))
        log.info("%s hibernated after %.0f s without a turn", live.agent_name, after)
        return True

    def _on_event(self, event: DomainEvent) -> None:
        if isinstance(event, AgentTurnStarted | AgentTurnFinished):
            self._last_active[event.agent_id] = self._now()
        elif isinstance(event, AgentLaunched):
            self._last_active[event.agent_id] = self._now()
            self._asleep.pop(event.agent_id, None)
        elif isinstance(event, AgentStopped) and event.reason != REASON:
            self._asleep.pop(event.agent_id, None)
            self._last_active.pop(event.agent_id, None)
