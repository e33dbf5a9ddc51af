"""The Codex adapter against ``tests/fakes/clis/codex.py``, a stdlib ``codex app-server``."""

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

from idea.application.ask_deadline import DEFAULT_TURN_TIMEOUT_S
from idea.application.session_ports import McpServerEntry, StructuredSpec
from idea.domain.errors import AgentFailed, Unavailable
from idea.domain.profile import AdapterKind
from idea.domain.session_events import TextDelta, ToolResult, ToolUse, TurnFinished
from idea.domain.usage import Usage
from idea.infrastructure.clis.codex.session import start_codex_session
from idea.infrastructure.processes.tree import ProcessRecord, is_alive
from tests.contracts.agent_session_contract import AgentSessionContract
from tests.fakes.clis import codex as fake_codex
from tests.paths import FAKE_CLIS, REAL_CLI

FAKE_CODEX = FAKE_CLIS / "codex.py"
TINY_MCP_SERVER = REAL_CLI / "tiny_mcp_server.py"
CONTEXT = "You are alice, a careful reviewer."
# The fake's TURN_TOKENS as IdeA reads them: the input without its cached part.
TURN_USAGE = Usage(input_tokens=100, output_tokens=30, cache_read_tokens=20)


class Harness:
    """Starts sessions on the fake; remembers every process they ran to check none survives."""

    def __init__(self, root: Path) -> None:
        self.project = root / "project"
        self.run_dir = self.project / ".ideai" / "run" / "alice"
        self.codex_home = root / "codex-home"
        self.log = root / "fake-codex.jsonl"
        self.run_dir.mkdir(parents=True)
        self.sessions = []
        self.records: list[ProcessRecord] = []

    def spec(self, resume=None, mcp=None, program=("/nowhere/codex",), args=()) -> StructuredSpec:
        env = {**os.environ, "CODEX_HOME": str(self.codex_home), "FAKE_CODEX_LOG": str(self.log)}
        return StructuredSpec(
            kind=AdapterKind.CODEX,
            program=program,
            cwd=str(self.project),
            run_dir=str(self.run_dir),
            env=env,
            context=CONTEXT,
            mcp=mcp,
            resume_conversation_id=resume,
            args=tuple(args),
        )

    async def start(self, resume=None, mcp=None, args=()):
        session = await start_codex_session(
            self.spec(resume, mcp, args=args), program=[sys.executable, str(FAKE_CODEX)]
        )
        self.sessions.append(session)
        self.remember(session)
        return session

    def remember(self, session) -> None:
        for pid in session.pids():
            self.records.append(ProcessRecord.of(pid))

    def logged(self, key: str) -> list[dict]:
        entries = [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]
        return [entry for entry in entries if key in entry]

    async def close(self) -> None:
        for session in self.sessions:
            await session.shutdown()
            assert session.pids() == []
        alive = [record.pid for record in self.records if is_alive(record)]
        assert alive == [], f"processes left behind: {alive}"


@pytest.fixture
async def harness(tmp_path):
    h = Harness(tmp_path)
    yield h
    await h.close()


@pytest.fixture
async def make_session(harness):
    async def make(resume=None):
        return await harness.start(resume)

    return make


def bridge() -> McpServerEntry:
    """A real stdio MCP server standing in for IdeA's bridge (one tool: ping → pong)."""
    return McpServerEntry(sys.executable, (str(TINY_MCP_SERVER),), {"IDEA_TEST": "1"})


class TestCodexWithFake(AgentSessionContract):
    turn_usage = TURN_USAGE
    rate_limit_resets_in_s = fake_codex.RESETS_IN_S


async def test_context_and_bridge_are_injected_in_thread_start(harness):
    session = await harness.start(mcp=bridge())
    (start,) = harness.logged("method")
    assert start["method"] == "thread/start"
    params = start["params"]
    assert params["developerInstructions"] == CONTEXT
    assert params["approvalPolicy"] == "never"
    assert params["cwd"] == str(harness.project)
    server = params["config"]["mcp_servers"]["idea"]
    assert server["command"] == sys.executable
    assert server["args"] == [str(TINY_MCP_SERVER)]
    assert server["env"] == {"IDEA_TEST": "1"}
    assert server["default_tools_approval_mode"] == "approve"
    assert server["tool_timeout_sec"] > DEFAULT_TURN_TIMEOUT_S
    (launch,) = harness.logged("argv")
    assert launch["argv"] == ["app-server", "--listen=stdio://"]
    assert launch["overrides"] == {}  # nothing on the command line (openai/codex#39537)
    assert session.conversation_id


async def test_the_profiles_own_arguments_reach_the_app_server(harness):
    await harness.start(args=("-c", "model_reasoning_effort='low'"))
    (launch,) = harness.logged("argv")
    assert launch["argv"] == [
        "app-server",
        "-c",
        "model_reasoning_effort='low'",
        "--listen=stdio://",
    ]
    assert launch["overrides"] == {"model_reasoning_effort": "low"}


async def test_mcp_tool_call_events(harness):
    session = await harness.start(mcp=bridge())
    assert len(session.pids()) >= 2  # the app-server and the bridge it spawned
    events = [event async for event in session.send("CALL ping {}")]
    (use,) = [e for e in events if isinstance(e, ToolUse)]
    (result,) = [e for e in events if isinstance(e, ToolResult)]
    assert use.name == "mcp__idea__ping"
    assert result == ToolResult(use.tool_id, "pong", False)
    assert events.index(use) < events.index(result)
    assert events[-1] == TurnFinished(
        "pong", conversation_id=session.conversation_id, usage=TURN_USAGE
    )


async def test_resume_reinjects_context_and_bridge(harness):
    first = await harness.start(mcp=bridge())
    await first.send_blocking("remember", timeout=30)
    await first.shutdown()
    resumed = await harness.start(resume=first.conversation_id, mcp=bridge())
    assert resumed.conversation_id == first.conversation_id
    assert (await resumed.send_blocking("CALL ping {}", timeout=30)).text == "pong"
    resume = harness.logged("method")[-1]
    assert resume["method"] == "thread/resume"
    assert resume["params"]["threadId"] == first.conversation_id
    assert resume["params"]["developerInstructions"] == CONTEXT
    assert resume["params"]["config"]["mcp_servers"]["idea"]["required"] is True


async def test_unknown_conversation_cannot_be_resumed(harness):
    with pytest.raises(Unavailable) as err:
        await harness.start(resume="01a2288a-4428-7000-8000-000000000000")
    assert "no rollout found" in err.value.message


async def test_windows_paths_reach_codex_unchanged(harness):
    command = r"C:\tools\new\idea.exe"
    key = r"C:\Users\me\proj\.ideai\run\mcp.key"
    # Codex cannot spawn that bridge here; as the server is required, the launch fails loudly.
    with pytest.raises(Unavailable) as err:
        await harness.start(mcp=McpServerEntry(command, ("mcp-server", "--key-file", key)))
    assert "MCP client for `idea` failed to start" in err.value.message
    server = harness.logged("method")[-1]["params"]["config"]["mcp_servers"]["idea"]
    assert server["command"] == command
    assert server["args"] == ["mcp-server", "--key-file", key]


async def test_nothing_is_written_in_the_project(harness):
    (harness.project / "README.md").write_text("mine\n", encoding="utf-8")
    before = sorted(p for p in harness.project.rglob("*"))
    session = await harness.start(mcp=bridge())
    await session.send_blocking("hello", timeout=30)
    await session.shutdown()
    assert sorted(p for p in harness.project.rglob("*")) == before
    assert (harness.project / "README.md").read_text(encoding="utf-8") == "mine\n"


async def test_death_mid_turn_fails_the_turn_and_the_next_turn_resumes(harness):
    session = await harness.start()
    await session.send_blocking("hello", timeout=30)
    conversation = session.conversation_id
    with pytest.raises(AgentFailed) as err:
        await session.send_blocking("DIE now", timeout=30)
    assert "code 3" in err.value.message
    assert "fake codex: fatal: simulated crash" in err.value.message  # the stderr tail
    assert session.alive
    assert (await session.send_blocking("again", timeout=30)).text == "echo: again"
    harness.remember(session)
    assert session.conversation_id == conversation
    assert harness.logged("method")[-1]["method"] == "thread/resume"


async def test_server_requests_are_answered(harness):
    session = await harness.start()
    assert (await session.send_blocking("APPROVE this", timeout=30)).text == "approval: decline"


async def test_error_notification_does_not_end_the_turn(harness):
    session = await harness.start()
    events = [event async for event in session.send("FLAKY network")]
    assert events[-1].text == "echo: FLAKY network"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "echo: FLAKY network"


async def test_usage_per_turn_from_cumulative_totals(harness):
    session = await harness.start()
    first = await session.send_blocking("one", timeout=30)
    second = await session.send_blocking("two", timeout=30)
    assert session.thread_usage["inputTokens"] == 2 * fake_codex.TURN_TOKENS["inputTokens"]
    assert first.usage == second.usage == TURN_USAGE
    assert session.turn_usage == TURN_USAGE


async def test_a_resumed_thread_counts_each_turn_from_the_totals_it_restores(harness):
    first = await harness.start()
    await first.send_blocking("one", timeout=30)
    await first.shutdown()
    resumed = await harness.start(resume=first.conversation_id)
    # Sent at once, racing the restored totals that follow thread/resume.
    assert (await resumed.send_blocking("two", timeout=30)).usage == TURN_USAGE
    assert resumed.thread_usage["inputTokens"] == 2 * fake_codex.TURN_TOKENS["inputTokens"]


async def test_a_usage_limit_resets_when_codex_says_its_window_does(harness):
    session = await harness.start()
    before_ms = time.time() * 1000
    events = [event async for event in session.send("RATELIMIT please")]
    final = events[-1]
    assert isinstance(final, TurnFinished) and final.is_error
    assert final.rate_limit is not None
    assert final.rate_limit.reason == fake_codex.USAGE_LIMIT_MESSAGE
    expected = before_ms + fake_codex.RESETS_IN_S * 1000
    assert expected - 2000 <= final.rate_limit.resets_at_ms <= expected + 2000
    assert final.usage is None  # Codex reports no usage for a refused turn


async def test_shutdown_during_a_turn_leaves_no_process(harness):
    session = await harness.start(mcp=bridge())
    turn = session.send("SLOW forever")
    assert await asyncio.wait_for(anext(turn), 10) == TextDelta("working")
    await session.shutdown()
    with pytest.raises(Unavailable):
        await asyncio.wait_for(anext(turn), 10)
    assert session.pids() == []
