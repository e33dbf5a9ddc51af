"""The behaviour every ``AgentSession`` must have, run against the fake and each real adapter.

A test module subclasses ``AgentSessionContract`` and provides an async fixture ``make_session``:
a factory ``async (resume: str | None = None) -> AgentSession`` whose CLI answers a prompt P
with the final text ``echo: P``, never finishes a prompt containing ``SLOW`` until interrupted, and
ends a prompt containing ``FAIL`` with an error result. The fixture shuts its sessions down.
"""

from __future__ import annotations

import asyncio

import pytest

from idea.domain.errors import AgentFailed, Conflict, IdeaTimeout, Unavailable
from idea.domain.session_events import TextDelta, TurnFinished


class AgentSessionContract:
    async def test_two_turns_return_each_final_text(self, make_session):
        session = await make_session()
        assert (await session.send_blocking("first", timeout=30)).text == "echo: first"
        assert (
            await session.send_blocking("second ✓ ünï", timeout=30)
        ).text == "echo: second ✓ ünï"
        assert session.conversation_id

    async def test_events_end_with_one_final(self, make_session):
        session = await make_session()
        seen = []
        unsubscribe = session.subscribe(seen.append)
        events = [event async for event in session.send("hello")]
        unsubscribe()
        assert isinstance(events[-1], TurnFinished)
        assert events[-1].text == "echo: hello"
        assert sum(isinstance(e, TurnFinished) for e in events) == 1
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "echo: hello"
        assert seen == events
        assert not session.busy

    async def test_timeout_interrupts_but_never_kills(self, make_session):
        session = await make_session()
        await session.send_blocking("warm up", timeout=30)
        conversation = session.conversation_id
        with pytest.raises(IdeaTimeout) as err:
            await session.send_blocking("SLOW please", timeout=1.0)
        assert err.value.code == "TIMEOUT"
        assert session.alive
        assert (await session.send_blocking("after", timeout=30)).text == "echo: after"
        assert session.conversation_id == conversation

    async def test_error_result_is_agent_failed_and_session_goes_on(self, make_session):
        session = await make_session()
        with pytest.raises(AgentFailed) as err:
            await session.send_blocking("FAIL now", timeout=30)
        assert err.value.code == "AGENT_FAILED"
        assert (await session.send_blocking("again", timeout=30)).text == "echo: again"

    async def test_one_turn_at_a_time(self, make_session):
        session = await make_session()
        first = asyncio.create_task(session.send_blocking("SLOW one", timeout=30))
        while not session.busy:
            await asyncio.sleep(0.01)
        with pytest.raises(Conflict):
            await session.send_blocking("two", timeout=30)
        await session.interrupt()
        with pytest.raises(AgentFailed):
            await first
        assert (await session.send_blocking("three", timeout=30)).text == "echo: three"

    async def test_shutdown_ends_the_session(self, make_session):
        session = await make_session()
        await session.send_blocking("hi", timeout=30)
        await session.shutdown()
        await session.shutdown()  # idempotent
        assert not session.alive
        assert session.pids() == []
        with pytest.raises(Unavailable):
            await session.send_blocking("late", timeout=5)

    async def test_resume_keeps_the_conversation(self, make_session):
        session = await make_session()
        await session.send_blocking("remember", timeout=30)
        conversation = session.conversation_id
        await session.shutdown()
        resumed = await make_session(resume=conversation)
        assert (await resumed.send_blocking("again", timeout=30)).text == "echo: again"
        assert resumed.conversation_id == conversation
