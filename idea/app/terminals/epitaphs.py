"""What a terminal agent said last: when its CLI exits by itself (a crash, a refusal, `exit`),
the end of its output and its exit code are kept until the agent starts again, so the cell shows
why it ended ("exited with code N") instead of a blank "stopped". A stop asked for is not kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from idea.application.event_bus import EventBus
from idea.application.live_sessions import LiveSessions
from idea.application.ports import Clock
from idea.domain.events import AgentLaunched, DomainEvent
from idea.domain.json_types import JsonObject
from idea.domain.profile import Mode

KEEP_CHARS = 64 * 1024


@dataclass(frozen=True, slots=True)
class Epitaph:
    exit_code: int
    output: str
    at_ms: int

    def to_json(self) -> JsonObject:
        return {"exit_code": self.exit_code, "at_ms": self.at_ms}


class TerminalEpitaphs:
    def __init__(self, bus: EventBus, sessions: LiveSessions, clock: Clock) -> None:
        self._sessions = sessions
        self._clock = clock
        self._last: dict[str, Epitaph] = {}
        self.close = bus.subscribe(self._on_event)

    def of(self, agent_id: str) -> Epitaph | None:
        return self._last.get(agent_id)

    def _on_event(self, event: DomainEvent) -> None:
        if not isinstance(event, AgentLaunched):
            return
        self._last.pop(event.agent_id, None)  # it runs again: its last words are old news
        if event.mode is not Mode.TERMINAL:
            return
        agent_id = event.agent_id
        session = self._sessions.terminals.registered(agent_id)
        if session is None:
            return

        def exited(code: int) -> None:
            if self._sessions.terminals.registered(agent_id) is session:
                output = session.scrollback()[-KEEP_CHARS:]
                self._last[agent_id] = Epitaph(code, output, self._clock.now_ms())

        session.on_exit(exited)
