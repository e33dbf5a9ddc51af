"""ClaudeSession against the fake Claude Code CLI (tests/fakes/clis/claude.py), real processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import psutil
import pytest

from idea.application.session_ports import McpServerEntry, StructuredSpec
from idea.domain.errors import AgentFailed, IdeaTimeout, Invalid, LineTooLong, Unavailable
from idea.domain.profile import AdapterKind
from idea.domain.session_events import TextDelta, ToolResult, ToolUse, TurnFinished
from idea.domain.usage import Usage
from idea.infrastructure.clis.claude.session import start_claude_session
from idea.infrastructure.clis.stream_json import McpServerStatus
from tests.contracts.agent_session_contract import AgentSessionContract
from tests.fakes.clis import claude as fake_claude
from tests.paths import FAKE_CLIS
from tests.waiting import until

FAKE = FAKE_CLIS / "claude.py"
COMMAND = (sys.executable, str(FAKE))
BRIDGE_ARGS = ("-m", "idea", "mcp-server", "--endpoint", "idea-test", "--requester", "agent-a")


@dataclass
class World:
    project: Path
    run_dir: Path
    argv_log: Path
    spec: StructuredSpec

    def launches(self) -> list[dict]:
        if not self.argv_log.exists():
            return []
        return [json.loads(line) for line in self.argv_log.read_text("utf-8").splitlines()]


@pytest.fixture
def world(tmp_path: Path) -> World:
    project = tmp_path / "project"
    home = tmp_path / "home"
    run_dir = project / ".ideai" / "run" / "agent-a"
    for folder in (project, home, run_dir):
        folder.mkdir(parents=True)
    argv_log = tmp_path / "argv.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    env.update(HOME=str(home), FAKE_CLAUDE_ARGV_LOG=str(argv_log))
    spec = StructuredSpec(
        kind=AdapterKind.CLAUDE,
        program=(sys.executable,),
        cwd=str(project),
        run_dir=str(run_dir),
        env=env,
        context="You are agent A.",
        mcp=McpServerEntry(command=sys.executable, args=BRIDGE_ARGS, env={"IDEA_X": "1"}),
        tool_timeout_s=900,
    )
    return World(project, run_dir, argv_log, spec)


def _processes_in(folder: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if proc.status() != psutil.STATUS_ZOMBIE and Path(proc.cwd()) == folder:
                found.append(proc)
    return found


@pytest.fixture
async def launch(world: World):
    sessions = []

    async def launch(**changes):
        session = await start_claude_session(replace(world.spec, **changes), command=COMMAND)
        sessions.append(session)
        return session

    yield launch
    for session in sessions:
        await session.shutdown()
        assert session.pids() == []
    assert _processes_in(world.project) == []


def _kill(pid: int) -> None:
    proc = psutil.Process(pid)
    proc.kill()
    proc.wait(timeout=10)


class TestClaudeWithFake(AgentSessionContract):
    # The fake's TURN_USAGE and TURN_COST, its total_cost_usd growing by that much a turn.
    turn_usage = Usage(
        input_tokens=40,
        output_tokens=12,
        cache_read_tokens=6,
        cache_write_tokens=3,
        cost_usd=fake_claude.TURN_COST,
    )
    rate_limit_resets_in_s = fake_claude.RESETS_IN_S

    @pytest.fixture
    async def make_session(self, launch):
        async def make(resume=None):
            return await launch(resume_conversation_id=resume)

        return make


async def test_the_profiles_own_arguments_come_before_ideas_flags(world, launch):
    session = await launch(args=("--permission-mode", "acceptEdits"))
    await session.send_blocking("hi", timeout=30)
    [first] = world.launches()
    assert first["argv"][:3] == ["--permission-mode", "acceptEdits", "-p"]


async def test_argv_uses_exact_flags_in_flag_equals_value_form(world, launch):
    session = await launch()
    await session.send_blocking("hi", timeout=30)
    [first] = world.launches()
    assert first["cwd"] == str(world.project)
    assert first["argv"] == [
        "-p",
        "--input-format=stream-json",
        "--output-format=stream-json",
        "--verbose",
        f"--mcp-config={world.run_dir / 'mcp.json'}",
        "--strict-mcp-config",
        "--allowedTools=mcp__idea",
        "--append-system-prompt=You are agent A.",
        "--system-prompt-snapshot=off",
    ]
    conversation = session.conversation_id
    await session.shutdown()
    await launch(resume_conversation_id=conversation, model="opus", context="")
    second = world.launches()[1]["argv"]
    assert second[-3:] == [
        "--model=opus",
        "--system-prompt-snapshot=off",
        f"--resume={conversation}",
    ]
    assert not any(a.startswith("--append-system-prompt") for a in second)


async def test_mcp_file_in_run_dir_declares_idea_with_always_load(world, launch):
    session = await launch()
    config = json.loads((world.run_dir / "mcp.json").read_text("utf-8"))
    assert config == {
        "mcpServers": {
            "idea": {
                "type": "stdio",
                "command": sys.executable,
                "args": list(BRIDGE_ARGS),
                "env": {"IDEA_X": "1"},
                "alwaysLoad": True,
                "timeout": 900_000,
            }
        }
    }
    await session.send_blocking("hi", timeout=30)
    assert session.mcp_servers == (McpServerStatus("idea", "connected"),)


async def test_fake_reports_a_failed_server_when_the_command_is_missing(world, launch):
    missing = str(world.project / "no-such-idea")
    session = await launch(mcp=McpServerEntry(command=missing, args=()))
    await session.send_blocking("hi", timeout=30)
    assert session.mcp_servers == (McpServerStatus("idea", "failed"),)


async def test_without_mcp_no_file_and_no_mcp_flags(world, launch):
    session = await launch(mcp=None)
    assert (await session.send_blocking("hi", timeout=30)).text == "echo: hi"
    assert not (world.run_dir / "mcp.json").exists()
    argv = world.launches()[0]["argv"]
    assert not [a for a in argv if a.startswith(("--mcp-config", "--allowedTools", "--strict"))]


async def test_nothing_written_outside_run_dir_and_project_servers_ignored(world, launch):
    own = world.project / ".mcp.json"
    own.write_text('{"mcpServers": {"users-own": {"command": "python3"}}}', "utf-8")
    before = {p for p in world.project.rglob("*") if world.run_dir not in p.parents}
    session = await launch()
    await session.send_blocking("hi", timeout=30)
    await session.shutdown()
    after = {p for p in world.project.rglob("*") if world.run_dir not in p.parents}
    assert after == before
    assert own.read_text("utf-8") == '{"mcpServers": {"users-own": {"command": "python3"}}}'
    assert [s.name for s in session.mcp_servers] == ["idea"]


async def test_tool_events_and_final(launch):
    session = await launch()
    events = [e async for e in session.send("USE_TOOL now")]
    assert [type(e) for e in events] == [ToolUse, ToolResult, TextDelta, TurnFinished]
    assert events[0].name == "mcp__idea__ping"
    assert events[1] == ToolResult(events[0].tool_id, "pong", False)
    assert events[-1].conversation_id == session.conversation_id


async def test_updated_context_reaches_a_resumed_conversation(launch):
    session = await launch(context="first instructions")
    assert (await session.send_blocking("WHAT_CONTEXT", timeout=30)).text == (
        "context: first instructions"
    )
    conversation = session.conversation_id
    await session.shutdown()
    resumed = await launch(resume_conversation_id=conversation, context="edited instructions")
    assert (await resumed.send_blocking("WHAT_CONTEXT", timeout=30)).text == (
        "context: edited instructions"
    )
    assert resumed.conversation_id == conversation


async def test_cli_dying_mid_turn_fails_with_stderr_tail(launch):
    session = await launch()
    await session.send_blocking("warm up", timeout=30)
    with pytest.raises(AgentFailed) as err:
        await session.send_blocking("CRASH please", timeout=30)
    assert "exited with code 3" in err.value.message
    assert "simulated crash in the middle of a turn" in err.value.message
    assert not session.alive
    assert session.pids() == []
    with pytest.raises(Unavailable):
        await session.send_blocking("late", timeout=5)


async def test_cli_killed_mid_turn_fails_the_turn(launch):
    session = await launch()
    [pid] = session.pids()
    turn = asyncio.create_task(session.send_blocking("SLOW", timeout=30))
    await until(lambda: session.busy)
    _kill(pid)
    with pytest.raises(AgentFailed, match="during the turn"):
        await turn
    assert not session.alive


async def test_cli_dying_between_turns_is_resumed_at_next_send(world, launch):
    session = await launch()
    await session.send_blocking("one", timeout=30)
    conversation = session.conversation_id
    [pid] = session.pids()
    _kill(pid)
    await until(lambda: session.pids() == [])
    assert session.alive
    assert (await session.send_blocking("two", timeout=30)).text == "echo: two"
    assert session.conversation_id == conversation
    assert session.pids() and session.pids() != [pid]
    assert world.launches()[-1]["argv"][-1] == f"--resume={conversation}"


async def test_a_resumed_conversation_still_reports_each_turns_own_cost(launch):
    # The CLI carries its total_cost_usd over a resume; the turns' costs stay their own.
    session = await launch()
    await session.send_blocking("one", timeout=30)
    await session.shutdown()
    resumed = await launch(resume_conversation_id=session.conversation_id)
    after = await resumed.send_blocking("two", timeout=30)
    assert after.usage == TestClaudeWithFake.turn_usage
    [pid] = resumed.pids()
    _kill(pid)  # dies between turns: the next send resumes it in a new process
    await until(lambda: resumed.pids() == [])
    again = await resumed.send_blocking("three", timeout=30)
    assert again.usage == TestClaudeWithFake.turn_usage


@pytest.mark.slow
async def test_a_turn_that_ignores_interrupts_restarts_the_cli(world, launch):
    session = await launch()
    await session.send_blocking("warm up", timeout=30)
    conversation = session.conversation_id
    [pid] = session.pids()
    with pytest.raises(IdeaTimeout):
        await session.send_blocking("STUCK forever", timeout=0.5)
    assert session.alive
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert (await session.send_blocking("after", timeout=30)).text == "echo: after"
    assert session.conversation_id == conversation
    assert world.launches()[-1]["argv"][-1] == f"--resume={conversation}"


@pytest.mark.parametrize("prompt", ["SLOW", "STUCK"])  # STUCK: the CLI is killed after a grace
async def test_shutdown_mid_turn_leaves_no_process(launch, prompt):
    session = await launch()
    [pid] = session.pids()
    turn = asyncio.create_task(session.send_blocking(prompt, timeout=30))
    await until(lambda: session.busy)
    await session.shutdown()
    with pytest.raises(Unavailable):
        await turn
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


async def test_unknown_resume_id_fails_the_start(world, launch):
    unknown = "11111111-2222-4333-8444-555555555555"
    with pytest.raises(Unavailable, match=f"No conversation found with session ID: {unknown}"):
        await launch(resume_conversation_id=unknown)
    assert _processes_in(world.project) == []


async def test_missing_executable_is_unavailable(world):
    spec = replace(world.spec, program=(str(world.project / "no-claude"),))
    with pytest.raises(Unavailable, match="no-claude"):
        await start_claude_session(spec)


async def test_other_kind_is_invalid(world):
    with pytest.raises(Invalid):
        await start_claude_session(replace(world.spec, kind=AdapterKind.CODEX), command=COMMAND)


def _run_fake(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(cwd)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    return subprocess.run(
        [*COMMAND, *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env=env,
        timeout=30,
        check=False,
    )


STREAM = ("-p", "--input-format=stream-json", "--output-format=stream-json")


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (STREAM, "Error: When using --print, --output-format=stream-json requires --verbose"),
        ((*STREAM, "--verbose", "--bogus"), "error: unknown option '--bogus'"),
        ((*STREAM, "--verbose=yes"), "error: unknown option '--verbose=yes'"),
        (
            ("-p", "--input-format=stream-json", "--output-format=json"),
            "Error: --input-format=stream-json requires output-format=stream-json.",
        ),
    ],
)
def test_fake_refuses_bad_flags_like_the_real_cli(tmp_path, args, stderr):
    done = _run_fake(*args, cwd=tmp_path)
    assert (done.returncode, done.stderr.strip(), done.stdout) == (1, stderr, "")


def test_fake_variadic_mcp_config_swallows_a_prompt(tmp_path):
    config = tmp_path / "m.json"
    config.write_text('{"mcpServers": {}}', "utf-8")
    done = _run_fake(*STREAM, "--verbose", "--mcp-config", str(config), "hi", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"Error: Invalid MCP configuration:\nMCP config file not found: {tmp_path / 'hi'}"
    )


def test_fake_unknown_resume_prints_error_result_and_exits_1(tmp_path):
    unknown = "11111111-2222-4333-8444-555555555555"
    done = _run_fake(*STREAM, "--verbose", f"--resume={unknown}", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == f"No conversation found with session ID: {unknown}"
    [result] = [json.loads(line) for line in done.stdout.splitlines()]
    assert result["type"] == "result" and result["is_error"] is True
    assert result["errors"] == [f"No conversation found with session ID: {unknown}"]


def test_fake_exits_at_stdin_eof_with_the_last_turn_status(tmp_path):
    def user(text: str) -> str:
        return json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n"

    ok = _run_fake(*STREAM, "--verbose", cwd=tmp_path, stdin=user("hi"))
    failed = _run_fake(*STREAM, "--verbose", cwd=tmp_path, stdin=user("hi") + user("FAIL"))
    assert (ok.returncode, failed.returncode) == (0, 1)
    assert [json.loads(x)["type"] for x in ok.stdout.splitlines()] == [
        "system",
        "assistant",
        "result",
    ]


# --- huge output (DESIGN.md §18) ---------------------------------------------------------------


def _kept_file(answer: str) -> Path:
    last = answer.rsplit("\n", 1)[1]
    assert last.startswith("[reply cut: ") and last.endswith("]"), last
    return Path(last.removesuffix("]").rsplit(" ", 1)[1])


@pytest.mark.timeout(120)
async def test_a_100_mb_line_fails_its_turn_with_line_too_long_and_the_next_turn_works(
    world, launch
):
    session = await launch()
    with pytest.raises(LineTooLong) as failed:
        await session.send_blocking("HUGE_LINE 100", timeout=90)
    assert failed.value.code == "LINE_TOO_LONG"
    assert "8.0 MiB" in failed.value.message  # the limit it names
    answer = await session.send_blocking("and now?", timeout=90)
    assert answer.text == "echo: and now?"
    assert session.alive


@pytest.mark.timeout(120)
async def test_a_5_mb_reply_is_cut_at_1_mib_and_kept_whole_in_the_replies_folder(world, launch):
    replies = world.project / ".ideai" / "run" / "replies.d"
    session = await launch(replies_dir=str(replies))
    shown: list[str] = []
    session.subscribe(lambda e: shown.append(e.text) if isinstance(e, TextDelta) else None)
    final = await session.send_blocking("HUGE_REPLY 5", timeout=90)
    head = final.text.rsplit("\n", 1)[0]
    assert len(head.encode()) <= 1024 * 1024
    assert final.text.endswith(f"{replies}/{_kept_file(final.text).name}]")
    assert "[reply cut: 3.8 MiB more not shown; the whole reply is in " in final.text
    kept = _kept_file(final.text)
    assert kept.read_text(encoding="utf-8") == fake_claude.huge_text(5 * 10**6)
    assert sum(len(t.encode()) for t in shown[:-1]) == 1024 * 1024  # what the chat was given
    assert (await session.send_blocking("next", timeout=30)).text == "echo: next"


async def _busy_then(session, prompt: str, steps: int) -> asyncio.Task:
    """The turn of ``prompt``, once it is busy and the loop has run ``steps`` more steps."""
    turn = asyncio.create_task(session.send_blocking(prompt, timeout=20))
    while not session.busy:
        await asyncio.sleep(0)
    for _ in range(steps):
        await asyncio.sleep(0)
    return turn


@pytest.mark.timeout(120)
@pytest.mark.parametrize("respawn", [False, True], ids=["running", "died-between-turns"])
async def test_an_interrupt_at_any_step_of_a_turns_start_ends_the_turn(launch, respawn):
    """On a loaded machine an interrupt can land before the prompt reaches the CLI (or before
    the CLI that died between turns is started again): the turn still ends, interrupted."""
    session = await launch()
    seen: list[TurnFinished] = []
    session.subscribe(lambda e: isinstance(e, TurnFinished) and seen.append(e))
    for steps in range(12):
        if respawn:
            [pid] = session.pids()
            _kill(pid)
            await until(lambda: session.pids() == [])
        turn = await _busy_then(session, "SLOW work", steps)
        await session.interrupt()
        with pytest.raises(AgentFailed):
            await turn
        assert [(f.is_error, f.interrupted) for f in seen] == [(True, True)], f"{steps} steps"
        seen.clear()
    assert (await session.send_blocking("after", timeout=30)).text == "echo: after"
