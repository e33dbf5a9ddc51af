"""The link to ``idea host`` without SSH: the real relay and daemon as subprocesses of this
machine (tests/fakes/host_transport.py), driven through the same ports as local agents.

A dropped link is the relay killed: the daemon keeps the agents, IdeA reconnects, keystrokes
typed meanwhile arrive, output printed meanwhile is shown, and a turn that ended meanwhile is
answered. Closing the link stops the agents and the daemon (no orphan).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest

from idea.domain.agent import Agent
from idea.domain.builtin_profiles import builtin_profiles
from idea.domain.errors import HostLinkLost
from idea.domain.profile import AdapterKind, Profile
from idea.infrastructure.remote.link import HostLink, LinkState
from idea.infrastructure.remote.sessions import RemoteStarter
from tests.fakes.host_transport import LocalHost
from tests.paths import fake_claude_program
from tests.waiting import until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the host side is POSIX")

SHELL = builtin_profiles("/bin/sh")["shell"]
KEY = bytes(range(32))


def fake_claude_profile(tmp_path: Path) -> Profile:
    wrapper = fake_claude_program(tmp_path / "bin" / "fake-claude")
    return Profile(name="fake", command=(str(wrapper),), structured=AdapterKind.CLAUDE)


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[LocalHost]:
    root = tmp_path / "checkout"
    root.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "SHELL": "/bin/sh"}
    local = LocalHost(root, str(tmp_path / "no-endpoint.sock"), env)
    yield local
    await local.aclose()


async def linked(host: LocalHost, grace_s: float = 30) -> tuple[HostLink, RemoteStarter]:
    link = HostLink("box", host.connect, "project-1", grace_s=grace_s)
    await link.start()

    async def link_for(_name: str) -> HostLink:
        return link

    return link, RemoteStarter(link_for, lambda _agent_id: KEY)


def joined(chunks: list[str]) -> str:
    return "".join(chunks)


@pytest.mark.timeout(60)
async def test_a_shell_on_the_host_lives_through_a_dropped_link(host: LocalHost) -> None:
    link, starter = await linked(host)
    shell = await starter.start_terminal(Agent("a1", "sh", "shell", host="box"), SHELL, 24, 80)
    seen: list[str] = []
    shell.subscribe(seen.append)
    shell.write("echo one-$((1+1))\n")
    await until(lambda: "one-2" in joined(seen), 15, "the host's shell to answer")

    daemon = host.daemon()
    assert daemon is not None
    shell_pids = {p.pid for p in daemon.children(recursive=True)}
    host.cut()
    await until(lambda: link.state != LinkState.UP, 10, "the link to notice the drop")
    shell.write("sleep 0.3; echo two-$((2+2))\n")  # typed while the link is down
    await until(lambda: "two-4" in joined(seen), 20, "the keystrokes typed meanwhile to arrive")
    assert link.state == LinkState.UP
    assert joined(seen).count("echo two-$((2+2))") == 1, "echoed once"
    assert joined(seen).count("two-4") == 1, "printed once"
    assert "\x1bc" not in joined(seen), "what was shown is kept, not redrawn"
    assert {p.pid for p in daemon.children(recursive=True)} == shell_pids, "the same shell"
    assert "two-4" in shell.scrollback()

    await link.close()
    await asyncio.to_thread(daemon.wait, 15)
    assert not any(psutil.pid_exists(pid) for pid in shell_pids), "no orphan on the host"


@pytest.mark.timeout(60)
async def test_a_turn_that_ends_while_the_link_is_down_is_answered(
    host: LocalHost, tmp_path: Path
) -> None:
    link, starter = await linked(host)
    agent = Agent("a2", "bot", "fake", host="box")
    session = await starter.start_structured(agent, fake_claude_profile(tmp_path), None)
    first = await session.send_blocking("hello", 30)
    assert first.text == "echo: hello"
    assert session.conversation_id

    streamed: list[object] = []
    session.subscribe(streamed.append)
    answer = asyncio.ensure_future(session.send_blocking("STREAM a long reply", 30))
    await until(lambda: session.busy, 5, "the turn to start")
    host.cut()  # mid-turn
    finished = await answer
    assert finished.text.startswith("echo: STREAM"), finished
    assert link.state == LinkState.UP
    assert streamed[-1] == finished
    await session.shutdown()
    await link.close()


@pytest.mark.timeout(60)
async def test_a_host_that_never_comes_back_fails_what_waits_with_a_typed_error(
    host: LocalHost, tmp_path: Path
) -> None:
    link, starter = await linked(host, grace_s=2)
    agent = Agent("a3", "bot", "fake", host="box")
    session = await starter.start_structured(agent, fake_claude_profile(tmp_path), None)
    answer = asyncio.ensure_future(session.send_blocking("SLOW forever", 30))
    await until(lambda: session.busy, 5, "the turn to start")
    host.refuse = True
    host.cut()
    with pytest.raises(HostLinkLost):
        await asyncio.wait_for(answer, 20)
    assert link.state == LinkState.LOST
    assert not session.alive
    await link.close()


@pytest.mark.timeout(60)
async def test_closing_while_the_link_is_down_still_stops_the_hosts_agents(
    host: LocalHost,
) -> None:
    link, starter = await linked(host)
    await starter.start_terminal(Agent("a4", "sh", "shell", host="box"), SHELL, 24, 80)
    daemon = host.daemon()
    assert daemon is not None
    host.cut()
    await until(lambda: link.state == LinkState.RECONNECTING, 10, "the drop to be seen")
    await link.close()
    await asyncio.to_thread(daemon.wait, 15)  # not the 30 s grace period
    assert link.state == LinkState.CLOSED
