import asyncio
import time

import pytest

from idea.domain.usage import RateLimit, Usage
from tests.contracts.agent_session_contract import AgentSessionContract
from tests.fakes.ports.agent_session import FakeAgentSession

TURN_USAGE = Usage(input_tokens=10, output_tokens=4, cache_read_tokens=2, cost_usd=0.001)
RESETS_IN_S = 3600


def _reply(prompt: str) -> str:
    return f"echo: {prompt}"


class ScriptedFake(FakeAgentSession):
    """The contract's script: SLOW hangs until interrupted, FAIL ends with an error, RATELIMIT
    with a rate limit that resets in an hour; every turn reports ``TURN_USAGE``."""

    async def _run(self, prompt: str) -> None:
        self.usage = TURN_USAGE
        if "SLOW" in prompt:
            await asyncio.Event().wait()
        if "FAIL" in prompt:
            self.fail_next = "scripted failure"
        if "RATELIMIT" in prompt:
            resets = int(time.time() * 1000) + RESETS_IN_S * 1000
            self.rate_limit_next = RateLimit("usage limit reached", resets)
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
    turn_usage = TURN_USAGE
