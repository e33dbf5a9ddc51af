"""AgentLauncher: start an agent's one session, or show the running one (DESIGN.md §5 guard table).

- not running, any request: start it, publish AgentLaunched;
- running in cell N, request for cell N or a re-attach: re-bind the view, no respawn;
- running in cell N, a NEW launch in cell M: AGENT_ALREADY_RUNNING {agent_id, node_id: N};
- running in the background (no cell), request for cell M: adopt it in cell M;
- running anywhere, background request: the running session (idempotent);
- being launched: wait for that launch, then the rules above.
"""

from __future__ import annotations

from dataclasses import dataclass

from idea.application.event_bus import EventPublisher
from idea.application.live_sessions import LiveEntry, LiveSessions, SessionEntry
from idea.application.ports import AgentStore, Clock, ProfileStore, ProjectTrust
from idea.application.session_ports import SessionStarter
from idea.domain.agent import Agent
from idea.domain.errors import AgentAlreadyRunning, Invalid
from idea.domain.events import AgentLaunched
from idea.domain.profile import Mode


@dataclass(frozen=True, slots=True)
class LaunchRequest:
    name: str
    node_id: str | None = None  # the cell that will show it; None = background
    mode: Mode | None = None  # default: the agent's, else its profile's
    reattach: bool = False  # the cell knows the agent was running there (tab switch, reload)
    resume_conversation_id: str | None = None
    rows: int = 24
    cols: int = 80


@dataclass(frozen=True, slots=True)
class LaunchResult:
    agent: Agent
    entry: LiveEntry
    mode: Mode
    started: bool  # False: an existing session was returned or re-bound


class AgentLauncher:
    def __init__(
        self,
        agents: AgentStore,
        profiles: ProfileStore,
        sessions: LiveSessions,
        starter: SessionStarter,
        events: EventPublisher,
        clock: Clock,
        trust: ProjectTrust,
    ) -> None:
        self._trust = trust
        self._agents = agents
        self._profiles = profiles
        self._sessions = sessions
        self._starter = starter
        self._events = events
        self._clock = clock

    async def __call__(self, request: LaunchRequest) -> LaunchResult:
        """Raises ``NotFound`` (agent, profile), ``Invalid`` (mode), ``AgentAlreadyRunning``,
        ``Unavailable`` (the CLI cannot start), ``Untrusted`` (a restricted project)."""
        agent = self._agents.get(request.name)
        while (pending := self._sessions.launching(agent.id)) is not None:
            await pending[1]
        existing = self._existing(agent, request)
        if existing is not None:
            return existing
        self._trust.require(f"start agent {agent.name}")
        return await self._start(agent, request)

    def _existing(self, agent: Agent, request: LaunchRequest) -> LaunchResult | None:
        entry = self._sessions.entry(agent.id)
        if entry is None:
            return None
        mode = Mode.TERMINAL if self._sessions.terminal_session(agent.id) else Mode.STRUCTURED
        if request.node_id is None or entry.node_id == request.node_id:
            return LaunchResult(agent, entry, mode, started=False)
        if entry.node_id is None or request.reattach:
            moved = self._sessions.rebind(agent.id, request.node_id)
            return LaunchResult(agent, moved, mode, started=False)
        raise AgentAlreadyRunning(agent.id, entry.node_id)

    async def _start(self, agent: Agent, request: LaunchRequest) -> LaunchResult:
        profile = self._profiles.get(agent.profile)
        mode = request.mode or agent.mode or profile.default_mode
        if not profile.supports(mode):
            raise Invalid(
                f"agent {agent.name} uses profile {profile.name}, which has no structured mode; "
                "run it in a terminal"
            )
        self._sessions.begin_launch(agent.id, request.node_id)
        try:
            entry: LiveEntry
            if mode is Mode.TERMINAL:
                terminal = await self._starter.start_terminal(
                    agent, profile, request.rows, request.cols
                )
                entry = SessionEntry(
                    agent.id, agent.name, terminal, request.node_id, self._clock.now_ms()
                )
                self._sessions.add_terminal(entry)
                conversation_id = None
            else:
                structured = await self._starter.start_structured(
                    agent, profile, request.resume_conversation_id
                )
                entry = SessionEntry(
                    agent.id, agent.name, structured, request.node_id, self._clock.now_ms()
                )
                self._sessions.add_structured(entry)
                conversation_id = structured.conversation_id
        finally:
            self._sessions.end_launch(agent.id)
        self._events.publish(
            AgentLaunched(agent.id, agent.name, mode, request.node_id, conversation_id)
        )
        return LaunchResult(agent, entry, mode, started=True)
