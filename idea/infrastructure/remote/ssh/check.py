"""``idea hosts check NAME``: can agents run on this host? One line per check, in order.

``connect`` (the host key checked against known_hosts, a key login), ``idea`` (the host's IdeA is
this version), ``root`` (the checkout is a folder there), ``forwarding`` (its sshd forwards a Unix
socket, which the agents' MCP bridge needs). Invariant: a check that fails says why with the
typed error's code and message; once the connection fails the others are ``skipped``; the
connection is closed whatever happens.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from idea.domain.errors import IdeaError
from idea.domain.host import Host
from idea.domain.json_types import JsonObject
from idea.infrastructure.remote.ssh.link import (
    CONNECT_TIMEOUT_S,
    check_forwarding,
    check_idea,
    check_root,
    connect,
)

Status = Literal["ok", "failed", "skipped"]
CHECKS = ("connect", "idea", "root", "forwarding")
CLOSE_TIMEOUT_S = 10.0


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
