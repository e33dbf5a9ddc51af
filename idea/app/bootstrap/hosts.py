"""The wiring of agents on other hosts (DESIGN.md §16), part of the composition root: the
project's SSH links to the user's hosts, the starter that sends each agent to its host, and
``idea host``'s daemon on the host's side. asyncssh is imported when it is first needed."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from idea import __version__
from idea.app.runtime import ProjectServices
from idea.application.session_ports import SessionStarter
from idea.endpoint.naming import mcp_endpoint
from idea.infrastructure.clis import CLIS
from idea.infrastructure.clis.starter import CliSessionStarter
from idea.infrastructure.remote.host_server import HostServer
from idea.infrastructure.remote.link import Connector
from idea.infrastructure.remote.links import HostLinks
from idea.infrastructure.remote.sessions import (
    HostRoutingStarter,
    RemoteStarter,
    project_agent_key,
)
from idea.infrastructure.stores.hosts import JsonHostStore
from idea.infrastructure.stores.paths import ProjectPaths
from idea.infrastructure.terminal.launcher import default_terminal_launcher

if TYPE_CHECKING:
    from idea.infrastructure.remote.ssh.check import HostCheck


def host_store() -> JsonHostStore:
    """The user's ``hosts.json`` (DESIGN.md §16); a ``HostStore``."""
    return JsonHostStore()


def ssh_host_links(services: ProjectServices, tool_timeout_s: float) -> HostLinks:
    """The project's links to the hosts of the user's hosts.json, over SSH; ``tool_timeout_s``
    is the MCP tool timeout declared to the CLIs there."""
    endpoint = mcp_endpoint(services.info.id, str(services.paths.root))
    store = services.hosts

    def connector_for(name: str) -> Connector:
        from idea.infrastructure.remote.ssh.host_transport import (  # noqa: PLC0415 - on use only
            ssh_connector,
        )

        return ssh_connector(store.get, endpoint)(name)

    return HostLinks(connector_for, services.info.id, tool_timeout_s=tool_timeout_s)


def remote_starter(
    services: ProjectServices, local: SessionStarter, hosts: HostLinks
) -> SessionStarter:
    """``local`` for this machine's agents; an agent with a ``host`` starts there (§16)."""
    remote = RemoteStarter(hosts.link_for, project_agent_key(services.paths.mcp_key))
    return HostRoutingStarter(local, remote)


def host_server(root: Path, grace_s: float) -> HostServer:
    """``idea host``'s daemon for the checkout in ``root`` (DESIGN.md §16): the real CLIs,
    started as locally, whose MCP bridges reach the socket SSH forwards to IdeA's endpoint."""
    paths = ProjectPaths(root)

    def starter(
        project_id: str, mcp_socket: str, key_of: Callable[[str], bytes], tool_timeout_s: float
    ) -> SessionStarter:
        return CliSessionStarter(
            paths,
            project_id,
            default_terminal_launcher(),
            CLIS,
            tool_timeout_s=tool_timeout_s,
            with_mcp=True,
            folder_of=lambda _agent: root,
            mcp_endpoint=mcp_socket,
            agent_key_of=key_of,
            replies_dir=paths.replies,
        )

    def mcp_socket(project_id: str) -> str:
        path = mcp_endpoint(project_id, str(root))
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a forward of a link that dropped: SSH will bind it again
        return path

    return HostServer(starter, mcp_socket, grace_s)


async def check_host(name: str) -> list[HostCheck]:
    """``idea hosts check NAME``: the checks of ``infrastructure/remote/ssh/check.py`` on the host
    the user's hosts.json names, against this IdeA's version. Raises ``NotFound`` (naming the
    configured hosts), ``Invalid`` (hosts.json)."""
    from idea.infrastructure.remote.ssh.check import (  # noqa: PLC0415 - asyncssh: 140 ms, on use only
        check_host as run_checks,
    )

    return await run_checks(host_store().get(name), __version__)
