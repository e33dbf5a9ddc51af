"""What a host needs for agents to run there, and ``idea hosts check NAME``, which says check by
check whether it has it.

``connect`` (the host key checked against known_hosts, a key login), ``idea`` (the host's IdeA is
this version), ``root`` (the checkout is a folder there), ``forwarding`` (its sshd forwards a Unix
socket, which the agents' MCP bridge needs). Invariant: each check raises a typed ``IdeaError``
that says why and what to do (``HostIdeaMissing``, ``HostIdeaVersion``, ``NotFound``,
``ForwardingRefused``…); ``check_host`` reports them all with the error's code and message, once
the connection fails the others are ``skipped``, and the connection is closed whatever happens.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import asyncssh

from idea.domain.errors import HostIdeaMissing, IdeaError, NotFound, Unavailable
from idea.domain.host import Host, check_version
from idea.domain.json_types import JsonObject
from idea.infrastructure.remote.ssh.channels import COMMAND_TIMEOUT_S, forward_socket, run_command
from idea.infrastructure.remote.ssh.connection import CONNECT_TIMEOUT_S, connect

Status = Literal["ok", "failed", "skipped"]
CHECKS = ("connect", "idea", "root", "forwarding")
CLOSE_TIMEOUT_S = 10.0
_SHELL_NOT_FOUND, _SHELL_CANNOT_EXECUTE = 127, 126


@dataclass(frozen=True, slots=True)
class HostCheck:
    check: str  # one of CHECKS
    status: Status
    detail: str
    code: str | None = None  # the error's, when failed

    def to_json(self) -> JsonObject:
        return {
            "check": self.check,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }


async def check_host(
    host: Host,
    local_version: str,
    *,
    known_hosts: str | None = None,
    client_keys: Sequence[str] | None = None,
    connect_timeout: float = CONNECT_TIMEOUT_S,
) -> list[HostCheck]:
    """Every check of ``CHECKS`` on ``host``, in order; never raises an ``IdeaError``."""
    try:
        conn = await connect(
            host,
            known_hosts=known_hosts,
            client_keys=client_keys,
            connect_timeout=connect_timeout,
        )
    except IdeaError as exc:
        skipped = [HostCheck(name, "skipped", "needs a connection") for name in CHECKS[1:]]
        return [_failed("connect", exc), *skipped]
    try:
        key = conn.get_server_host_key()
        seen = f" ({key.get_algorithm()} {key.get_fingerprint('sha256')})" if key else ""
        results = [HostCheck("connect", "ok", f"{host.ssh_target}{seen}")]
        try:
            version = await check_idea(conn, host, local_version)
            results.append(HostCheck("idea", "ok", f"IdeA {version} (`{host.idea}`)"))
        except IdeaError as exc:
            results.append(_failed("idea", exc))
        try:
            await check_root(conn, host)
            results.append(HostCheck("root", "ok", host.root))
        except IdeaError as exc:
            results.append(_failed("root", exc))
        try:
            await check_forwarding(conn, host)
            results.append(HostCheck("forwarding", "ok", "Unix-socket forwarding works"))
        except IdeaError as exc:
            results.append(_failed("forwarding", exc))
        return results
    finally:
        conn.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(conn.wait_closed(), CLOSE_TIMEOUT_S)


def _failed(check: str, exc: IdeaError) -> HostCheck:
    return HostCheck(check, "failed", exc.message, exc.code)


async def remote_version(
    conn: asyncssh.SSHClientConnection, host: Host, *, timeout: float = COMMAND_TIMEOUT_S
) -> str:
    """The version ``<host.idea> --version`` reports there (``idea 0.1.0`` → ``0.1.0``).

    Raises ``HostIdeaMissing`` (not found: the shell's 127; cannot run; not IdeA),
    ``IdeaTimeout``, ``HostUnreachable``."""
    result = await run_command(conn, host, f"{host.idea} --version", timeout=timeout, limit=4096)
    setting = f"hosts.{host.name}.idea"
    if result.exit_status in (_SHELL_NOT_FOUND, _SHELL_CANNOT_EXECUTE):
        why = "is not found" if result.exit_status == _SHELL_NOT_FOUND else "cannot be run"
        searched = "/" not in host.idea.split()[0]
        hint = (
            f", or set {setting} to its full path (a non-interactive SSH shell may not have "
            "~/.local/bin on its PATH: try ~/.local/bin/idea)"
            if searched
            else f", or set {setting} to the command that runs it"
        )
        raise HostIdeaMissing(
            f"host '{host.name}': `{host.idea}` {why} there ({_last_line(result.stderr)}). "
            f"Install IdeA on the host{hint}",
            host=host.name,
        )
    words = result.stdout.strip().split()
    if result.exit_status != 0 or len(words) != 2 or words[0] != "idea" or len(words[1]) > 64:
        said = _last_line(result.stderr) if result.exit_status else _last_line(result.stdout)
        raise HostIdeaMissing(
            f"host '{host.name}': `{host.idea} --version` is not IdeA's answer (exit status "
            f"{result.exit_status}: {said}); set {setting} to the command that runs IdeA there",
            host=host.name,
        )
    return words[1]


async def check_idea(conn: asyncssh.SSHClientConnection, host: Host, local_version: str) -> str:
    """The host's IdeA version, when it is ``local_version``. Raises as ``remote_version`` and
    ``check_version`` (``HostIdeaVersion``)."""
    remote = await remote_version(conn, host)
    check_version(local_version, remote, host.name)
    return remote


async def check_root(conn: asyncssh.SSHClientConnection, host: Host) -> None:
    """Raises ``NotFound`` unless ``host.root`` is a folder there (``Unavailable``,
    ``IdeaTimeout``, ``HostUnreachable`` when the test itself fails)."""
    result = await run_command(conn, host, f"test -d {shlex.quote(host.root)}", limit=4096)
    if result.exit_status == 1:
        raise NotFound(
            f"host '{host.name}': no folder {host.root} there (hosts.{host.name}.root names the "
            "checkout agents work in)"
        )
    if result.exit_status != 0:
        raise Unavailable(
            f"host '{host.name}': cannot check {host.root} (exit status {result.exit_status}: "
            f"{_last_line(result.stderr)})"
        )


async def check_forwarding(conn: asyncssh.SSHClientConnection, host: Host) -> None:
    """Open and close a Unix-socket forwarding from a fresh path on the host. Raises
    ``ForwardingRefused``, ``HostUnreachable``."""
    token = os.urandom(12).hex()
    remote_path = f"/tmp/idea-check-{token}.sock"
    local = Path(tempfile.gettempdir()) / f"idea-check-{token}.sock"  # never made: no peer
    listener = await forward_socket(conn, host, remote_path, str(local))
    listener.close()
    await listener.wait_closed()
    with contextlib.suppress(IdeaError):
        await run_command(conn, host, f"rm -f {shlex.quote(remote_path)}", limit=4096)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else "nothing printed"
    return last if len(last) <= 200 else last[:199] + "…"
