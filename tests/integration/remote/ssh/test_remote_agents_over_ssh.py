"""Agents on another host over real SSH: Debian's sshd on 127.0.0.1 (tests/sshd.py), a second
account as the host's user, IdeA's packaged build installed in that account's home as a user
installs it, and the project open here with an agent whose ``host`` is that server.

The shell agent runs as the host's user in the host's checkout; keystrokes and output cross the
link; the link cut (the server's connection processes killed, as a network cut does) comes back
with the same shell and what it printed meanwhile; closing the project leaves nothing running
on the host.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from idea.app.bootstrap import default_starter, project_runtime, project_services
from idea.app.bootstrap.hosts import remote_starter
from idea.app.runtime import ProjectRuntime
from idea.application.launch_agent import LaunchRequest
from idea.domain.errors import NotFound
from idea.domain.host import Host
from idea.domain.profile import Mode
from idea.endpoint.naming import mcp_endpoint
from idea.infrastructure.remote.link import LinkState
from idea.infrastructure.remote.links import HostLinks
from idea.infrastructure.remote.ssh.connection import connect
from idea.infrastructure.remote.ssh.host_transport import ssh_connector
from tests.sshd import Sshd
from tests.waiting import until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="an agent host is POSIX"),
]


class World:
    def __init__(self, tmp_path: Path, sshd: Sshd, idea: str) -> None:
        self.sshd = sshd
        self.project = tmp_path / "project"
        agents = self.project / ".ideai" / "agents"
        agents.mkdir(parents=True)
        (agents / "far.md").write_text(
            "---\nid: id-far\nname: far\nprofile: shell\nhost: box\n---\nA shell there.\n",
            encoding="utf-8",
        )
        self.checkout = sshd.work / "checkout"
        sshd.write("checkout/README", "the host's checkout\n")
        self.host = sshd.host("box", root=str(self.checkout), idea=idea)
        self.runtime: ProjectRuntime | None = None

    def host_of(self, name: str) -> Host:
        if name != "box":
            raise NotFound(f"no host {name}")
        return self.host

    async def open(self) -> ProjectRuntime:
        services = project_services(self.project)
        services.trust.grant()
        endpoint = mcp_endpoint(services.info.id, str(self.project))
        connect_to = functools.partial(connect, known_hosts=str(self.sshd.known_hosts))
        links = HostLinks(
            ssh_connector(self.host_of, endpoint, connect_to), services.info.id, grace_s=60
        )
        env = {**os.environ, "SHELL": "/bin/sh"}
        starter = remote_starter(services, default_starter(services, True, base_env=env), links)
        self.runtime = project_runtime(services, starter, hosts=links)
        await self.runtime.open(resume=False, file_door=False, mcp=True)
        return self.runtime

    async def close(self) -> None:
        if self.runtime is not None:
            await self.runtime.close()


@pytest.fixture
async def world(tmp_path: Path, sshd: Sshd, installed_idea: str) -> AsyncIterator[World]:
    w = World(tmp_path, sshd, installed_idea)
    try:
        yield w
    finally:
        await w.close()


def joined(chunks: list[str]) -> str:
    return "".join(chunks)


@pytest.mark.timeout(180)
async def test_a_shell_on_the_host_over_ssh_lives_through_a_cut_link(world: World) -> None:
    runtime = await world.open()
    await runtime.launch(LaunchRequest("far", node_id="cell-1", mode=Mode.TERMINAL))
    terminal = runtime.sessions.terminal_session("id-far")
    assert terminal is not None
    seen: list[str] = []
    terminal.subscribe(seen.append)
    terminal.write('echo "$(id -un) in $(pwd) $((6*7))"\n')
    expected = f"{world.sshd.user} in {world.checkout} 42"
    await until(lambda: expected in joined(seen), 30, "the host's shell to answer")
    assert runtime.hosts is not None and runtime.hosts.state("box") == LinkState.UP
    on_host = {p.pid for p in world.sshd.session_processes()}

    assert world.sshd.cut_connections() > 0
    await until(lambda: runtime.hosts.state("box") != LinkState.UP, 20, "the cut to be seen")
    terminal.write("sleep 1; echo after-$((40+2))\n")  # typed while the link is down
    await until(lambda: "after-42" in joined(seen), 60, "the shell to answer after the cut")
    assert runtime.hosts.state("box") == LinkState.UP
    assert joined(seen).count("after-42") == 1
    daemon_side = {p.pid for p in world.sshd.session_processes()}
    assert on_host & daemon_side, "the shell and its keeper lived on through the cut"

    await runtime.close()
    world.runtime = None
    await until(lambda: not world.sshd.session_processes(), 20, "the host to be left empty")
