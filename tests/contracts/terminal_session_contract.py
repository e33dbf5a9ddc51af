"""The behaviour every ``TerminalSession`` must have, run against the fake and each real adapter.

A test module subclasses ``TerminalSessionContract`` and provides two fixtures: ``launcher`` (a
``TerminalLauncher``) and ``programs`` (a ``TerminalPrograms``: specs of small programs with the
behaviour named below, written for that launcher). The contract's ``start`` fixture stops every
session it started. Waits are on the output itself (a unique sentinel), always bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol

import pytest

from idea.application.session_ports import TerminalSession, TerminalSpec
from idea.domain.errors import Invalid, Unavailable

WAIT_S = 15.0


class TerminalPrograms(Protocol):
    def echo_line(self) -> TerminalSpec:
        """Reads one line L, prints ``got:L``, exits 0."""
        ...

    def exit_with(self, code: int) -> TerminalSpec:
        """Exits at once with ``code``."""
        ...

    def long_running(self, ready: str) -> TerminalSpec:
        """Prints ``ready``, then runs until killed."""
        ...

    def missing(self, name: str) -> TerminalSpec:
        """A program called ``name`` that does not exist."""
        ...


def sentinel() -> str:
    return f"s-{uuid.uuid4().hex}"


class Output:
    """Collects a session's output; ``wait_for`` waits (bounded) until a text shows up."""

    def __init__(self, session: TerminalSession) -> None:
        self.chunks: list[str] = []
        self._changed = asyncio.Event()
        self.unsubscribe = session.subscribe(self._on_chunk)

    def _on_chunk(self, chunk: str) -> None:
        self.chunks.append(chunk)
        self._changed.set()

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    async def wait_for(self, needle: str, timeout: float = WAIT_S) -> None:
        try:
            async with asyncio.timeout(timeout):
                while needle not in self.text:
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(
                f"{needle!r} not seen within {timeout}s; got {self.text!r}"
            ) from None


async def wait_exit(session: TerminalSession, timeout: float = WAIT_S) -> int:
    async with asyncio.timeout(timeout):
        return await session.wait()


@contextlib.asynccontextmanager
async def terminal_starter(launcher) -> AsyncIterator[Callable[[TerminalSpec], Awaitable]]:
    """``start(spec)`` for a test; every session it started is stopped (bounded) at the end."""
    sessions: list[TerminalSession] = []

    async def start(spec: TerminalSpec) -> TerminalSession:
        session = await launcher.start(spec)
        sessions.append(session)
        return session

    try:
        yield start
    finally:
        for session in sessions:
            async with asyncio.timeout(WAIT_S):
                await session.stop()


class TerminalSessionContract:
    @pytest.fixture
    async def start(self, launcher):
        async with terminal_starter(launcher) as start:
            yield start

    async def test_a_line_written_is_read_by_the_program(self, start, programs):
        session = await start(programs.echo_line())
        out = Output(session)
        token = sentinel()
        session.write(f"{token}\n")
        await out.wait_for(f"got:{token}")
        assert await wait_exit(session) == 0
        assert session.exit_code == 0
        assert session.pid > 0

    async def test_unicode_goes_both_ways_intact(self, start, programs):
        session = await start(programs.echo_line())
        out = Output(session)
        line = f"héllo ✓ 中文 🙂 {sentinel()}"
        session.write(line + "\n")
        await out.wait_for(f"got:{line}")
        await wait_exit(session)
        assert "\ufffd" not in out.text

    @pytest.mark.parametrize("code", [0, 3, 42])
    async def test_exit_code_is_reported(self, start, programs, code):
        session = await start(programs.exit_with(code))
        assert await wait_exit(session) == code
        assert session.exit_code == code

    async def test_on_exit_fires_once_even_when_registered_late(self, start, programs):
        session = await start(programs.exit_with(7))
        early: list[int] = []
        dropped: list[int] = []
        session.on_exit(early.append)
        session.on_exit(dropped.append)()  # unsubscribed at once
        await wait_exit(session)
        await asyncio.sleep(0)  # let any (wrong) second notification through
        late: list[int] = []
        session.on_exit(late.append)
        assert early == [7]
        assert dropped == []
        assert late == [7]

    async def test_write_after_exit_is_unavailable(self, start, programs):
        session = await start(programs.exit_with(0))
        await wait_exit(session)
        with pytest.raises(Unavailable) as err:
            session.write("late\n")
        assert err.value.code == "UNAVAILABLE"

    async def test_resize_checks_sizes_and_is_a_no_op_after_exit(self, start, programs):
        session = await start(programs.long_running(sentinel()))
        session.resize(40, 120)
        for rows, cols in [(0, 80), (24, 0), (-1, -1)]:
            with pytest.raises(Invalid):
                session.resize(rows, cols)
        await session.stop()
        session.resize(10, 10)

    async def test_stop_is_idempotent_and_ends_the_session(self, start, programs):
        ready = sentinel()
        session = await start(programs.long_running(ready))
        out = Output(session)
        exits: list[int] = []
        session.on_exit(exits.append)
        await out.wait_for(ready)
        assert session.exit_code is None
        async with asyncio.timeout(WAIT_S):
            await asyncio.gather(session.stop(), session.stop())
            await session.stop()
        assert session.exit_code is not None
        assert await wait_exit(session) == session.exit_code
        assert exits == [session.exit_code]
        with pytest.raises(Unavailable):
            session.write("x\n")

    async def test_stop_after_a_natural_exit_keeps_its_code(self, start, programs):
        session = await start(programs.exit_with(5))
        await wait_exit(session)
        await session.stop()
        assert session.exit_code == 5

    async def test_a_failing_listener_breaks_nothing(self, start, programs):
        session = await start(programs.echo_line())

        def explode(_: object) -> None:
            raise RuntimeError("listener bug")

        session.subscribe(explode)
        out = Output(session)
        session.on_exit(explode)
        exits: list[int] = []
        session.on_exit(exits.append)
        token = sentinel()
        session.write(f"{token}\n")
        await out.wait_for(f"got:{token}")
        assert await wait_exit(session) == 0
        assert exits == [0]

    async def test_unsubscribed_listener_gets_nothing_more(self, start, programs):
        session = await start(programs.echo_line())
        out = Output(session)
        gone = Output(session)
        gone.unsubscribe()
        token = sentinel()
        session.write(f"{token}\n")
        await out.wait_for(f"got:{token}")
        await wait_exit(session)
        assert gone.chunks == []

    async def test_scrollback_replays_the_output(self, start, programs):
        session = await start(programs.echo_line())
        token = sentinel()
        session.write(f"{token}\n")
        await wait_exit(session)
        assert f"got:{token}" in session.scrollback()

    async def test_a_missing_program_is_unavailable(self, launcher, programs):
        name = f"idea-no-such-program-{uuid.uuid4().hex[:8]}"
        with pytest.raises(Unavailable) as err:
            await launcher.start(programs.missing(name))
        assert err.value.code == "UNAVAILABLE"
        assert name in err.value.message
