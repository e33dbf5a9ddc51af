"""OpenCodeSession on the fake CLI (tests/fakes/clis/opencode.py), real processes: the session
contract, and an interrupt or a shutdown at every step of a turn's start.

A turn's start spans several turns of the event loop: the session is busy before its process is
spawned, and spawning it yields to the loop. On a loaded machine a caller that waits for
``busy`` and interrupts lands anywhere in that span; here each step of it is hit in turn, by
yielding to the loop a counted number of times after the turn became busy (no timing involved).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import uuid
from pathlib import Path

import psutil
import pytest

from idea.application.session_ports import StructuredSpec
from idea.domain.errors import AgentFailed, Unavailable
from idea.domain.profile import AdapterKind
from idea.domain.session_events import TurnFinished
from idea.domain.usage import Usage
from idea.infrastructure.clis.opencode.session import OpenCodeSession, start_opencode_session
from tests.contracts.agent_session_contract import AgentSessionContract
from tests.fakes.clis import opencode as fake_opencode
from tests.paths import FAKE_CLIS
from tests.waiting import until

PROGRAM = (sys.executable, str(FAKE_CLIS / "opencode.py"))
MARKER_VAR = "FAKE_OPENCODE_MARKER"
# Past this many loop steps after ``busy`` the start is long over; the sweep stops well before.
MAX_STEPS = 200


class Sessions:
    """Starts sessions on the fake; ``close`` shuts them down and checks no process is left."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.marker = uuid.uuid4().hex
        self.sessions: list[OpenCodeSession] = []

    @property
    def log(self) -> Path:
        return self.root / "fake-opencode.log"

    def entries(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text("utf-8").splitlines()]

    def spec(self, resume: str | None = None, **env: str) -> StructuredSpec:
        project = self.root / "project"
        run_dir = project / ".ideai" / "run" / "agent-a"
        run_dir.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, MARKER_VAR: self.marker, "FAKE_OPENCODE_LOG": str(self.log), **env}
        return StructuredSpec(
            kind=AdapterKind.OPENCODE,
            program=PROGRAM,
            cwd=str(project),
            run_dir=str(run_dir),
            env=env,
            context="You are agent-a.",
            resume_conversation_id=resume,
        )

    async def start(self, resume: str | None = None, **env: str) -> OpenCodeSession:
        session = await start_opencode_session(self.spec(resume, **env))
        self.sessions.append(session)
        return session

    def running(self) -> list[int]:
        """The pids of live processes carrying this world's marker."""
        found = []
        for proc in psutil.process_iter():
            with contextlib.suppress(psutil.Error):
                if proc.status() == psutil.STATUS_ZOMBIE or proc.pid == os.getpid():
                    continue
                if proc.environ().get(MARKER_VAR) == self.marker:
                    found.append(proc.pid)
        return found

    async def close(self) -> None:
        for session in self.sessions:
            await session.shutdown()
            assert session.pids() == []
        left = self.running()
        for pid in left:  # a failed check must not leave the machine littered
            with contextlib.suppress(psutil.Error):
                psutil.Process(pid).kill()
        assert left == [], "processes of the fake survive"


@pytest.fixture
async def sessions(tmp_path: Path):
    world = Sessions(tmp_path)
    try:
        yield world
    finally:
        await world.close()


class TestOpenCodeSessionContract(AgentSessionContract):
    turn_usage = Usage(input_tokens=42, output_tokens=9, cache_read_tokens=8, cost_usd=0.0)
    rate_limit_resets_in_s = fake_opencode.RESETS_IN_S

    @pytest.fixture
    async def make_session(self, sessions):
        return sessions.start


async def _steps(count: int) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def _busy_then(session: OpenCodeSession, prompt: str, steps: int) -> asyncio.Task:
    """The turn of ``prompt``, once it is busy and the loop has run ``steps`` more steps."""
    turn = asyncio.create_task(session.send_blocking(prompt, timeout=30))
    while not session.busy:
        await asyncio.sleep(0)
    await _steps(steps)
    return turn


async def test_an_interrupt_at_any_step_of_the_start_ends_the_turn_as_interrupted(sessions):
    # The sweep goes on until the interrupt has met a running process twice: every step from
    # the first (before the CLI is spawned) to the end of the start has been hit.
    session = await sessions.start()
    seen: list[TurnFinished] = []
    session.subscribe(lambda e: isinstance(e, TurnFinished) and seen.append(e))
    met_a_process = []
    for steps in range(MAX_STEPS):
        turn = await _busy_then(session, "SLOW work", steps)
        met_a_process.append(bool(session.pids()))
        await session.interrupt()
        with pytest.raises(AgentFailed) as err:
            await turn
        assert "interrupted" in err.value.message, f"after {steps} steps: {err.value.message}"
        assert [(f.is_error, f.interrupted) for f in seen] == [(True, True)], f"{steps} steps"
        seen.clear()
        assert session.pids() == [] and sessions.running() == [], f"after {steps} steps"
        if met_a_process[-2:] == [True, True]:
            break
    assert met_a_process[0] is False  # the first interrupt came before any process ran
    assert met_a_process[-2:] == [True, True]
    assert (await session.send_blocking("after", timeout=30)).text == "echo: after"


async def test_a_shutdown_at_any_step_of_the_start_leaves_no_process(sessions):
    met_a_process = []
    for steps in range(MAX_STEPS):
        session = await sessions.start()
        turn = await _busy_then(session, "SLOW work", steps)
        met_a_process.append(bool(session.pids()))
        await session.shutdown()
        with pytest.raises(Unavailable):
            await turn
        assert session.pids() == [] and sessions.running() == [], f"after {steps} steps"
        if met_a_process[-2:] == [True, True]:
            break
    assert met_a_process[0] is False
    assert met_a_process[-2:] == [True, True]


async def test_an_interrupt_while_the_prompt_is_written_ends_the_turn_as_interrupted(
    sessions, tmp_path
):
    # The fake reads nothing until the gate opens: a prompt longer than the pipe holds keeps
    # the adapter writing when the interrupt kills the process.
    gate = tmp_path / "gate"
    session = await sessions.start(FAKE_OPENCODE_GATE=str(gate))
    seen: list[TurnFinished] = []
    session.subscribe(lambda e: isinstance(e, TurnFinished) and seen.append(e))
    turn = asyncio.create_task(session.send_blocking("SLOW " + "x" * (1 << 20), timeout=30))
    await until(lambda: session.pids() and any("waiting" in e for e in sessions.entries()))
    await session.interrupt()
    with pytest.raises(AgentFailed) as err:
        await turn
    assert "interrupted" in err.value.message
    assert [(f.is_error, f.interrupted) for f in seen] == [(True, True)]
    gate.touch()
    assert (await session.send_blocking("after", timeout=30)).text == "echo: after"
