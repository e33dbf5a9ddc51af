"""What ``TurnSession`` guarantees every adapter beyond the contract: a caller giving up while a
turn is being started does not cut the start short (the CLI could be left running unseen)."""

from __future__ import annotations

import asyncio

import pytest

from idea.domain.errors import IdeaTimeout, Unavailable
from tests.fakes.ports.agent_session import FakeAgentSession
from tests.waiting import until

pytestmark = pytest.mark.timeout(10)


async def test_a_caller_that_gives_up_while_the_turn_starts_lets_the_start_end_then_interrupts():
    session = FakeAgentSession()
    session.gate = asyncio.Event()  # once started, the turn runs until interrupted
    session.start_gate = asyncio.Event()
    caller = asyncio.create_task(session.send_blocking("one", timeout=0.05))
    await until(lambda: session._settling is not None)  # the caller gave up mid-start
    assert session.prompts == []
    session.start_gate.set()
    with pytest.raises(IdeaTimeout):
        await caller
    assert session.prompts == ["one"]  # the start was not cut short...
    assert session.interrupts == 1  # ...and the turn it began was interrupted
    assert not session.busy
    session.gate.set()
    assert (await session.send_blocking("two", timeout=5)).text == "echo: two"


class StartsThenFails(FakeAgentSession):
    """Its CLI refuses the first prompt once handed it, after ``start_gate``."""

    async def _start_turn(self, prompt: str) -> None:
        if not self.prompts:
            assert self.start_gate is not None
            await self.start_gate.wait()
            self.prompts.append(prompt)
            raise Unavailable("the CLI could not take the prompt")
        await super()._start_turn(prompt)


async def test_a_start_that_fails_after_its_caller_gave_up_leaves_the_session_free():
    session = StartsThenFails()
    session.start_gate = asyncio.Event()
    caller = asyncio.create_task(session.send_blocking("one", timeout=0.05))
    await until(lambda: session._settling is not None)
    session.start_gate.set()
    with pytest.raises(IdeaTimeout):
        await caller
    assert session.interrupts == 0  # nothing started: nothing to interrupt
    assert not session.busy
    assert (await session.send_blocking("two", timeout=5)).text == "echo: two"
