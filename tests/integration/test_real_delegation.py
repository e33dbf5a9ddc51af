"""Delegation between two REAL agent CLIs through IdeA, end to end, offline.

A ``ProjectRuntime`` opens a temp project whose session starter is the production
``CliSessionStarter``; its base environment points every real CLI (``claude``, ``codex``,
``gemini``, found on ``PATH`` as symlinks to the pinned executables) at ONE ``MockModel``.
Each agent's CLI spawns the REAL ``idea mcp-server`` bridge from the MCP declaration IdeA writes,
and the bridge reaches the runtime's REAL per-project endpoint. The mock plays every agent's
model: it recognises whose request it is by the identity line of the agent's context, so the
model of ``main`` calls ``idea_ask_agent``, the target's model answers, and the answer travels
back through the target's CLI, IdeA, the bridge and the caller's CLI to the caller's model.

Every test checks that no CLI or bridge process it caused survives: the CLIs carry a marker
variable in their environment, the bridges name the test's project id on their command line.

Skipped only when ``tests/real_cli/node_modules`` is absent (``tests/real_cli/install.sh``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from idea.app.bootstrap import default_starter, open_project, project_services
from idea.app.runtime import ProjectRuntime
from idea.domain.agent import Agent
from idea.domain.commands import AskAgent, Source
from idea.domain.events import AgentLaunched, AgentReplied, DomainEvent
from idea.domain.profile import Mode
from idea.domain.session_events import SessionEvent, ToolResult
from tests.mcp_clients import IDEA_TOOLS
from tests.real_cli import clis
from tests.real_cli.mock_model import (
    Fail,
    Hold,
    MockModel,
    Reply,
    Request,
    ToolCall,
    last_prompt,
    last_tool_result,
    tool_results,
    tools_offered,
)
from tests.waiting import until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not clis.real_cli_available("claude"), reason=str(clis.missing_reason("claude"))
    ),
]

MARKER_VAR = "IDEA_REAL_DELEGATION_MARKER"
# What each CLI calls the ``idea_ask_agent`` tool of the ``idea`` server.
ASK_TOOL = {
    "claude": "mcp__idea__idea_ask_agent",
    "codex": "mcp__idea__idea_ask_agent",
    "gemini": "mcp_idea_idea_ask_agent",
    "qwen": "mcp__idea__idea_ask_agent",
    "opencode": "idea_idea_ask_agent",
}
# The runtime's turn timeout, and the bound of every blocking wait of a test.
ASK_TIMEOUT = 60.0


# -- processes -------------------------------------------------------------------------------


class Witness:
    """Processes the test caused: the CLIs (marker variable in their environment) and the
    bridges (``idea mcp-server … --project <project id>``), recorded while they run."""

    def __init__(self, marker: str, project_id: str) -> None:
        self.marker = marker
        self.project_id = project_id
        # (pid, creation time) → the process and its command line when it was seen
        self.seen: dict[tuple[int, float], tuple[psutil.Process, list[str]]] = {}
        self._lock = threading.Lock()

    def is_ours(self, proc: psutil.Process) -> bool:
        if proc.pid == os.getpid():
            return False
        with contextlib.suppress(psutil.Error):
            if proc.status() == psutil.STATUS_ZOMBIE:
                return False
            cmdline = proc.cmdline()
            if "mcp-server" in cmdline and self.project_id in cmdline:
                return True
            return proc.environ().get(MARKER_VAR) == self.marker
        return False

    def scan(self) -> list[psutil.Process]:
        return [proc for proc in psutil.process_iter() if self.is_ours(proc)]

    def snapshot(self) -> None:
        found = self.scan()
        with self._lock:
            for proc in found:
                with contextlib.suppress(psutil.Error):
                    key = (proc.pid, proc.create_time())
                    if key not in self.seen:
                        self.seen[key] = (proc, proc.cmdline())

    def bridges(self) -> list[list[str]]:
        """Command lines of the bridges seen running."""
        with self._lock:
            return [cmdline for _, cmdline in self.seen.values() if "mcp-server" in cmdline]

    def survivors(self) -> list[str]:
        """Recorded processes still running (after a bounded wait for their exit), plus any
        process of the test found now; all of them are killed so nothing litters the machine."""
        with self._lock:
            procs = [proc for proc, _ in self.seen.values()]
        # A zombie is dead (a bridge whose CLI was killed first is re-parented to PID 1, which
        # may reap it late): waiting for it to disappear would only slow the test down.
        _, alive = psutil.wait_procs([p for p in procs if _running(p)], timeout=5)
        alive = [p for p in alive if _running(p)]
        current = {p.pid: p for p in [*alive, *self.scan()]}
        described = [_describe(p) for p in current.values()]
        for proc in current.values():
            with contextlib.suppress(psutil.Error):
                proc.kill()
        return described


def _running(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _describe(proc: psutil.Process) -> str:
    with contextlib.suppress(psutil.Error):
        return f"{proc.pid} {proc.cmdline()}"
    return str(proc.pid)


# -- the world: one project, one mock, the real CLIs -----------------------------------------

Responder = Callable[[str, Request], Reply]


# Installs the CLIs as a user does, given the HOME they will run with; returns the PATH folders.
Installed = Callable[[Path], list[Path]]


def offline_environment(
    mock: MockModel, root: Path, installed: Installed | None = None
) -> dict[str, str]:
    """One offline environment for all the CLIs: one HOME in ``root`` (Claude's config dir,
    Codex's ``CODEX_HOME`` with the mock provider, Gemini's and Qwen's user settings, OpenCode's
    global config with the mock provider), every endpoint on the mock, and ``PATH`` starting
    with a folder of symlinks named like the built-in profiles' commands (plus ``node`` for the
    ``#!/usr/bin/env node`` of Gemini's and Qwen's scripts), or with only the folders
    ``installed`` returns."""
    claude = clis.setup_claude(mock.url, root)
    codex = clis.setup_codex(mock.openai_url, root)
    gemini = clis.setup_gemini(mock.url, root)
    qwen = clis.setup_qwen(mock.openai_url, root)
    opencode = clis.setup_opencode(mock.openai_url, root)
    assert claude.home == codex.home == gemini.home == qwen.home == opencode.home
    assert claude.cwd == codex.cwd == gemini.cwd == qwen.cwd == opencode.cwd
    # Gemini's TERM wins (no warnings)
    env = {**claude.env, **codex.env, **qwen.env, **opencode.env, **gemini.env}
    if installed is not None:
        # Only what the user's install put on PATH, beside the system's own folders.
        dirs = [str(d) for d in installed(claude.home)]
        env["PATH"] = os.pathsep.join([*dirs, os.defpath.lstrip(os.pathsep)])
        return env
    bin_dir = root / "bin"
    bin_dir.mkdir()
    node = clis.node_executable()
    assert node is not None, clis.missing_reason("gemini")
    links = {
        "claude": clis.claude_executable(),
        "codex": clis.codex_executable(),
        "gemini": clis.gemini_bundle(),
        "qwen": clis.qwen_entry(),
        # The npm launcher (a placeholder script): IdeA finds the native binary behind it.
        "opencode": clis.NODE_MODULES / "opencode-ai" / "bin" / "opencode.exe",
        "node": node,
    }
    for name, target in links.items():
        (bin_dir / name).symlink_to(Path(target).resolve())
    env["PATH"] = os.pathsep.join([str(bin_dir), claude.env["PATH"]])
    return env


class MockedAgents:
    """Agents of an IdeA project whose CLIs talk to one mock model (``self.mock``, made by the
    subclass with ``self._respond``). ``responder(agent_name, request)`` answers every turn
    request; the agent is recognised by the identity line IdeA injected as its context. A request
    of no known agent, or a responder that raises, is recorded in ``problems`` and answered with
    an HTTP 400."""

    mock: MockModel

    def __init__(self) -> None:
        self.marker = uuid.uuid4().hex
        self.responder: Responder | None = None
        self.problems: list[str] = []
        self.agents: dict[str, Agent] = {}
        self.runtime: ProjectRuntime | None = None
        self.witness: Witness | None = None

    def identity(self, name: str) -> str:
        return f"IDENTITY-{name}-{self.marker}"

    def whose(self, request: Request) -> str | None:
        text = json.dumps(request.body)
        found = [name for name in self.agents if self.identity(name) in text]
        return found[0] if len(found) == 1 else None

    def _respond(self, request: Request) -> Reply:
        if self.witness is not None:
            self.witness.snapshot()  # the CLI and its bridge are running now
        name = self.whose(request)
        if name is None or self.responder is None:
            self.problems.append(f"turn request of no single known agent: {request.path}")
            return Fail("mock: request of no known agent")
        self._answering(name)
        try:
            return self.responder(name, request)
        except Exception as exc:  # the handler thread must answer something
            self.problems.append(f"responder failed for {name}: {exc!r}")
            return Fail(f"mock: responder failed: {exc!r}")

    def _answering(self, name: str) -> None:
        """Called as a turn request of ``name`` is answered (the mock's handler thread)."""

    def turns_of(self, name: str) -> list[Request]:
        return [r for r in self.mock.turns if self.whose(r) == name]

    async def ask(self, target: str, task: str) -> str | None:
        """``agent.message`` from the UI door, as the user's composer sends it."""
        assert self.runtime is not None
        outcome = await self.runtime.orchestrator.dispatch(AskAgent(target, task), Source.UI)
        return outcome.reply

    def delegations(self) -> list[dict]:
        assert self.runtime is not None
        path = self.runtime.services.paths.delegations_log
        return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


class World(MockedAgents):
    """An IdeA project in ``tmp_path/project`` whose agents run the real CLIs against ``mock``."""

    def __init__(
        self,
        tmp_path: Path,
        installed: Installed | None = None,
        tool_timeout_s: float | None = None,
    ) -> None:
        super().__init__()
        self.root = tmp_path
        self.installed = installed
        self.tool_timeout_s = tool_timeout_s  # the MCP tool timeout declared to the CLIs
        self.replied: list[tuple[str, str | None, float]] = []  # (agent, requester, time)
        self.answered: list[tuple[str, float]] = []  # (agent, time) of every turn request
        self.session_events: list[tuple[str, SessionEvent]] = []  # (agent, event) of its session
        self.cli_of: dict[str, str] = {}
        self.launched: list[str] = []  # agent names, in launch order
        self.mock = MockModel(respond=self._respond).start()
        try:
            self.env = self._environment()
        except BaseException:
            self.mock.stop()
            raise
        self.project = self.root / "project"

    def _environment(self) -> dict[str, str]:
        env = offline_environment(self.mock, self.root, self.installed)
        env[MARKER_VAR] = self.marker
        return env

    async def open(self, agents: dict[str, str]) -> ProjectRuntime:
        """Open the project with agents ``{name: profile}``, all in structured mode."""
        services = project_services(self.project)
        limits = {"tool_timeout_s": self.tool_timeout_s} if self.tool_timeout_s else {}
        starter = default_starter(services, with_mcp=True, base_env=self.env, **limits)
        self.witness = Witness(self.marker, services.info.id)
        runtime = await open_project(
            self.project,
            starter=starter,
            resume=False,
            file_door=False,
            ask_timeout_s=ASK_TIMEOUT,
            **limits,
        )
        self.runtime = runtime
        for name, profile in agents.items():
            agent = Agent(
                id=str(uuid.uuid4()),
                name=name,
                profile=profile,
                mode=Mode.STRUCTURED,
                context=f"{self.identity(name)}\nYou are the agent {name} of this project.",
            )
            runtime.services.agents.save(agent)
            self.agents[name] = agent
            self.cli_of[name] = profile
        runtime.bus.subscribe(self._on_event)
        return runtime

    def _on_event(self, event: DomainEvent) -> None:
        if isinstance(event, AgentLaunched) and self.runtime is not None:
            session = self.runtime.sessions.structured_session(event.agent_id)
            assert session is not None, event
            name = event.agent_name
            self.launched.append(name)
            session.subscribe(lambda e: self.session_events.append((name, e)))
        elif isinstance(event, AgentReplied):
            self.replied.append((event.agent_name, event.requester_id, time.monotonic()))

    def _answering(self, name: str) -> None:
        self.answered.append((name, time.monotonic()))

    def ask_tool(self, name: str) -> str:
        return ASK_TOOL[self.cli_of[name]]

    async def close(self) -> None:
        try:
            if self.runtime is not None:
                await self.runtime.close()
        finally:
            self.mock.stop()
        if self.witness is None:
            return
        survivors = self.witness.survivors()
        assert survivors == [], "processes of the test survive the runtime's close"
        # The check above saw what it guards: each launched agent's CLI ran IdeA's bridge.
        bridges = self.witness.bridges()
        requesters = {cmd[cmd.index("--requester") + 1] for cmd in bridges}
        assert {self.agents[name].id for name in self.launched} <= requesters, bridges


@pytest.fixture
async def world(tmp_path):
    world = World(tmp_path)
    try:
        yield world
    finally:
        await world.close()
    assert world.problems == [], world.mock.describe()
    assert world.mock.errors == [], world.mock.describe()


# The CLIs whose structured output carries a turn's token counts.
REPORTS_USAGE = frozenset({"claude", "codex", "gemini", "qwen"})


def ask_args(target: str, task: str) -> dict[str, str]:
    return {"target": target, "task": task}


# -- 1-3: one delegation, caller → target ------------------------------------------------------


async def delegate_once(
    world: World, caller: str, caller_cli: str, target: str, target_cli: str
) -> None:
    """``caller`` asks ``target`` through IdeA; the answer reaches the caller's model and its
    final text reaches the user; the log holds the UI ask and the MCP ask."""
    token = uuid.uuid4().hex
    task = f"Review the plan, marker TASK-{token}."
    answer = f"{target.upper()}-SAYS-{token}"

    def respond(name: str, request: Request) -> Reply:
        if name == caller:
            result = last_tool_result(request)
            if result is None:
                return ToolCall(world.ask_tool(caller), ask_args(target, task))
            return f"{caller} relays: {result}"
        if name == target:
            assert f"TASK-{token}" in last_prompt(request), last_prompt(request)
            return answer
        raise AssertionError(f"unexpected agent {name}")

    world.responder = respond
    runtime = await world.open({caller: caller_cli, target: target_cli})
    reply = await world.ask(caller, f"Ask {target} to review the plan.")

    assert reply is not None and answer in reply, world.mock.describe()
    assert reply == f"{caller} relays: {answer}"
    caller_turns = world.turns_of(caller)
    target_turns = world.turns_of(target)
    assert len(caller_turns) == 2, world.mock.describe()
    assert len(target_turns) == 1, world.mock.describe()
    # The caller's CLI offered IdeA's tools: the bridge was spawned, initialised and listed.
    prefix = world.ask_tool(caller).removesuffix("idea_ask_agent")
    offered = tools_offered(caller_turns[0])
    assert {prefix + tool for tool in IDEA_TOOLS} <= set(offered), offered
    assert last_tool_result(caller_turns[1]) == answer
    # The target got the task as IdeA sent it, and its CLI was offered IdeA's tools too.
    assert last_prompt(target_turns[0]) == task
    target_prefix = world.ask_tool(target).removesuffix("idea_ask_agent")
    assert target_prefix + "idea_ask_agent" in tools_offered(target_turns[0])

    caller_id = world.agents[caller].id
    lines = world.delegations()
    outer = [line for line in lines if line["source"] == "ui"]
    inner = [line for line in lines if line["source"] == "mcp"]
    assert [(o["action"], o["target"], o["requester"], o["ok"]) for o in outer] == [
        ("agent.message", caller, None, True)
    ]
    assert [(i["action"], i["target"], i["requester"], i["ok"]) for i in inner] == [
        ("agent.message", target, caller_id, True)
    ]
    assert inner[0]["reply"] == answer
    assert inner[0]["prompt"] == task
    # One chain (DESIGN.md §15): the user's ask is its root, the caller's ask one level deeper.
    assert (outer[0]["depth"], inner[0]["depth"]) == (1, 2)
    assert outer[0]["chain_id"] == inner[0]["chain_id"]
    # What each answering turn cost, as the CLI reported it from the mock's usage numbers.
    for row, cli in ((outer[0], caller_cli), (inner[0], target_cli)):
        if cli in REPORTS_USAGE:
            assert row["usage"] is not None and row["usage"]["total_tokens"] > 0, (cli, row)
    assert world.launched == [caller, target]
    assert runtime.sessions.is_agent_live(world.agents[target].id)


@pytest.mark.timeout(90)
async def test_claude_asks_codex(world):
    await delegate_once(world, "main", "claude", "architect", "codex")


@pytest.mark.timeout(90)
async def test_claude_asks_gemini(world):
    await delegate_once(world, "main", "claude", "architect", "gemini")


@pytest.mark.timeout(90)
async def test_codex_asks_claude(world):
    await delegate_once(world, "main", "codex", "reviewer", "claude")


@pytest.mark.timeout(90)
async def test_qwen_asks_claude(world):
    await delegate_once(world, "main", "qwen", "reviewer", "claude")


@pytest.mark.timeout(90)
async def test_claude_asks_qwen(world):
    await delegate_once(world, "main", "claude", "architect", "qwen")


@pytest.mark.timeout(120)
async def test_opencode_asks_claude(world):
    await delegate_once(world, "main", "opencode", "reviewer", "claude")


@pytest.mark.timeout(120)
async def test_claude_asks_opencode(world):
    await delegate_once(world, "main", "claude", "architect", "opencode")


# -- 4: two callers, one target: served one after the other -----------------------------------


@pytest.mark.timeout(90)
async def test_two_real_clis_asking_one_target_are_served_in_fifo_order(world):
    token = uuid.uuid4().hex
    callers = ("alice", "bob")  # Claude and Codex
    tasks = {caller: f"Check item {caller}, marker TASK-{caller}-{token}." for caller in callers}
    first_arrived = threading.Event()
    release = threading.Event()
    served: list[tuple[str, float]] = []  # (caller whose task it is, arrival time at the model)

    def respond(name: str, request: Request) -> Reply:
        if name in callers:
            result = last_tool_result(request)
            if result is None:
                return ToolCall(world.ask_tool(name), ask_args("target", tasks[name]))
            return f"{name} got: {result}"
        assert name == "target", name
        prompt = last_prompt(request)
        (whose,) = [caller for caller in callers if tasks[caller] == prompt]
        served.append((whose, time.monotonic()))
        if len(served) == 1:  # hold the first turn until the test saw the second ask queued
            first_arrived.set()
            assert release.wait(ASK_TIMEOUT), "the first turn was never released"
        return f"ANSWER-FOR-{whose}-{token}"

    world.responder = respond
    runtime = await world.open({"alice": "claude", "bob": "codex", "target": "claude"})
    target_id = world.agents["target"].id
    asks = [
        asyncio.create_task(world.ask(caller, f"Ask target about {caller}.")) for caller in callers
    ]
    try:
        try:
            assert await asyncio.to_thread(first_arrived.wait, ASK_TIMEOUT), world.mock.describe()
            # The other caller's ask reached IdeA: the target runs one turn, one is in line.
            await until(
                lambda: runtime.ask.queue_length(target_id) == 2, ASK_TIMEOUT, "the 2nd ask queued"
            )
            assert len(served) == 1, served  # while the first turn runs, the second one waits
        finally:
            release.set()
        replies = await asyncio.wait_for(asyncio.gather(*asks), ASK_TIMEOUT)
    finally:
        for ask in asks:  # a failed check must not leave the asks pending
            ask.cancel()
        await asyncio.gather(*asks, return_exceptions=True)

    assert replies == [f"{c} got: ANSWER-FOR-{c}-{token}" for c in callers]
    (first, _), (second, second_at) = served
    assert {first, second} == set(callers)
    # The second turn reached the target's model only after IdeA had the first turn's answer.
    first_id, second_id = world.agents[first].id, world.agents[second].id
    replied = [(requester, at) for agent, requester, at in world.replied if agent == "target"]
    assert [requester for requester, _ in replied] == [first_id, second_id]
    assert replied[0][1] < second_at
    # One target session, turns in order: the second request carries the first exchange
    # before the second task (nothing was folded into the held turn).
    first_turn, second_turn = world.turns_of("target")
    assert tasks[second] not in json.dumps(first_turn.body)
    assert last_prompt(second_turn) == tasks[second]
    history = json.dumps(second_turn.body)
    assert history.index(tasks[first]) < history.index(f"ANSWER-FOR-{first}-{token}")
    assert history.index(f"ANSWER-FOR-{first}-{token}") < history.index(tasks[second])

    mcp = [line for line in world.delegations() if line["source"] == "mcp"]
    assert sorted((m["requester"], m["target"], m["ok"]) for m in mcp) == sorted(
        [(world.agents[c].id, "target", True) for c in callers]
    )


# -- 5: a cycle A → B → A fails at once ------------------------------------------------------


@pytest.mark.timeout(90)
async def test_a_cycle_through_real_clis_fails_at_once_with_conflict(world):
    token = uuid.uuid4().hex
    forward = f"Design the cache, marker TASK-{token}."
    back = f"Alpha, which eviction policy? marker BACK-{token}."
    timeout_s = 30  # a dead-lock would end in TIMEOUT after this, not CONFLICT
    seen_by_beta: list[str] = []
    raw_by_beta: list[str] = []

    def respond(name: str, request: Request) -> Reply:
        result = last_tool_result(request)
        if name == "alpha":
            if result is None:
                return ToolCall(
                    world.ask_tool("alpha"), {**ask_args("beta", forward), "timeout_s": timeout_s}
                )
            return f"alpha final: {result}"
        assert name == "beta", name
        if result is None:
            return ToolCall(
                world.ask_tool("beta"), {**ask_args("alpha", back), "timeout_s": timeout_s}
            )
        seen_by_beta.append(result)
        raw_by_beta.append(tool_results(request)[-1])
        return f"BETA-ANSWER-{token} (asking back failed: {result.splitlines()[0]})"

    world.responder = respond
    await world.open({"alpha": "claude", "beta": "codex"})
    reply = await world.ask("alpha", "Get the cache designed by beta.")

    assert reply is not None and f"BETA-ANSWER-{token}" in reply, world.mock.describe()
    (conflict,) = seen_by_beta
    assert last_tool_result(world.turns_of("beta")[1]) == conflict  # the mock saw it as beta's
    assert conflict.startswith("CONFLICT"), raw_by_beta
    assert "beta → alpha → beta" in conflict, conflict
    # The MCP result was an error (``isError``): Codex reports its call as failed; to the model
    # it forwards only the text (``Wall time: … Output:`` then the text, no error flag).
    results = [
        (n, e.output, e.is_error) for n, e in world.session_events if isinstance(e, ToolResult)
    ]
    assert results == [
        ("beta", conflict, True),
        ("alpha", reply.removeprefix("alpha final: "), False),
    ]
    assert raw_by_beta[0].endswith(f"Output:\n{conflict}"), raw_by_beta
    # At once: beta's model got the error right after it asked, far below the ask timeout.
    beta_times = [at for name, at in world.answered if name == "beta"]
    assert len(beta_times) == 2
    assert beta_times[1] - beta_times[0] < 5.0, beta_times

    lines = world.delegations()
    ids = {world.agents[n].id: n for n in ("alpha", "beta")}
    summary = [
        (line["source"], ids.get(line["requester"]), line["target"], line["code"]) for line in lines
    ]
    assert summary == [
        ("mcp", "beta", "alpha", "CONFLICT"),
        ("mcp", "alpha", "beta", None),
        ("ui", None, "alpha", None),
    ]
    assert lines[0]["duration_ms"] < 2000


# -- time that always fits: the caller hears IdeA's TIMEOUT, not its own CLI's give-up ---------


@pytest.mark.timeout(90)
async def test_a_real_claude_caller_gets_ideas_timeout_before_its_own_tool_timeout(tmp_path):
    """Claude's MCP tool timeout is declared as 12 s; the target never answers. IdeA ends the ask
    a margin before (DESIGN.md §15), so the caller's model reads a typed TIMEOUT tool result."""
    world = World(tmp_path, tool_timeout_s=12.0)
    try:
        heard: list[str] = []

        def respond(name: str, request: Request) -> Reply:
            if name == "reviewer":
                return Hold(seconds=40)
            result = last_tool_result(request)
            if result is None:
                return ToolCall(world.ask_tool("main"), ask_args("reviewer", "review, slowly"))
            heard.append(result)
            return "main heard back"

        world.responder = respond
        await world.open({"main": "claude", "reviewer": "claude"})
        started = time.monotonic()
        reply = await world.ask("main", "Ask reviewer.")
        elapsed = time.monotonic() - started
        assert reply == "main heard back", world.mock.describe()
        (result,) = heard
        assert result.startswith("TIMEOUT: "), result  # IdeA's own words, typed
        assert elapsed < 12.0, elapsed
    finally:
        await world.close()
    assert world.problems == [], world.mock.describe()
