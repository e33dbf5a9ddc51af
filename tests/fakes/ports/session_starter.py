"""The fake of the ``SessionStarter`` port: fake terminals and fake structured sessions.

Records every start; a test can make a profile's CLI "missing" or hold starts open with ``gate``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from idea.application.session_ports import TerminalSpec
from idea.domain.agent import Agent
from idea.domain.errors import Unavailable
from idea.domain.profile import Profile
from tests.fakes.ports.agent_session import FakeAgentSession
from tests.fakes.ports.terminal import FakeTerminalLauncher, FakeTerminalSession


class FakeSessionStarter:
    def __init__(self, session_class: Callable[..., FakeAgentSession] = FakeAgentSession) -> None:
        self.session_class = session_class
        self.terminals = FakeTerminalLauncher()
        self.structured: list[FakeAgentSession] = []
        self.starts: list[tuple[str, str, str | None]] = []  # (agent, mode, resume id)
        self.missing: set[str] = set()  # profile names whose CLI "is not installed"
        self.gate: asyncio.Event | None = None
        self._conversations = 0

    async def start_terminal(
        self, agent: Agent, profile: Profile, rows: int, cols: int
    ) -> FakeTerminalSession:
        await self._before(agent, profile, "terminal", None)
        return await self.terminals.start(
            TerminalSpec(argv=("echo",), cwd="/project", env={}, rows=rows, cols=cols)
        )

    async def start_structured(
        self, agent: Agent, profile: Profile, resume_conversation_id: str | None
    ) -> FakeAgentSession:
        await self._before(agent, profile, "structured", resume_conversation_id)
        self._conversations += 1
        conversation = resume_conversation_id or f"conv-{agent.name}-{self._conversations}"
        session = self.session_class(name=agent.name, conversation_id=conversation)
        self.structured.append(session)
        return session

    async def _before(self, agent: Agent, profile: Profile, mode: str, resume: str | None) -> None:
        self.starts.append((agent.name, mode, resume))
        if self.gate is not None:
            await self.gate.wait()
        if profile.name in self.missing:
            raise Unavailable(f"cannot start agent {agent.name}: '{profile.name}' is not on PATH")
