"""IdeA's structured adapters driving the REAL ``claude``, ``codex`` and ``gemini`` CLIs offline.

The same ``AgentSessionContract`` the fakes pass runs against each pinned real CLI (see
``tests/real_cli``), started by IdeA's own adapter, with ``MockModel`` as the model: its reply
function answers ``echo: <prompt>``, holds the stream of a ``SLOW`` prompt open until the CLI
gives up, answers a ``FAIL`` prompt with a non-retryable HTTP 400 and a ``RATELIMIT`` prompt with
an HTTP 429 the CLI gives up on at once. The contract's usage check is made with the mock's own
numbers: each model request reports known token counts, different for each (``Tokens``), and a
turn's usage must be the sum of its own requests'. Per CLI, beyond the contract: the
``StructuredSpec.context`` reaches the model (also when edited before a resume), and the MCP
declaration the adapter writes is what the CLI loads: the stdio server
``tests/real_cli/tiny_mcp_server.py`` runs under the name ``idea``, its tool is offered, the
scripted call runs it and the model receives ``pong``, in a fresh and in a resumed session.

Every process a session ran (the CLI, the MCP servers it spawned) is recorded while it runs and
must be gone once the session is shut down; nothing else carrying the test's marker (in the CLI's
environment and the MCP server's) or working under the test's folder may survive the test.

Skipped only when ``tests/real_cli/node_modules`` is absent (``tests/real_cli/install.sh``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import uuid
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import psutil
import pytest

from idea.application.session_ports import AgentSession, McpServerEntry, StructuredSpec
from idea.domain.errors import AgentFailed, IdeaTimeout, Unavailable
from idea.domain.profile import AdapterKind
from idea.domain.session_events import ToolResult, ToolUse, TurnFinished
from idea.domain.usage import Usage
from idea.infrastructure.clis import CLIS
from idea.infrastructure.clis.claude.session import ClaudeSession, start_claude_session
from idea.infrastructure.clis.codex.session import start_codex_session
from idea.infrastructure.clis.gemini.chats import read_session, session_files
from idea.infrastructure.clis.gemini.session import context_text, start_gemini_session
from idea.infrastructure.clis.stream_json import McpServerStatus
from tests.contracts.agent_session_contract import AgentSessionContract
from tests.real_cli import clis
from tests.real_cli.mock_model import (
    Hold,
    MockModel,
    RateLimited,
    Request,
    Tokens,
    ToolCall,
    echo_reply,
    last_prompt,
    last_tool_result,
    system_prompt,
    tools_offered,
)
from tests.waiting import until

pytestmark = pytest.mark.slow

# The CLIs started through the registry row alone (the others pass test-only arguments).
CLIS_BY_NAME = {"qwen": AdapterKind.QWEN, "opencode": AdapterKind.OPENCODE}

AGENT = "agent-a"
MARKER_VAR = "IDEA_REAL_CLI_TEST_MARKER"
TURN_TIMEOUT = 60.0


def needs(name: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(
        not clis.real_cli_available(name), reason=str(clis.missing_reason(name))
    )


# -- processes -------------------------------------------------------------------------------


class Processes:
    """Every process seen in a session's tree (pid + creation time, so pid reuse is harmless),
    and the environment marker of each MCP server seen running ``tiny_mcp_server.py``."""

    def __init__(self) -> None:
        self.seen: dict[tuple[int, float], psutil.Process] = {}
        self.bridge_markers: list[str | None] = []

    def snapshot(self, session: AgentSession) -> None:
        for pid in session.pids():
            with contextlib.suppress(psutil.Error):
                root = psutil.Process(pid)
                for proc in [root, *root.children(recursive=True)]:
                    self._add(proc)

    def _add(self, proc: psutil.Process) -> None:
        with contextlib.suppress(psutil.Error):
            key = (proc.pid, proc.create_time())
            if key in self.seen:
                return
            self.seen[key] = proc
            if str(clis.TINY_MCP_SERVER) in proc.cmdline():
                self.bridge_markers.append(proc.environ().get(MARKER_VAR))

    def alive(self) -> list[str]:
        return [_describe(p) for p in self.seen.values() if _running(p)]


def _running(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _describe(proc: psutil.Process) -> str:
    with contextlib.suppress(psutil.Error):
        return f"{proc.pid} {proc.cmdline()}"
    return str(proc.pid)


def strays(root: Path, marker: str) -> list[psutil.Process]:
    """Live processes (other than this one) working under ``root`` or carrying ``marker``."""
    found = []
    for proc in psutil.process_iter():
        if proc.pid == os.getpid():
            continue
        with contextlib.suppress(psutil.Error):
            if proc.status() == psutil.STATUS_ZOMBIE:
                continue
            under_root = Path(proc.cwd()).is_relative_to(root)
            if under_root or proc.environ().get(MARKER_VAR) == marker:
                found.append(proc)
    return found


# -- one real CLI, its offline setup and the sessions IdeA starts on it ------------------------


class World:
    """A real CLI set up offline against ``mock`` in ``root``; starts sessions through the adapter
    and, at ``close``, shuts them down and checks that none of their processes survives."""

    def __init__(self, cli: str, mock: MockModel, root: Path) -> None:
        self.cli = cli
        self.root = root
        self.marker = uuid.uuid4().hex
        self.context = f"You are {AGENT}. Context marker {self.marker}."
        self.processes: list[Processes] = []  # one per session, in start order
        self.sessions: list[AgentSession] = []
        program: list[str] | None = None
        if cli == "claude":
            self.setup = clis.setup_claude(mock.url, root)
            kind, executable = AdapterKind.CLAUDE, (str(clis.claude_executable()),)
        elif cli == "codex":
            # The mock provider lives in $CODEX_HOME/config.toml (setup.env names it).
            self.setup = clis.setup_codex(mock.openai_url, root)
            kind, executable = AdapterKind.CODEX, (str(clis.codex_executable()),)
        elif cli == "qwen":
            self.setup = clis.setup_qwen(mock.openai_url, root)
            kind, executable = AdapterKind.QWEN, tuple(self.setup.prefix)  # node + cli-entry.js
        elif cli == "opencode":
            # The mock provider lives in the global config; the adapter adds $OPENCODE_CONFIG.
            self.setup = clis.setup_opencode(mock.openai_url, root)
            kind, executable = AdapterKind.OPENCODE, tuple(self.setup.prefix)
        else:
            # No mcp_servers here: the adapter writes the run dir's own .gemini/settings.json.
            self.setup = clis.setup_gemini(mock.url, root)
            kind, executable = AdapterKind.GEMINI, tuple(self.setup.prefix)
            program = list(self.setup.prefix)  # node + bundle/gemini.js
        self.program = program
        self.run_dir = self.setup.cwd / ".ideai" / "run" / AGENT
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.base = StructuredSpec(
            kind=kind,
            program=executable,
            cwd=str(self.setup.cwd),
            run_dir=str(self.run_dir),
            env={**self.setup.env, MARKER_VAR: self.marker},
            context=self.context,
        )

    def bridge(self) -> McpServerEntry:
        """The stdio MCP server standing in for IdeA's bridge (tool ``ping`` → ``pong``)."""
        server = clis.tiny_mcp_server()
        return McpServerEntry(server.command, server.args, {MARKER_VAR: self.marker})

    def spec(self, **changes: object) -> StructuredSpec:
        return replace(self.base, **changes)  # type: ignore[arg-type]

    async def start(self, spec: StructuredSpec | None = None) -> AgentSession:
        spec = spec or self.spec()
        session: AgentSession
        if self.cli == "claude":
            session = await start_claude_session(spec)
        elif self.cli == "codex":
            session = await start_codex_session(spec)
        elif self.cli in CLIS_BY_NAME:
            session = await CLIS[CLIS_BY_NAME[self.cli]].start_session(spec)
        else:
            session = await start_gemini_session(spec, program=self.program)
        self.sessions.append(session)
        mine = Processes()
        mine.snapshot(session)
        # Gemini runs a process per turn: its tree is seen while the turn's events arrive.
        session.subscribe(lambda _event: mine.snapshot(session))
        self.processes.append(mine)
        shutdown = session.shutdown

        async def shutdown_and_check() -> None:
            # The check runs right after every shutdown, the contract's own ones included.
            await shutdown()
            assert session.pids() == []
            assert mine.alive() == [], "processes of a shut-down session survive"

        session.shutdown = shutdown_and_check  # type: ignore[method-assign]
        return session

    def snapshot(self) -> None:
        """Record the processes the sessions run now (e.g. while a turn is held)."""
        for session, processes in zip(self.sessions, self.processes, strict=True):
            processes.snapshot(session)

    @property
    def bridge_markers(self) -> list[str | None]:
        """The marker in the environment of each MCP server the sessions were seen running."""
        return [marker for p in self.processes for marker in p.bridge_markers]

    async def close(self) -> None:
        failures = []
        for session in self.sessions:
            try:
                await session.shutdown()
            except AssertionError as exc:
                failures.append(str(exc))
        left = strays(self.root, self.marker)
        for proc in left:  # a failed check must not leave the machine littered
            with contextlib.suppress(psutil.Error):
                proc.kill()
        assert failures == []
        assert [_describe(p) for p in left] == [], "processes of the test survive"


@pytest.fixture
def mock():
    with MockModel(respond=echo_reply) as server:
        yield server
        assert server.errors == [], server.describe()


def tokens_of(usage: Usage | None) -> Tokens | None:
    if usage is None:
        return None
    return Tokens(
        usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens
    )


def tokens_sent(requests: list[Request]) -> Tokens:
    """What the mock's answers to ``requests`` reported, added up."""
    return sum((r.tokens for r in requests if r.tokens is not None), Tokens())


# -- what every real CLI must do through its adapter ---------------------------------------------


class RealCliChecks(AgentSessionContract):
    """The contract plus the context and MCP checks; subclasses name the CLI."""

    cli: ClassVar[str]
    tool: ClassVar[str]  # the name the CLI offers the ``ping`` tool of server ``idea`` under
    # What the CLI says a turn cost: "none" (no cost), "zero" (0: the mock's model has no price)
    # or "priced" (the CLI prices the tokens, linearly).
    cost: ClassVar[str] = "none"
    rate_limit_resets_in_s = RateLimited().resets_in_s
    turn_s = TURN_TIMEOUT

    @pytest.fixture
    async def world(self, mock, tmp_path):
        world = World(self.cli, mock, tmp_path)
        try:
            yield world
        finally:
            await world.close()

    @pytest.fixture
    async def make_session(self, world):
        async def make(resume: str | None = None) -> AgentSession:
            return await world.start(world.spec(resume_conversation_id=resume))

        return make

    # -- per CLI -----------------------------------------------------------------------------

    def context_seen(self, world: World, request: Request, context: str) -> bool:
        """True if ``request`` carries ``context`` where the adapter put it."""
        return context in system_prompt(request)

    def check_declaration(self, world: World, session: AgentSession, spec: StructuredSpec) -> None:
        """What the adapter wrote (or sent) to declare the bridge, as the CLI reports it."""

    # -- tests -------------------------------------------------------------------------------

    async def test_each_turn_reports_its_own_usage(self, world, mock):
        """The contract's check, with the tokens the mock reported for each turn's requests."""
        session = await world.start()
        finals, sent = [], []
        for prompt in ("first", "second"):
            start = len(mock.turns)
            finals.append(await session.send_blocking(prompt, timeout=TURN_TIMEOUT))
            sent.append(tokens_sent(mock.turns[start:]))
        assert sent[0] != sent[1] != sent[0] + sent[1]
        assert [tokens_of(final.usage) for final in finals] == sent, mock.describe()
        costs = [final.usage.cost_usd for final in finals if final.usage is not None]
        if self.cost == "none":
            assert costs == [None, None]
        elif self.cost == "zero":
            assert costs == [0.0, 0.0]
        else:
            # The second turn sent n times the first's tokens: its own cost is n times the
            # first's, the running total would be n + 1 times.
            times = sent[1].input / sent[0].input
            assert costs[0] is not None and costs[0] > 0
            assert costs[1] == pytest.approx(times * costs[0], rel=1e-3)

    async def test_context_reaches_the_model(self, world, mock):
        spec = world.spec()
        session = await world.start(spec)
        assert (await session.send_blocking("hello", timeout=TURN_TIMEOUT)).text == "echo: hello"
        (turn,) = mock.turns
        assert last_prompt(turn) == "hello"
        assert self.context_seen(world, turn, spec.context), mock.describe()

    async def test_edited_context_reaches_a_resumed_conversation(self, world, mock):
        session = await world.start()
        first = "Remember the word kiwi."
        assert (await session.send_blocking(first, timeout=TURN_TIMEOUT)).text == f"echo: {first}"
        await session.shutdown()
        edited = world.spec(
            context=f"You are {AGENT}, edited. Marker {world.marker}-edited.",
            resume_conversation_id=session.conversation_id,
        )
        resumed = await world.start(edited)
        assert (await resumed.send_blocking("two", timeout=TURN_TIMEOUT)).text == "echo: two"
        assert resumed.conversation_id == session.conversation_id
        turn = mock.turns[-1]
        assert f"echo: {first}" in json.dumps(turn.body)  # the conversation was resumed
        assert self.context_seen(world, turn, edited.context), mock.describe()
        assert not self.context_seen(world, turn, world.context), mock.describe()

    async def test_shutdown_mid_turn_leaves_no_process(self, world, mock):
        session = await world.start(world.spec(mcp=world.bridge()))
        turn = asyncio.create_task(session.send_blocking("SLOW forever", timeout=TURN_TIMEOUT))
        # The CLI has sent the turn's request to the mock, which holds it.
        await asyncio.to_thread(
            mock.wait_until, lambda requests: any(isinstance(r.reply, Hold) for r in requests)
        )
        world.snapshot()
        assert world.bridge_markers == [world.marker]
        await session.shutdown()  # checks that no process of the session survives
        with pytest.raises(Unavailable):
            await turn
        # The CLI went away, so the held stream was released by its disconnect.
        mock.wait_until(
            lambda requests: all(r.released for r in requests if isinstance(r.reply, Hold))
        )
        assert {r.released for r in mock.requests if isinstance(r.reply, Hold)} == {"disconnected"}

    async def test_mcp_declaration_is_what_the_cli_loads(self, world, mock):
        mock.script([ToolCall(self.tool), "Tool said pong."])
        spec = world.spec(mcp=world.bridge())
        session = await world.start(spec)
        events = [event async for event in session.send("Please ping.")]
        assert isinstance(events[-1], TurnFinished)
        assert (events[-1].text, events[-1].is_error) == ("Tool said pong.", False)
        uses = [e for e in events if isinstance(e, ToolUse)]
        results = [e for e in events if isinstance(e, ToolResult)]
        # Both model calls of the turn count: the tool call's and the answer's.
        assert tokens_of(events[-1].usage) == tokens_sent(mock.turns), mock.describe()
        assert [u.name for u in uses] == [self.tool]
        assert [(r.tool_id, r.output, r.is_error) for r in results] == [
            (uses[0].tool_id, "pong", False)
        ]
        first, second = mock.turns
        assert self.tool in tools_offered(first), tools_offered(first)
        assert last_tool_result(first) is None
        assert last_tool_result(second) == "pong"
        assert world.bridge_markers == [world.marker]  # its env came through too
        self.check_declaration(world, session, spec)
        # What the adapter injects stays in the run dir: nothing lands in the project.
        project = world.setup.cwd
        assert [p for p in project.rglob("*") if not p.is_relative_to(project / ".ideai")] == []

        # A resumed session declares the bridge again.
        conversation = session.conversation_id
        await session.shutdown()
        mock.script([ToolCall(self.tool), "Pong again."])
        resumed = await world.start(replace(spec, resume_conversation_id=conversation))
        assert (
            await resumed.send_blocking("Ping again.", timeout=TURN_TIMEOUT)
        ).text == "Pong again."
        assert resumed.conversation_id == conversation
        assert last_tool_result(mock.turns[-1]) == "pong"
        assert last_prompt(mock.turns[-1]) == "Ping again."
        assert len(world.bridge_markers) == 2
        assert not mock.pending


# -- Claude Code -----------------------------------------------------------------------------


@needs("claude")
@pytest.mark.timeout(120)
class TestRealClaude(RealCliChecks):
    cli = "claude"
    tool = "mcp__idea__ping"
    cost = "priced"
    rate_limit_resets_in_s = None  # an API key's 429 names no reset (a subscription's would)

    async def test_a_resumed_conversation_reports_each_turns_own_cost(self, world, mock):
        # Claude Code 2.1.332 restores total_cost_usd on --resume: the first turn of the new
        # process must still cost only its own tokens.
        session = await world.start()
        first = await session.send_blocking("one", timeout=TURN_TIMEOUT)
        await session.shutdown()
        resumed = await world.start(world.spec(resume_conversation_id=session.conversation_id))
        second = await resumed.send_blocking("two", timeout=TURN_TIMEOUT)
        one, two = (tokens_sent([turn]) for turn in mock.turns)
        assert tokens_of(second.usage) == two
        assert first.usage is not None and second.usage is not None
        times = two.input / one.input
        assert second.usage.cost_usd == pytest.approx(times * first.usage.cost_usd, rel=1e-3)

    def check_declaration(self, world, session, spec):
        assert isinstance(session, ClaudeSession)
        declared = json.loads((world.run_dir / "mcp.json").read_text("utf-8"))
        assert declared["mcpServers"]["idea"]["command"] == spec.mcp.command
        assert session.mcp_servers == (McpServerStatus("idea", "connected"),)


# -- Codex -----------------------------------------------------------------------------------


@needs("codex")
@pytest.mark.timeout(120)
class TestRealCodex(RealCliChecks):
    cli = "codex"
    tool = "mcp__idea__ping"

    async def test_a_resumed_thread_reports_each_turns_own_usage(self, world, mock):
        # A new session on the thread: Codex's token totals are the thread's, not the process's.
        session = await world.start()
        await session.send_blocking("one", timeout=TURN_TIMEOUT)
        await session.shutdown()
        resumed = await world.start(world.spec(resume_conversation_id=session.conversation_id))
        second = await resumed.send_blocking("two", timeout=TURN_TIMEOUT)
        assert tokens_of(second.usage) == tokens_sent(mock.turns[1:]), mock.describe()

    @pytest.mark.xfail(
        strict=True,
        reason="codex 0.171.0 replays the thread's first developer message on thread/resume "
        "and does not send the developerInstructions of the resume request",
    )
    async def test_edited_context_reaches_a_resumed_conversation(self, world, mock):
        await super().test_edited_context_reaches_a_resumed_conversation(world, mock)


# -- Gemini CLI ------------------------------------------------------------------------------

_LOADED_CONTEXT = re.compile(
    r"--- Context from: (?P<path>[^\n]+?) ---\n(?P<text>.*?)\n"
    r"--- End of Context from: (?P=path) ---",
    re.DOTALL,
)


def gemini_context_files(request: Request) -> list[tuple[str, str]]:
    """The context files (``GEMINI.md``) Gemini CLI loaded, as it quotes them in the
    ``<session_context>`` part of a user message: (path, text), oldest first."""
    body = request.body if isinstance(request.body, dict) else {}
    text = "\n".join(
        part["text"]
        for content in body.get("contents") or []
        if content.get("role") == "user"
        for part in content.get("parts") or []
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    )
    return [(m["path"], m["text"].strip()) for m in _LOADED_CONTEXT.finditer(text)]


@needs("gemini")
@pytest.mark.timeout(120)
class TestRealGemini(RealCliChecks):
    cli = "gemini"
    tool = "mcp_idea_ping"

    def context_seen(self, world, request, context):
        expected = context_text(replace(world.base, context=context)).strip()
        return (str(world.run_dir / "GEMINI.md"), expected) in gemini_context_files(request)

    def check_declaration(self, world, session, spec):
        settings = json.loads((world.run_dir / ".gemini" / "settings.json").read_text("utf-8"))
        assert settings["mcpServers"]["idea"]["command"] == spec.mcp.command
        assert settings["mcpServers"]["idea"]["trust"] is True

    async def test_a_turn_interrupted_while_it_resumes_keeps_the_conversation(self, world, mock):
        """Gemini CLI 0.61.0 starts a resumed run by recording a new session, which within the
        minute the session began wipes the history from its file, and writes the history back
        just before ``init``: interrupted in between, the run leaves nothing to resume (the next
        one would print "No previous sessions found for this project.") unless the adapter puts
        its copy back. In a later minute the run records into a file of its own and nothing is
        wiped: the turn is then interrupted once its request is held."""
        session = await world.start()
        assert (await session.send_blocking("warm up", timeout=TURN_TIMEOUT)).text == (
            "echo: warm up"
        )
        conversation = session.conversation_id
        assert conversation is not None
        (chat,) = session_files(world.setup.home / ".gemini", conversation)

        def wiped_or_held() -> bool:
            held = any(isinstance(r.reply, Hold) for r in mock.requests)
            return held or not read_session(chat.read_bytes()).resumable

        turn = asyncio.create_task(session.send_blocking("SLOW please", timeout=TURN_TIMEOUT))
        await until(wiped_or_held, timeout=TURN_TIMEOUT)
        await session.interrupt()
        with pytest.raises(AgentFailed):
            await turn
        assert (await session.send_blocking("after", timeout=TURN_TIMEOUT)).text == "echo: after"
        assert session.conversation_id == conversation
        assert "echo: warm up" in json.dumps(mock.turns[-1].body)  # the history came along


# -- Qwen Code -------------------------------------------------------------------------------


@needs("qwen")
@pytest.mark.timeout(120)
class TestRealQwen(RealCliChecks):
    cli = "qwen"
    tool = "mcp__idea__ping"

    def check_declaration(self, world, session, spec):
        declared = json.loads((world.run_dir / "mcp.json").read_text("utf-8"))
        assert declared["mcpServers"]["idea"]["command"] == spec.mcp.command
        assert declared["mcpServers"]["idea"]["alwaysLoadTools"] is True


# -- OpenCode --------------------------------------------------------------------------------


@needs("opencode")
@pytest.mark.timeout(180)
class TestRealOpenCode(RealCliChecks):
    cli = "opencode"
    tool = "idea_ping"
    cost = "zero"

    async def test_a_rate_limited_turn_raises_rate_limited_and_the_session_goes_on(
        self, make_session
    ):
        """opencode 1.18.33 retries every HTTP 429 without end (backoff growing to 30 s,
        retry-after honoured, insufficient_quota and x-should-retry: false included) and prints
        nothing on its --format json stream meanwhile: no refusal reaches the adapter. What a
        caller gets is IdeA's own TIMEOUT, and the session goes on."""
        session = await make_session()
        with pytest.raises(IdeaTimeout):
            await session.send_blocking("RATELIMIT now", timeout=5)
        assert session.alive
        assert (await session.send_blocking("after", timeout=60)).text == "echo: after"

    def check_declaration(self, world, session, spec):
        config = json.loads((world.run_dir / "opencode.json").read_text("utf-8"))
        assert config["mcp"]["idea"]["command"] == [spec.mcp.command, *spec.mcp.args]
        assert config["instructions"] == [str(world.run_dir / "CONTEXT.md")]
