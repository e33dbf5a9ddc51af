"""An ask's turn (DESIGN.md §6): the target's structured session (launched in the background, or
woken from hibernation, when it is not running), the task sent, the answer read.

- a target that turns out to run in a terminal → INVALID;
- a turn longer than its timeout → TIMEOUT, the target stays alive and its line moves on;
- every turn ends with AgentTurnFinished (ok or not, with its usage); success → AgentReplied; a
  rate-limit refusal → AgentRateLimited; each names the ask it served and that ask's parent;
- what each agent's turns cost since the project opened is added up (``usage``).
"""

from __future__ import annotations

from collections.abc import Callable

from idea.application.chains import Hop, UsageLedger
from idea.application.event_bus import EventPublisher
from idea.application.launch_agent import AgentLauncher, LaunchRequest
from idea.application.live_sessions import LiveSessions
from idea.application.session_ports import AgentSession
from idea.domain.agent import Agent
from idea.domain.errors import IdeaError, Invalid, RateLimited
from idea.domain.events import (
    AgentRateLimited,
    AgentReplied,
    AgentTurnFinished,
    AgentTurnStarted,
)
from idea.domain.profile import Mode
from idea.domain.session_events import TurnFinished


class AgentTurns:
    def __init__(
        self,
        sessions: LiveSessions,
        launch: AgentLauncher,
        events: EventPublisher,
        wake: Callable[[str], LaunchRequest | None] | None = None,
    ) -> None:
        """``wake``: how a hibernated agent is launched again (its conversation resumed)."""
        self._sessions = sessions
        self._launch = launch
        self._events = events
        self._wake = wake
        self.usage = UsageLedger()

    def is_in_terminal(self, agent: Agent) -> bool:
        return self._sessions.terminal_session(agent.id) is not None

    async def session(self, agent: Agent) -> AgentSession:
        """The agent's structured session, launched (or woken) when it has none."""
        session = self._sessions.structured_session(agent.id)
        if session is not None:
            return session
        woken = self._wake(agent.id) if self._wake is not None else None
        request = woken or LaunchRequest(agent.name, mode=Mode.STRUCTURED)
        result = await self._launch(request)
        if result.mode is not Mode.STRUCTURED:
            raise Invalid(f"agent {agent.name} is running in a terminal and cannot be asked")
        session = self._sessions.structured_session(agent.id)
        if session is None:  # pragma: no cover - the launch registers it
            raise Invalid(f"agent {agent.name} has no structured session")
        return session

    def started(self, agent: Agent, hop: Hop, task: str) -> None:
        self._events.publish(
            AgentTurnStarted.of_prompt(
                agent.id,
                agent.name,
                hop.requester_id,
                task,
                hop.chain.chain_id,
                hop.depth,
                hop.ask_id,
                hop.parent_ask_id,
            )
        )

    async def send(
        self, agent: Agent, hop: Hop, session: AgentSession, task: str, timeout_s: float
    ) -> TurnFinished:
        """The turn's end; a failed turn is published as such before its error is raised."""
        try:
            return await session.send_blocking(task, timeout_s)
        except IdeaError as exc:
            self._events.publish(self._finished(agent, hop, False, None))
            if isinstance(exc, RateLimited):
                self._events.publish(
                    AgentRateLimited(agent.id, agent.name, exc.message, exc.resets_at_ms)
                )
            raise

    def answered(self, agent: Agent, hop: Hop, final: TurnFinished) -> None:
        """A turn that answered: its cost counted, its end and its reply published."""
        if final.usage is not None:
            self.usage.add(agent.id, final.usage)
        self._events.publish(self._finished(agent, hop, True, final))
        self._events.publish(
            AgentReplied.of_reply(
                agent.id, agent.name, hop.requester_id, final.text, hop.ask_id, hop.parent_ask_id
            )
        )

    @staticmethod
    def _finished(
        agent: Agent, hop: Hop, ok: bool, final: TurnFinished | None
    ) -> AgentTurnFinished:
        usage = None if final is None else final.usage
        return AgentTurnFinished(
            agent.id, ok, usage, hop.chain.chain_id, hop.ask_id, hop.parent_ask_id
        )
