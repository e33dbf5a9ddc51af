import asyncio

import pytest

from tests.contracts.agent_session_contract import AgentSessionContract
from tests.fakes.ports.agent_session import FakeAgentSession


def _reply(prompt: str) -> str:
    return f"echo: {prompt}"


class ScriptedFake(FakeAgentSession):
    """The contract's script: SLOW hangs until interrupted, FAIL ends with an error."""

    async def _run(self, prompt: str) -> None:
        if "SLOW" in prompt:
            await asyncio.Event().wait()
        if "FAIL" in prompt:
            self.fail_next = "scripted failure"
        await super()._run(prompt)


@pytest.fixture
async def make_session():
    sessions = []

    async def make(resume=None):
        session = ScriptedFake(reply=_reply, conversation_id=resume or "conv-1")
        sessions.append(session)
        return session

    yield make
    for session in sessions:
        await session.shutdown()


class TestFakeAgentSession(AgentSessionContract):
    pass
