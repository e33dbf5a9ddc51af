"""OrchestratorService.dispatch: the one behaviour behind the three doors (UI, file, MCP).

Every processed command, whatever its outcome, publishes ``OrchestratorRequestProcessed`` and
appends one line to the delegation log. Failures are ``IdeaError``s; anything else escaping a
handler is reported as INTERNAL (and logged), never swallowed.
"""

from __future__ import annotations

import logging

from idea.application.ask_agent import AskAgent, ProgressListener
from idea.application.create_agent import NewAgent, create_agent
from idea.application.event_bus import EventPublisher
from idea.application.launch_agent import LaunchAgent, LaunchRequest
from idea.application.live_sessions import LiveSessions
from idea.application.ports import (
    AgentStore,
    Clock,
    DelegationLog,
    IdGenerator,
    LiveStateStore,
    ProfileStore,
    SkillStore,
)
from idea.application.stop_agent import StopAgent
from idea.application.work_state import board, record_delegation, set_work_state
from idea.domain import commands as c
from idea.domain.agent import Agent
from idea.domain.errors import IdeaError, Internal, NotFound
from idea.domain.events import AgentsChanged, OrchestratorRequestProcessed
from idea.domain.knowledge import Skill
from idea.domain.outcome import OrchestratorOutcome

log = logging.getLogger(__name__)

DEFAULT_PROFILE = "claude"


class OrchestratorService:
    def __init__(
        self,
        agents: AgentStore,
        profiles: ProfileStore,
        skills: SkillStore,
        live_state: LiveStateStore,
        sessions: LiveSessions,
        launch: LaunchAgent,
        stop: StopAgent,
        ask: AskAgent,
        events: EventPublisher,
        delegations: DelegationLog,
        clock: Clock,
        ids: IdGenerator,
    ) -> None:
        self._agents = agents
        self._profiles = profiles
        self._skills = skills
        self._live_state = live_state
        self._sessions = sessions
        self._launch = launch
        self._stop = stop
        self._ask = ask
        self._events = events
        self._delegations = delegations
        self._clock = clock
        self._ids = ids

    async def dispatch(
        self,
        command: c.Command,
        source: c.Source,
        requester_id: str | None = None,
        progress: ProgressListener | None = None,
    ) -> OrchestratorOutcome:
        started = self._clock.monotonic()
        code: str | None = None
        outcome: OrchestratorOutcome | None = None
        try:
            outcome = await self._handle(command, requester_id, progress)
            return outcome
        except IdeaError as exc:
            code = exc.code
            raise
        except Exception as exc:
            log.exception("orchestrator: %s failed", command.ACTION)
            code = Internal.code
            raise Internal(f"{command.ACTION} failed unexpectedly: {exc}") from exc
        except BaseException:
            code = "CANCELLED"
            raise
        finally:
            self._processed(command, source, requester_id, started, code, outcome)

    async def _handle(
        self, command: c.Command, requester_id: str | None, progress: ProgressListener | None
    ) -> OrchestratorOutcome:
        match command:
            case c.AskAgent():
                return await self._ask_agent(command, requester_id, progress)
            case c.LaunchAgent():
                return await self._run(command)
            case c.SpawnAgent():
                return await self._spawn(command)
            case c.StopAgent():
                stopped = await self._stop(command.name, reason="stopped by request")
                state = "stopped" if stopped else "was not running"
                return OrchestratorOutcome(f"agent {command.name} {state}")
            case c.UpdateAgentContext():
                return self._update_context(command)
            case c.CreateSkill():
                return self._create_skill(command)
            case c.SetWorkState():
                row = set_work_state(
                    command, requester_id, self._agents, self._live_state, self._events, self._clock
                )
                return OrchestratorOutcome(
                    f"work state set to {row.status.value}", data=row.to_json()
                )
            case c.GetProjectWorkState():
                queues = {a.id: self._ask.queue_length(a.id) for a in self._agents.all()}
                data = board(self._agents, self._live_state, self._sessions, queues)
                return OrchestratorOutcome("project work state", data=data)
        raise Internal(f"no handler for {type(command).__name__}")  # pragma: no cover

    async def _ask_agent(
        self, command: c.AskAgent, requester_id: str | None, progress: ProgressListener | None
    ) -> OrchestratorOutcome:
        at = self._clock.now_ms()
        outcome: dict[str, str | int | bool | None] = {"target": command.target, "at_ms": at}
        try:
            reply = await self._ask(
                command.target, command.task, requester_id, command.timeout_s, progress
            )
        except IdeaError as exc:
            outcome.update(ok=False, code=exc.code)
            raise
        else:
            outcome.update(ok=True, code=None)
            return OrchestratorOutcome(f"{command.target} answered", reply=reply)
        finally:
            if requester_id is not None and "ok" in outcome:
                record_delegation(self._live_state, requester_id, dict(outcome), self._clock)

    async def _run(self, command: c.LaunchAgent) -> OrchestratorOutcome:
        created = self._ensure_agent(command.name, None, command.context or command.task)
        result = await self._launch(LaunchRequest(command.name))
        what = "created and launched" if created else "launched"
        if not result.started:
            return OrchestratorOutcome(f"agent {command.name} is already running")
        return OrchestratorOutcome(f"{what} agent {command.name} ({result.mode.value})")

    async def _spawn(self, command: c.SpawnAgent) -> OrchestratorOutcome:
        created = self._ensure_agent(command.name, command.profile, command.context)
        node = command.node_id if command.visible else None
        result = await self._launch(LaunchRequest(command.name, node_id=node))
        where = f"in cell {node}" if node else "in the background"
        verb = "created and started" if created else ("started" if result.started else "shown")
        if not result.started and not created and node is None:
            return OrchestratorOutcome(f"agent {command.name} is already running")
        return OrchestratorOutcome(f"{verb} agent {command.name} {where}")

    def _ensure_agent(self, name: str, profile: str | None, context: str | None) -> bool:
        """Create the agent if it does not exist yet; True if it was created."""
        try:
            self._agents.get(name)
        except NotFound:
            pass
        else:
            return False
        create_agent(
            self._agents,
            self._profiles,
            self._ids,
            NewAgent(name=name, profile=profile or DEFAULT_PROFILE, context=context or ""),
        )
        self._events.publish(AgentsChanged())
        return True

    def _update_context(self, command: c.UpdateAgentContext) -> OrchestratorOutcome:
        agent: Agent = self._agents.get(command.name)
        self._agents.save(agent.with_context(command.context))
        self._events.publish(AgentsChanged())
        running = self._sessions.is_agent_live(agent.id)
        note = (
            "; it is running now: the new context applies when its session restarts"
            if running
            else "; it applies at its next session start"
        )
        return OrchestratorOutcome(f"context of {command.name} updated{note}")

    def _create_skill(self, command: c.CreateSkill) -> OrchestratorOutcome:
        try:
            self._skills.get(command.name)
            verb = "updated"
        except NotFound:
            verb = "created"
        self._skills.save(Skill(command.name, command.description, command.body))
        return OrchestratorOutcome(f"skill {command.name} {verb}")

    def _processed(
        self,
        command: c.Command,
        source: c.Source,
        requester_id: str | None,
        started: float,
        code: str | None,
        outcome: OrchestratorOutcome | None,
    ) -> None:
        duration_ms = max(0, round((self._clock.monotonic() - started) * 1000))
        target = c.command_target(command)
        self._events.publish(
            OrchestratorRequestProcessed(
                source, requester_id, command.ACTION, target, code is None, duration_ms, code
            )
        )
        prompt = command.task if isinstance(command, c.AskAgent) else None
        self._delegations.append(
            {
                "at_ms": self._clock.now_ms(),
                "source": source.value,
                "requester": requester_id,
                "action": command.ACTION,
                "target": target,
                "prompt_chars": len(prompt) if prompt is not None else None,
                "prompt": _clip(prompt),
                "reply": _clip(outcome.reply if outcome is not None else None),
                "duration_ms": duration_ms,
                "ok": code is None,
                "code": code,
            }
        )


LOGGED_TEXT_MAX = 8000


def _clip(text: str | None) -> str | None:
    """Prompts and replies are logged for the UI's delegation log, bounded in size."""
    if text is None or len(text) <= LOGGED_TEXT_MAX:
        return text
    return text[: LOGGED_TEXT_MAX - 1] + "…"
