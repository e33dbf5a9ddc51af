"""The behaviour every ``AgentSession`` must have, run against the fake and each real adapter.

A test module subclasses ``AgentSessionContract`` and provides an async fixture ``make_session``:
a factory ``async (resume: str | None = None) -> AgentSession`` whose CLI answers a prompt P
with the final text ``echo: P``, never finishes a prompt containing ``SLOW`` until interrupted,
ends a prompt containing ``FAIL`` with an error result, and refuses a prompt containing
``RATELIMIT`` as its provider's rate limit or spent quota would. The fixture shuts its sessions
down. The subclass says what the CLI reports: ``turn_usage`` for every answered turn (the
script makes them all cost the same) and ``rate_limit_resets_in_s``.
"""

from __future__ import annotations

import asyncio
import time
from typing import ClassVar

import pytest

from idea.domain.errors import AgentFailed, Conflict, IdeaTimeout, RateLimited, Unavailable
from idea.domain.session_events import TextDelta, TurnFinished
from idea.domain.usage import Usage
from tests.waiting import until

# A reset the CLI reports in whole seconds, or counted from when IdeA read it, may be this far off.
RESET_SLACK_MS = 2000


class AgentSessionContract:
    turn_usage: ClassVar[Usage]
    """What the CLI reports as the usage of each answered turn of the script."""
    rate_limit_resets_in_s: ClassVar[float | None] = 3600
    """When the CLI's refusal of ``RATELIMIT`` says the limit resets (None: it names no time)."""
    turn_s: ClassVar[float] = 30.0
    """How long one turn may take before the test calls it hung (a real CLI that starts a process
    per turn, on a busy 2-core machine, needs more than a fake)."""

    async def test_two_turns_return_each_final_text(self, make_session):
        session = await make_session()
        assert (await session.send_blocking("first", timeout=self.turn_s)).text == "echo: first"
        assert (
            await session.send_blocking("second ✓ ünï", timeout=self.turn_s)
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
        await session.send_blocking("warm up", timeout=self.turn_s)
        conversation = session.conversation_id
        with pytest.raises(IdeaTimeout) as err:
            await session.send_blocking("SLOW please", timeout=1.0)
        assert err.value.code == "TIMEOUT"
        assert session.alive
        assert (await session.send_blocking("after", timeout=self.turn_s)).text == "echo: after"
        assert session.conversation_id == conversation

    async def test_error_result_is_agent_failed_and_session_goes_on(self, make_session):
        session = await make_session()
        with pytest.raises(AgentFailed) as err:
            await session.send_blocking("FAIL now", timeout=self.turn_s)
        assert err.value.code == "AGENT_FAILED"
        assert (await session.send_blocking("again", timeout=self.turn_s)).text == "echo: again"

    async def test_one_turn_at_a_time(self, make_session):
        session = await make_session()
        first = asyncio.create_task(session.send_blocking("SLOW one", timeout=self.turn_s))
        await until(lambda: session.busy, what="the turn started")
        with pytest.raises(Conflict):
            await session.send_blocking("two", timeout=self.turn_s)
        await session.interrupt()
        with pytest.raises(AgentFailed):
            await first
        assert (await session.send_blocking("three", timeout=self.turn_s)).text == "echo: three"

    async def test_an_interrupted_turn_ends_saying_it_was_interrupted(self, make_session):
        session = await make_session()
        seen: list[TurnFinished] = []
        session.subscribe(lambda e: isinstance(e, TurnFinished) and seen.append(e))
        turn = asyncio.create_task(session.send_blocking("SLOW work", timeout=self.turn_s))
        await until(lambda: session.busy, what="the turn started")
        await session.interrupt()
        with pytest.raises(AgentFailed):
            await turn
        assert [(f.is_error, f.interrupted) for f in seen] == [(True, True)]
        # A failure nobody asked for is not an interruption.
        with pytest.raises(AgentFailed):
            await session.send_blocking("FAIL now", timeout=self.turn_s)
        assert [(f.is_error, f.interrupted) for f in seen[1:]] == [(True, False)]

    async def test_shutdown_ends_the_session(self, make_session):
        session = await make_session()
        await session.send_blocking("hi", timeout=self.turn_s)
        await session.shutdown()
        await session.shutdown()  # idempotent
        assert not session.alive
        assert session.pids() == []
        with pytest.raises(Unavailable):
            await session.send_blocking("late", timeout=5)

    async def test_resume_keeps_the_conversation(self, make_session):
        session = await make_session()
        await session.send_blocking("remember", timeout=self.turn_s)
        conversation = session.conversation_id
        await session.shutdown()
        resumed = await make_session(resume=conversation)
        assert (await resumed.send_blocking("again", timeout=self.turn_s)).text == "echo: again"
        assert resumed.conversation_id == conversation

    async def test_each_turn_reports_its_own_usage(self, make_session):
        session = await make_session()
        first = await session.send_blocking("first", timeout=self.turn_s)
        second = await session.send_blocking("second", timeout=self.turn_s)
        # The second turn's usage is that turn's own, not the session's running total.
        assert first.usage == self.turn_usage
        assert second.usage == self.turn_usage

    async def test_a_rate_limited_turn_raises_rate_limited_and_the_session_goes_on(
        self, make_session
    ):
        session = await make_session()
        await session.send_blocking("warm up", timeout=self.turn_s)
        before_ms = time.time() * 1000
        with pytest.raises(RateLimited) as err:
            await session.send_blocking("RATELIMIT now", timeout=self.turn_s)
        after_ms = time.time() * 1000
        assert err.value.code == "RATE_LIMITED"
        resets = err.value.resets_at_ms
        if self.rate_limit_resets_in_s is None:
            assert resets is None
        else:
            delay = self.rate_limit_resets_in_s * 1000
            assert resets is not None
            assert before_ms + delay - RESET_SLACK_MS <= resets <= after_ms + delay + RESET_SLACK_MS
        assert session.alive
        assert (await session.send_blocking("again", timeout=self.turn_s)).text == "echo: again"
