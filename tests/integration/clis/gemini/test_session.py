"""GeminiSession on the fake CLI: the session contract, what lands where, exit codes, cleanup."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import psutil
import pytest

from idea.application.session_ports import McpServerEntry, StructuredSpec
from idea.domain.errors import AgentFailed, IdeaTimeout, Invalid, Unavailable
from idea.domain.profile import AdapterKind
from idea.domain.session_events import TextDelta, ToolResult, ToolUse, TurnFinished
from idea.domain.usage import Usage
from idea.infrastructure.clis.gemini import session as gemini_session
from idea.infrastructure.clis.gemini.session import start_gemini_session
from tests.contracts.agent_session_contract import AgentSessionContract
from tests.fakes.clis import gemini as fake_gemini
from tests.paths import FAKE_CLIS
from tests.waiting import until

FAKE = FAKE_CLIS / "gemini.py"
PROGRAM = (sys.executable, str(FAKE))
MCP = McpServerEntry(
    command="/opt/idea/idea",
    args=("mcp-server", "--endpoint", "/tmp/idea.sock", "--requester", "agent-a"),
    env={"IDEA_TRACE": "1"},
)
SESSION = "9a1824f0-f050-407c-ad8d-4ad2a360d787"
# The fake's STATS as IdeA reads them: the input without its cached part.
TURN_USAGE = Usage(input_tokens=42, output_tokens=9, cache_read_tokens=8)
AUTH = {"security": {"auth": {"selectedType": "gemini-api-key"}}}


@dataclass
class World:
    home: Path
    project: Path
    log: Path

    @property
    def run_dir(self) -> Path:
        return self.project / ".ideai" / "run" / "agent-a"

    def spec(self, resume: str | None = None, **changes) -> StructuredSpec:
        env = {**os.environ, "HOME": str(self.home), "FAKE_GEMINI_LOG": str(self.log)}
        env.pop("GEMINI_CLI_HOME", None)
        env.pop("GEMINI_CLI_TRUST_WORKSPACE", None)
        fields = {
            "kind": AdapterKind.GEMINI,
            "program": (sys.executable,),
            "cwd": str(self.project),
            "run_dir": str(self.run_dir),
            "env": env,
            "context": "You are agent-a. Answer briefly.",
            "mcp": MCP,
            "resume_conversation_id": resume,
            "tool_timeout_s": 600.0,
        }
        return StructuredSpec(**{**fields, **changes})

    def runs(self) -> list[dict]:
        if not self.log.exists():
            return []
        lines = self.log.read_text(encoding="utf-8").splitlines()
        return [entry for entry in map(json.loads, lines) if "argv" in entry]

    def pids(self) -> list[int]:
        if not self.log.exists():
            return []
        lines = self.log.read_text(encoding="utf-8").splitlines()
        return [e.get("pid") or e["child"] for e in map(json.loads, lines)]


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def world(tmp_path: Path) -> World:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(AUTH), encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("the user's project\n", encoding="utf-8")
    return World(home=home, project=project, log=tmp_path / "fake-gemini.log")


@pytest.fixture
async def start(world: World):
    """Starts sessions on the fake; at teardown shuts them down and checks no process is left."""
    sessions = []

    async def start_session(spec: StructuredSpec, program=PROGRAM):
        session = await start_gemini_session(spec, program=program)
        sessions.append(session)
        return session

    yield start_session
    for session in sessions:
        await session.shutdown()
        assert session.pids() == []
    assert [pid for pid in world.pids() if not gone(pid)] == []


@pytest.fixture
async def make_session(world: World, start):
    async def make(resume: str | None = None):
        return await start(world.spec(resume=resume))

    return make


class TestGeminiWithFake(AgentSessionContract):
    turn_usage = TURN_USAGE
    rate_limit_resets_in_s = fake_gemini.RESETS_IN_S


async def test_settings_and_context_land_in_the_run_dir_only(world: World, start):
    before = tree(world.project)
    session = await start(world.spec(model="gemini-2.5-flash"))
    assert (await session.send_blocking("first", timeout=30)).text == "echo: first"
    assert (await session.send_blocking("second", timeout=30)).text == "echo: second"

    outside = {k: v for k, v in tree(world.project).items() if not k.startswith(".ideai")}
    assert outside == before
    assert not (world.project / ".gemini").exists()
    assert not (world.project / "GEMINI.md").exists()

    settings = json.loads((world.run_dir / ".gemini" / "settings.json").read_text("utf-8"))
    assert settings["mcpServers"] == {
        "idea": {
            "command": "/opt/idea/idea",
            "args": ["mcp-server", "--endpoint", "/tmp/idea.sock", "--requester", "agent-a"],
            "env": {"IDEA_TRACE": "1"},
            "trust": True,
            "timeout": 660_000,
        }
    }
    assert settings["context"]["includeDirectories"] == [str(world.project)]
    context = (world.run_dir / "GEMINI.md").read_text("utf-8")
    assert "You are agent-a. Answer briefly." in context
    assert str(world.project) in context

    first, second = world.runs()
    for run in (first, second):
        assert run["cwd"] == str(world.run_dir)
        assert run["idea_server"] == settings["mcpServers"]["idea"]
        assert run["include_directories"] == [str(world.project)]
        assert run["context_files"] == {str(world.run_dir / "GEMINI.md"): context}
        assert "--output-format=stream-json" in run["argv"]
        assert "--model=gemini-2.5-flash" in run["argv"]
    assert first["argv"][0] == "--prompt=first"
    assert f"--session-id={session.conversation_id}" in first["argv"]
    assert f"--resume={session.conversation_id}" in second["argv"]
    assert second["history"] == [
        {"role": "user", "content": "first"},
        {"role": "model", "content": "echo: first"},
    ]


async def test_the_projects_own_settings_are_merged_never_written(world: World, start):
    own = world.project / ".gemini" / "settings.json"
    own.parent.mkdir()
    own.write_text(
        "{\n  // the user's servers\n"
        '  "mcpServers": {"mine": {"command": "/usr/bin/mine", "args": ["--url=http://x"]},\n'
        '                 "idea": {"command": "/somewhere/else"}},\n'
        "  /* their context */\n"
        '  "context": {"fileName": "AGENTS.md", "includeDirectories": ["docs"]},\n'
        '  "ui": {"theme": "GitHub"}\n}\n',
        encoding="utf-8",
    )
    (world.project / "AGENTS.md").write_text("project rules\n", encoding="utf-8")
    before = tree(world.project)

    session = await start(world.spec())
    assert (await session.send_blocking("hello", timeout=30)).text == "echo: hello"

    assert {k: v for k, v in tree(world.project).items() if not k.startswith(".ideai")} == before
    settings = json.loads((world.run_dir / ".gemini" / "settings.json").read_text("utf-8"))
    assert settings["mcpServers"]["mine"] == {
        "command": "/usr/bin/mine",
        "args": ["--url=http://x"],
    }
    assert settings["mcpServers"]["idea"]["command"] == MCP.command
    assert settings["ui"] == {"theme": "GitHub"}
    assert settings["context"] == {
        "fileName": ["AGENTS.md", "GEMINI.md"],
        "includeDirectories": [str(world.project / "docs"), str(world.project)],
    }
    (run,) = world.runs()
    assert run["mcp_servers"] == ["idea", "mine"]
    assert set(run["context_files"]) == {
        str(world.run_dir / "GEMINI.md"),
        str(world.project / "AGENTS.md"),
    }


async def test_the_profiles_own_arguments_reach_every_turn(world: World, start):
    session = await start(world.spec(args=("--approval-mode=auto_edit",)))
    await session.send_blocking("first", timeout=30)
    await session.send_blocking("second", timeout=30)
    runs = world.runs()
    assert len(runs) == 2
    assert all(run["argv"][0] == "--approval-mode=auto_edit" for run in runs)


async def test_no_mcp_declares_no_server(world: World, start):
    session = await start(world.spec(mcp=None, context=""))
    assert (await session.send_blocking("hi", timeout=30)).text == "echo: hi"
    (run,) = world.runs()
    assert run["idea_server"] is None
    assert run["include_directories"] == [str(world.project)]


async def test_tool_calls_and_warnings_flow_as_events(world: World, start):
    session = await start(world.spec())
    events = [event async for event in session.send("TOOL and WARN")]
    assert events[0] == ToolUse("mcp_idea_ping__mcp_idea_ping_1_0", "mcp_idea_ping", {})
    assert events[1] == ToolResult("mcp_idea_ping__mcp_idea_ping_1_0", "pong")
    assert all(isinstance(e, TextDelta) for e in events[2:-1])
    assert events[-1] == TurnFinished(
        "echo: TOOL and WARN", conversation_id=session.conversation_id, usage=TURN_USAGE
    )


@pytest.mark.skipif(not shutil.which("env"), reason="needs env(1) to hide the trust variable")
async def test_untrusted_folder_exit_55_is_agent_failed(world: World, start):
    hide_trust = (shutil.which("env"), "-u", "GEMINI_CLI_TRUST_WORKSPACE", *PROGRAM)
    session = await start(world.spec(), program=hide_trust)
    with pytest.raises(AgentFailed) as err:
        await session.send_blocking("hi", timeout=30)
    message = err.value.message
    assert "untrusted folder (exit code 55)" in message
    assert "GEMINI_CLI_TRUST_WORKSPACE=true" in message
    assert "\x1b[" not in message
    assert session.alive


async def test_missing_auth_exit_41_is_agent_failed_and_the_next_turn_recovers(world: World, start):
    settings = world.home / ".gemini" / "settings.json"
    settings.write_text("{}", encoding="utf-8")
    session = await start(world.spec())
    with pytest.raises(AgentFailed) as err:
        await session.send_blocking("hi", timeout=30)
    assert "could not authenticate" in err.value.message
    assert "exit code 41" in err.value.message
    assert "Invalid auth method selected." in err.value.message

    settings.write_text(json.dumps(AUTH), encoding="utf-8")
    assert (await session.send_blocking("again", timeout=30)).text == "echo: again"


async def test_a_first_turn_killed_before_init_is_retried_under_a_fresh_id(world: World, start):
    session = await start(world.spec())
    with pytest.raises(IdeaTimeout):
        await session.send_blocking("HANG_BEFORE_INIT", timeout=1.0)
    assert (await session.send_blocking("after", timeout=30)).text == "echo: after"
    hung, refused, fresh = world.runs()
    first_id = hung["session_id"]
    assert f"--session-id={first_id}" in hung["argv"]
    assert f"--resume={first_id}" in refused["argv"]
    assert refused["history"] == []  # its session exists but holds nothing to resume
    assert fresh["session_id"] != first_id
    assert f"--session-id={fresh['session_id']}" in fresh["argv"]
    assert session.conversation_id == fresh["session_id"]
    assert (await session.send_blocking("third", timeout=30)).text == "echo: third"
    assert world.runs()[-1]["history"][-1] == {"role": "model", "content": "echo: after"}


async def test_a_run_stopped_while_it_resumed_never_loses_the_conversation(world: World, start):
    # Within the minute the session began, a resumed run wipes the history from the session's
    # file until it writes it back: stopped in between, it leaves nothing the CLI can resume.
    spec = world.spec()
    session = await start(replace(spec, env={**spec.env, "FAKE_GEMINI_MINUTE": "2026-01-01T10-00"}))
    assert (await session.send_blocking("warm up", timeout=30)).text == "echo: warm up"
    conversation = session.conversation_id
    turn = asyncio.create_task(session.send_blocking("HANG_WHILE_RESUMING", timeout=30))
    await until(lambda: any('"hanging"' in line for line in _lines(world.log)))
    await session.interrupt()
    with pytest.raises(AgentFailed):
        await turn

    assert (await session.send_blocking("after", timeout=30)).text == "echo: after"
    assert session.conversation_id == conversation
    warm, stopped, after = world.runs()
    assert f"--session-id={conversation}" in warm["argv"]
    assert f"--resume={conversation}" in stopped["argv"]
    assert f"--resume={conversation}" in after["argv"]
    assert after["history"] == [
        {"role": "user", "content": "warm up"},
        {"role": "model", "content": "echo: warm up"},
    ]
    # The copy lives in the run dir, beside the settings.
    (kept,) = (world.run_dir / ".gemini" / "session-backup").rglob("session-*.jsonl")
    assert kept.name.endswith(f"-{conversation[:8]}.jsonl")


async def test_a_turn_given_up_while_the_last_run_still_exits_leaves_no_run_behind(
    world: World, start, monkeypatch
):
    # The warm-up's process outlives its answer; the next turn waits for it (here 1 s, then kills
    # it) before it resumes the session, and its caller gives up meanwhile: neither that wait nor
    # the start is cut short (the lingering run was forgotten: it ran beside the next one, and on
    # after shutdown).
    monkeypatch.setattr(gemini_session, "PREVIOUS_EXIT_WAIT_S", 1.0)
    spec = world.spec()
    session = await start(replace(spec, env={**spec.env, "FAKE_GEMINI_LINGER_S": "60"}))
    assert (await session.send_blocking("warm up", timeout=30)).text == "echo: warm up"
    (warm,) = world.runs()
    with pytest.raises(IdeaTimeout):
        await session.send_blocking("SLOW please", timeout=0.3)
    assert gone(warm["pid"])
    assert (await session.send_blocking("after", timeout=30)).text == "echo: after"
    # The conversation goes on (the stopped run may have recorded its prompt, if it got so far).
    assert world.runs()[-1]["history"][:2] == [
        {"role": "user", "content": "warm up"},
        {"role": "model", "content": "echo: warm up"},
    ]
    await session.shutdown()
    assert session.pids() == []
    assert all(gone(pid) for pid in world.pids())


async def test_resuming_a_session_the_cli_does_not_know_starts_a_new_one(world: World, start):
    lost = "00000000-0000-4000-8000-000000000000"
    session = await start(world.spec(resume=lost))
    assert session.conversation_id == lost
    assert (await session.send_blocking("hi", timeout=30)).text == "echo: hi"
    assert session.conversation_id not in (None, lost)


async def test_shutdown_mid_turn_kills_the_whole_tree(world: World, start):
    session = await start(world.spec())
    turn = asyncio.create_task(session.send_blocking("SLOW", timeout=30))
    await until(lambda: any("child" in e for e in map(json.loads, _lines(world.log))))
    (pid,) = session.pids()
    child = next(json.loads(x)["child"] for x in _lines(world.log) if "child" in x)
    await session.shutdown()
    with pytest.raises(Unavailable):
        await turn
    assert session.pids() == []
    assert gone(pid)
    assert gone(child)


async def test_empty_prompt_is_invalid(world: World, start):
    session = await start(world.spec())
    with pytest.raises(Invalid):
        await session.send_blocking("  ", timeout=5)
    assert world.runs() == []


async def test_a_missing_cli_is_unavailable(world: World):
    spec = world.spec(program=(str(world.project / "no-such-gemini"),))
    with pytest.raises(Unavailable) as err:
        await start_gemini_session(spec)
    assert "no-such-gemini" in err.value.message


def test_the_fake_refuses_a_reused_session_id_like_the_real_cli(world: World, tmp_path: Path):
    env = {**world.spec().env, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    argv = [*PROGRAM, "--prompt=hi", "--output-format=stream-json", f"--session-id={SESSION}"]
    first = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, timeout=30, check=False
    )
    assert first.returncode == 0
    again = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, timeout=30, check=False
    )
    assert again.returncode == 42
    assert again.stdout == b""
    assert (
        f'Session ID "{SESSION}" already exists. Use --resume to resume it'.encode() in again.stderr
    )


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


@pytest.mark.timeout(180)
async def test_a_50_mb_reply_in_many_lines_is_cut_at_1_mib_and_kept_whole(world: World, start):
    replies = world.project / ".ideai" / "run" / "replies.d"
    session = await start(world.spec(replies_dir=str(replies)))
    final = await session.send_blocking("HUGE_REPLY 50", timeout=150)
    head, last = final.text.rsplit("\n", 1)
    assert len(head.encode()) <= 1024 * 1024
    assert head.startswith("line 000000000 of a huge reply\n")
    assert last.startswith("[reply cut: 46.7 MiB more not shown; the whole reply is in ")
    kept = Path(last.removesuffix("]").rsplit(" ", 1)[1])
    assert kept.parent == replies
    assert kept.stat().st_size == 50 * 10**6
    assert kept.read_text(encoding="utf-8") == fake_gemini.huge_text(50 * 10**6)
    assert (await session.send_blocking("next", timeout=60)).text == "echo: next"


@pytest.mark.timeout(120)
async def test_an_interrupt_at_any_step_of_a_turns_start_ends_the_turn(world: World, start):
    """The session is busy before the turn's process exists (the last run's exit is awaited,
    the session file prepared, the CLI spawned): an interrupt landing anywhere there is kept."""
    session = await start(world.spec())
    await session.send_blocking("warm up", timeout=30)  # later turns prepare the session file
    seen: list[TurnFinished] = []
    session.subscribe(lambda e: isinstance(e, TurnFinished) and seen.append(e))
    for steps in range(12):
        turn = asyncio.create_task(session.send_blocking("SLOW work", timeout=20))
        while not session.busy:
            await asyncio.sleep(0)
        for _ in range(steps):
            await asyncio.sleep(0)
        await session.interrupt()
        with pytest.raises(AgentFailed):
            await turn
        assert [(f.is_error, f.interrupted) for f in seen] == [(True, True)], f"{steps} steps"
        seen.clear()
    assert (await session.send_blocking("after", timeout=30)).text.startswith("echo: after")
