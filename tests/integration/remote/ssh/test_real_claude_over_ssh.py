"""Real Claude Code agents on another host over real SSH, asking and asked through IdeA, offline.

The host is Debian's sshd on 127.0.0.1 (tests/sshd.py) logging a second account in. That account
has IdeA's packaged build and Claude Code installed in its home as a user installs them (``npm
install -g --prefix``). The server sets its sessions' environment (sshd's ``SetEnv``, this
server's sessions only): the npm prefix on PATH, and Claude's config folder and model endpoint,
the test's ``MockModel``, in folders of that account. ``idea host``'s daemon inherits that
environment and starts the CLI with it. Here, the project is open with a local Claude agent and
``far``, an agent whose host is that server.

* a local agent asks ``far``: its model's ``idea_ask_agent`` reaches IdeA, IdeA starts ``far``'s
  CLI on the host (as the host's user, in the host's checkout), and the answer comes back;
* ``far`` asks a local agent: its MCP bridge runs on the host and reaches IdeA through the
  socket SSH forwards;
* the link is cut (the server's connection processes killed) while ``far``'s model answers:
  the turn ends while nobody is attached, the link comes back and the host sends the answer
  again, so the ask is answered once.

Closing the project leaves nothing running on the host, nor here.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import psutil
import pytest

from idea.app.bootstrap import default_starter, project_runtime, project_services
from idea.app.bootstrap.hosts import remote_starter
from idea.app.runtime import ProjectRuntime
from idea.domain.agent import Agent
from idea.domain.errors import NotFound
from idea.domain.host import Host
from idea.domain.profile import Mode
from idea.endpoint.naming import mcp_endpoint
from idea.infrastructure.remote.link import LinkState
from idea.infrastructure.remote.links import HostLinks
from idea.infrastructure.remote.ssh.connection import connect
from idea.infrastructure.remote.ssh.host_transport import ssh_connector
from tests.integration.test_real_delegation import ASK_TIMEOUT, MARKER_VAR, MockedAgents, Witness
from tests.real_cli import clis
from tests.real_cli.mock_model import (
    MockModel,
    Reply,
    Request,
    ToolCall,
    last_prompt,
    last_tool_result,
    tools_offered,
)
from tests.sshd import Sshd, remote_account, require_sshd, running_sshd
from tests.waiting import until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="an agent host is POSIX"),
    pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm (apt-get install npm)"),
    pytest.mark.skipif(
        not clis.real_cli_available("claude"), reason=str(clis.missing_reason("claude"))
    ),
]

CLAUDE = "@anthropic-ai/claude-code"
PINNED = json.loads((clis.HERE / "package.json").read_text(encoding="utf-8"))["dependencies"]
ASK_TOOL = "mcp__idea__idea_ask_agent"
HOST = "box"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
# What the host's sessions must not take from this process: sshd sets them for its account.
NOT_PASSED = ("USER", "LOGNAME")


def chown_tree(top: Path, uid: int, gid: int) -> None:
    for path in (top, *top.rglob("*")):
        os.lchown(path, uid, gid)


@pytest.fixture(scope="module")
def host_claude() -> Iterator[Path]:
    """``npm install -g --prefix <host home>/<folder>/npm-global`` of the pinned Claude Code,
    offline from npm's cache, then given to the host's account: the prefix's ``bin``."""
    require_sshd()  # the account is made by root only
    account = remote_account()
    folder = Path(tempfile.mkdtemp(prefix="idea-claude-npm-", dir=account.pw_dir))
    try:
        prefix = folder / "npm-global"
        # As root, in a folder of root's (npm's cache is root's); the account gets the files.
        clis.npm_install("-g", "--prefix", str(prefix), f"{CLAUDE}@{PINNED[CLAUDE]}", cwd=folder)
        chown_tree(folder, account.pw_uid, account.pw_gid)
        os.chmod(folder, 0o755)
        bin_dir = prefix / "bin"
        link = bin_dir / "claude"
        assert os.readlink(link) == f"../lib/node_modules/{CLAUDE}/bin/claude.exe"
        version = subprocess.run(
            [str(link), "--version"],
            user=account.pw_uid,
            group=account.pw_gid,
            extra_groups=[],
            env={"HOME": str(folder), "PATH": SYSTEM_PATH, "LANG": "C.UTF-8"},
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert version.returncode == 0, version.stderr
        assert version.stdout.startswith(PINNED[CLAUDE]), version.stdout
        yield bin_dir
    finally:
        shutil.rmtree(folder, ignore_errors=True)


Model = Callable[[Request], Reply]  # one agent's model
Responder = Callable[[str, Request], Reply]  # every agent's: (agent name, request)


class World(MockedAgents):
    """The project in ``tmp_path/project``; the host: an sshd whose sessions point Claude Code
    at ``mock``. ``responder(agent name, request)`` answers each turn request, the agent known
    by the identity line of its context (here or on the host)."""

    def __init__(
        self, tmp_path: Path, idea: str, host_bin: Path, stack: contextlib.ExitStack
    ) -> None:
        super().__init__()
        self.mock = MockModel(respond=self._respond).start()
        stack.callback(self.mock.stop)
        # Here: Claude Code of tests/real_cli on PATH, as in tests/integration/test_real_delegation.
        here = clis.setup_claude(self.mock.url, tmp_path)  # makes tmp_path/project too
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "claude").symlink_to(clis.claude_executable().resolve())
        self.env = {
            **here.env,
            "PATH": os.pathsep.join([str(bin_dir), here.env["PATH"]]),
            MARKER_VAR: self.marker,
        }
        # There: the same settings in folders of the host's account, its npm prefix on PATH.
        account = remote_account()
        self.there = Path(tempfile.mkdtemp(prefix="idea-claude-", dir=account.pw_dir))
        stack.callback(shutil.rmtree, self.there, ignore_errors=True)
        there = clis.setup_claude(self.mock.url, self.there)
        chown_tree(self.there, account.pw_uid, account.pw_gid)
        os.chmod(self.there, 0o755)
        self.claude_config = Path(there.env["CLAUDE_CONFIG_DIR"])
        host_env = {k: v for k, v in there.env.items() if k not in NOT_PASSED}
        host_env["PATH"] = os.pathsep.join([str(host_bin), SYSTEM_PATH])
        self.host_bin = host_bin
        self.sshd: Sshd = stack.enter_context(running_sshd(env=host_env))
        self.checkout = self.sshd.work / "checkout"
        self.sshd.write("checkout/README", "the host's checkout\n")
        self.host = self.sshd.host(HOST, root=str(self.checkout), idea=idea)
        self.project = here.cwd

    # -- the model ----------------------------------------------------------------------------

    def host_of(self, name: str) -> Host:
        if name != HOST:
            raise NotFound(f"no host {name}")
        return self.host

    def host_processes(self) -> list[tuple[str, str, list[str]]]:
        """(user, cwd, command line) of what the host's sessions run now."""
        found = []
        for process in self.sshd.session_processes():
            with contextlib.suppress(psutil.Error):
                found.append((process.username(), process.cwd(), process.cmdline()))
        return found

    def host_claude_pids(self) -> set[int]:
        """The host's Claude Code processes (of its account's npm install)."""
        installed = str((self.host_bin / "claude").resolve())
        found = set()
        for process in self.sshd.session_processes():
            with contextlib.suppress(psutil.Error):
                if process.cmdline()[:1] == [installed]:
                    found.add(process.pid)
        return found

    def host_transcripts_hold(self, text: str) -> bool:
        """Whether a transcript Claude Code wrote on the host holds ``text``."""
        return any(
            text in path.read_text(encoding="utf-8", errors="replace")
            for path in (self.claude_config / "projects").glob("*/*.jsonl")
        )

    @contextlib.contextmanager
    def host_accepting_nothing(self) -> Iterator[None]:
        """The server's listener stopped: a reconnect waits until the block ends."""
        self.sshd.process.send_signal(signal.SIGSTOP)
        try:
            yield
        finally:
            self.sshd.process.send_signal(signal.SIGCONT)

    # -- the project ----------------------------------------------------------------------------

    async def open(self, agents: dict[str, str | None]) -> ProjectRuntime:
        """Open the project with Claude agents ``{name: host or None}``, structured."""
        services = project_services(self.project)
        services.trust.grant()
        self.witness = Witness(self.marker, services.info.id)
        endpoint = mcp_endpoint(services.info.id, str(self.project))
        connect_to = functools.partial(connect, known_hosts=str(self.sshd.known_hosts))
        links = HostLinks(
            ssh_connector(self.host_of, endpoint, connect_to), services.info.id, grace_s=60
        )
        local = default_starter(services, True, base_env=self.env)
        starter = remote_starter(services, local, links)
        self.runtime = project_runtime(services, starter, ask_timeout_s=ASK_TIMEOUT, hosts=links)
        await self.runtime.open(resume=False, file_door=False, mcp=True)
        for name, host in agents.items():
            agent = Agent(
                id=str(uuid.uuid4()),
                name=name,
                profile="claude",
                mode=Mode.STRUCTURED,
                context=f"{self.identity(name)}\nYou are the agent {name} of this project.",
                host=host,
            )
            self.runtime.services.agents.save(agent)
            self.agents[name] = agent
        return self.runtime

    def chain(self) -> list[tuple[str, str, str | None, bool, int]]:
        """The log's rows as (source, target, requester's name, ok, depth), the UI's first."""
        names = {agent.id: name for name, agent in self.agents.items()}
        rows = sorted(self.delegations(), key=lambda row: row["depth"])
        assert len({row["chain_id"] for row in rows}) == 1, rows
        return [
            (
                r["source"],
                r["target"],
                names.get(r["requester"], r["requester"]),
                r["ok"],
                r["depth"],
            )
            for r in rows
        ]

    async def close(self) -> None:
        if self.runtime is not None:
            runtime, self.runtime = self.runtime, None
            await runtime.close()
            await until(lambda: not self.sshd.session_processes(), 20, "the host left empty")
        if self.witness is not None:
            assert self.witness.survivors() == [], "processes of the test survive the close"


@pytest.fixture
async def world(monkeypatch, tmp_path, installed_idea, host_claude) -> AsyncIterator[World]:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    with contextlib.ExitStack() as stack:
        w = World(tmp_path, installed_idea, host_claude, stack)
        try:
            yield w
        finally:
            await w.close()
        assert w.problems == [], w.mock.describe()
        assert w.mock.errors == [], w.mock.describe()


def relay_of(caller: str, target: str, task: str) -> Model:
    """``caller``'s model: ask ``target`` through IdeA, then say what it answered."""

    def respond(request: Request) -> Reply:
        result = last_tool_result(request)
        if result is None:
            return ToolCall(ASK_TOOL, {"target": target, "task": task})
        return f"{caller} relays: {result}"

    return respond


@pytest.mark.timeout(240)
async def test_a_local_claude_asks_a_claude_on_the_host(world: World) -> None:
    token = uuid.uuid4().hex
    task = f"Review the plan, marker TASK-{token}."
    answer = f"FAR-SAYS-{token}"
    main = relay_of("main", "far", task)
    seen_on_host: list[tuple[str, str, list[str]]] = []

    def respond(name: str, request: Request) -> Reply:
        if name == "main":
            return main(request)
        assert name == "far", name
        seen_on_host.extend(world.host_processes())  # while its CLI waits for this answer
        return answer

    world.responder = respond
    runtime = await world.open({"main": None, "far": HOST})
    reply = await world.ask("main", "Ask far to review the plan.")

    assert reply == f"main relays: {answer}", world.mock.describe()
    (far_turn,) = world.turns_of("far")
    assert last_prompt(far_turn) == task
    assert last_tool_result(world.turns_of("main")[1]) == answer
    assert world.chain() == [
        ("ui", "main", None, True, 1),
        ("mcp", "far", "main", True, 2),
    ]
    # far's CLI: the host account's npm install of Claude Code, as that account, in the
    # checkout there, beside its IdeA bridge (the host's idea, naming far as its requester).
    installed = str((world.host_bin / "claude").resolve())
    claude = [(user, cwd) for user, cwd, cmd in seen_on_host if cmd[:1] == [installed]]
    assert claude == [(world.sshd.user, str(world.checkout))], seen_on_host
    bridges = [cmd for _, _, cmd in seen_on_host if "mcp-server" in cmd]
    assert [cmd[cmd.index("--requester") + 1] for cmd in bridges] == [world.agents["far"].id]
    assert bridges[0][0] == world.host.idea
    assert runtime.hosts is not None and runtime.hosts.state(HOST) == LinkState.UP

    await world.close()
    assert not world.sshd.session_processes()


@pytest.mark.timeout(240)
async def test_a_claude_on_the_host_asks_a_local_claude(world: World) -> None:
    token = uuid.uuid4().hex
    task = f"Check the numbers, marker TASK-{token}."
    answer = f"NEAR-SAYS-{token}"
    far = relay_of("far", "near", task)

    def respond(name: str, request: Request) -> Reply:
        if name == "far":
            return far(request)
        assert name == "near", name
        return answer

    world.responder = respond
    await world.open({"near": None, "far": HOST})
    reply = await world.ask("far", "Ask near to check the numbers.")

    assert reply == f"far relays: {answer}", world.mock.describe()
    first, second = world.turns_of("far")
    # far's CLI on the host was offered IdeA's tools: its bridge reached IdeA through SSH.
    assert ASK_TOOL in tools_offered(first)
    assert last_tool_result(second) == answer
    (near_turn,) = world.turns_of("near")
    assert last_prompt(near_turn) == task
    assert world.chain() == [
        ("ui", "far", None, True, 1),
        ("mcp", "near", "far", True, 2),
    ]
    mcp = [row for row in world.delegations() if row["source"] == "mcp"]
    assert mcp[0]["requester"] == world.agents["far"].id
    assert mcp[0]["reply"] == answer


@pytest.mark.timeout(240)
async def test_a_link_cut_while_the_host_agent_answers_comes_back_with_its_answer(
    world: World,
) -> None:
    token = uuid.uuid4().hex
    task = f"Think it over, marker TASK-{token}."
    answer = f"FAR-ANSWERS-LATE-{token}"
    main = relay_of("main", "far", task)
    asked = threading.Event()
    release = threading.Event()

    def respond(name: str, request: Request) -> Reply:
        if name == "main":
            return main(request)
        assert name == "far", name
        asked.set()
        assert release.wait(ASK_TIMEOUT), "far's turn was never released"
        return answer

    world.responder = respond
    runtime = await world.open({"main": None, "far": HOST})
    hosts = runtime.hosts
    assert hosts is not None
    ask = asyncio.create_task(world.ask("main", "Ask far to think it over."))
    try:
        assert await asyncio.to_thread(asked.wait, ASK_TIMEOUT), world.mock.describe()
        far_cli = world.host_claude_pids()
        assert len(far_cli) == 1, world.host_processes()
        with world.host_accepting_nothing():
            assert world.sshd.cut_connections() > 0
            await until(lambda: hosts.state(HOST) == LinkState.RECONNECTING, 20, "the cut seen")
            # far's turn ends while nobody is attached: the host keeps its answer.
            release.set()
            await until(
                lambda: world.host_transcripts_hold(answer), 30, "far's CLI to end its turn"
            )
            assert not ask.done()
        reply = await asyncio.wait_for(ask, ASK_TIMEOUT)
    finally:
        release.set()
        ask.cancel()
        await asyncio.gather(ask, return_exceptions=True)

    assert reply == f"main relays: {answer}", world.mock.describe()
    assert hosts.state(HOST) == LinkState.UP
    assert len(world.turns_of("far")) == 1  # answered once, not asked again
    assert world.chain() == [
        ("ui", "main", None, True, 1),
        ("mcp", "far", "main", True, 2),
    ]
    assert world.host_claude_pids() == far_cli  # the CLI that answered lived through the cut

    # The cut ended far's MCP bridge with the forward it used; its CLI starts it again, and it
    # reaches IdeA through the forward the new link made.
    back = f"MAIN-SAYS-{token}"
    far = relay_of("far", "main", f"Anything else? marker BACK-{token}.")
    world.responder = lambda name, request: far(request) if name == "far" else back
    assert await world.ask("far", "Ask main if there is anything else.") == f"far relays: {back}"
